#!/bin/sh
# The PostgreSQL figures of issue 24, on a throwaway cluster on loopback (or the server of
# WELLFLOW_BENCH_POSTGRES_URL, a user that may create databases):
#   1. wellflow report over EVENTS events already in PostgreSQL: wall seconds and the
#      client's peak memory (goal: 10 million in <= 30 s, <= 100 MB)
#   2. POST /api/v1/progress req/s under wrk: one serve, then two serve processes on the
#      same database, each with its own wrk (goal: two >= 1.5 x one)
#   3. sync of 10,000 entries to a PostgreSQL-backed serve (goal: >= 5,000/s), by
#      wellflow-bench sync with WELLFLOW_BENCH_DATABASE
# Every process shares the machine's cores (PostgreSQL, serve, wrk, the client): the
# figures print `nproc` and the load average beside them.
#   Tools/postgres-bench.sh WELLFLOW_BINARY [BENCH_BINARY]   (EVENTS, SECONDS_PER_RUN, CONNECTIONS)
set -eu
cd "$(dirname "$0")/.."
binary="$1"
bench="${2:-}"
events="${EVENTS:-10000000}"
seconds="${SECONDS_PER_RUN:-10}"
connections="${CONNECTIONS:-16}"
work="$(mktemp -d /tmp/wellflow-pg-bench.XXXXXX)"
pids=""
pg_stop=""
cleanup() {
  for pid in $pids; do kill "$pid" 2>/dev/null || true; done
  [ -n "$pg_stop" ] && sh -c "$pg_stop" >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT

if [ -n "${WELLFLOW_BENCH_POSTGRES_URL:-}" ]; then
  server="$WELLFLOW_BENCH_POSTGRES_URL"
else
  pg_bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
  [ -n "$pg_bin" ] || { echo "postgres-bench needs PostgreSQL (apt-get install postgresql)" >&2; exit 2; }
  port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
  as_postgres="sh -c"
  if [ "$(id -u)" = 0 ]; then chown postgres "$work"; as_postgres="su postgres -s /bin/sh -c"; fi
  $as_postgres "'$pg_bin/initdb' -D '$work/pg' -U wellflow --auth=trust -E UTF8 >/dev/null"
  $as_postgres "'$pg_bin/pg_ctl' -D '$work/pg' -l '$work/pg.log' -w \
    -o '-p $port -k $work -c listen_addresses=127.0.0.1 -c max_connections=200' start >/dev/null"
  pg_stop="$as_postgres \"'$pg_bin/pg_ctl' -D '$work/pg' -m immediate stop\""
  server="postgres://wellflow@127.0.0.1:$port/postgres"
fi
base="${server%/*}"
psql_run() { psql -X -q -v ON_ERROR_STOP=1 "$@"; }
fresh() {
  name="bench_$(head -c 6 /dev/urandom | od -An -tx1 | tr -d ' \n')"
  psql_run "$server" -c "CREATE DATABASE $name" >/dev/null
  echo "$base/$name"
}
machine() { echo "$(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"; }

# 1. The report: EVENTS events of the check-in experiment, 8 a user, made by PostgreSQL.
reportdb="$(fresh)"
# `serve` would migrate the schema; a report's database needs the events table only.
"$binary" serve --port 0 --database "$reportdb" --quiet >"$work/migrate.log" 2>&1 &
migrate_pid=$!
for _ in $(seq 1 600); do grep -q "^serving" "$work/migrate.log" && break; sleep 0.1; done
kill "$migrate_pid"
users=$((events / 8))
echo "filling $reportdb with $((users * 8)) events ($users users)…" >&2
psql_run "$reportdb" <<SQL
INSERT INTO events (data)
SELECT jsonb_strip_nulls(jsonb_build_object(
  'ts', to_char(timestamp '2026-03-02' + ((u % 50000) * 60 + k * 7) * interval '1 second',
                'YYYY-MM-DD"T"HH24:MI:SS".000Z"'),
  'user', 'user-' || u,
  'event', (ARRAY['experiment_viewed', 'flow_started', 'screen_viewed', 'screen_viewed', 'screen_viewed',
                  CASE WHEN u % 5 = 0 THEN 'flow_cancelled' ELSE 'flow_completed' END, 'mood_saved',
                  'screen_viewed'])[k + 1],
  'flow', CASE WHEN k < 6 THEN 'checkin' END,
  'variant', CASE WHEN k < 6 THEN (ARRAY['full', 'quick', 'mini'])[u % 3 + 1] END,
  'experiment', CASE WHEN k = 0 THEN 'checkin-length' END,
  'variation', CASE WHEN k = 0 THEN (ARRAY['full', 'quick', 'mini'])[u % 3 + 1] END,
  'variation_id', CASE WHEN k = 0 THEN u % 3 END,
  'source', 'script',
  'screen', CASE WHEN k IN (2, 3, 4) THEN 'step-' || k WHEN k = 7 THEN 'history' END,
  'reason', CASE WHEN k = 5 AND u % 5 = 0 THEN 'user' END))
FROM generate_series(1, $users) AS u, generate_series(0, 7) AS k;
VACUUM ANALYZE events;
SQL
report_load="$(machine)"
/usr/bin/time -f "%e %M" -o "$work/report.time" "$binary" report "$reportdb" --experiment checkin-length \
  --format json >"$work/report.json"
read -r report_seconds report_kb <"$work/report.time"

# 2. POST req/s: one serve, then two on the same database.
postdb="$(fresh)"
export WELLFLOW_API_KEY="bench-key-0123456789abcdef0123456789"
WELLFLOW_JWT_SECRET="$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')"
export WELLFLOW_JWT_SECRET
start_serve() {
  log="$work/serve-$1.log"
  "$binary" serve --port 0 --database "$postdb" --quiet >"$log" 2>&1 &
  pids="$pids $!"
  for _ in $(seq 1 600); do
    address="$(sed -n 's/^serving the progress API on \(http[^ ]*\).*/\1/p' "$log")"
    [ -n "$address" ] && { echo "$address"; return; }
    sleep 0.1
  done
  cat "$log" >&2
  exit 1
}
first="$(start_serve 1)"
second="$(start_serve 2)"
token="$("$binary" token bench-user --ttl 2h)"
cat >"$work/post.lua" <<LUA
wrk.method = "POST"
wrk.body = '{"type":"mood_score","quantity":7,"logged_at":"2026-03-02T08:00:00Z","notes":"bench"}'
wrk.headers["Content-Type"] = "application/json"
LUA
rate() { sed -n 's/^Requests\/sec: *\([0-9.]*\).*/\1/p' "$1"; }
post() {
  wrk -t1 -c"$2" -d"${seconds}s" -H "X-API-Key: $WELLFLOW_API_KEY" -H "Authorization: Bearer $token" \
    -s "$work/post.lua" "$1/api/v1/progress" >"$3"
}
post_load="$(machine)"
post "$first" "$connections" "$work/one.out"
one="$(rate "$work/one.out")"
post "$first" $((connections / 2)) "$work/two-a.out" &
wrk_a=$!
post "$second" $((connections / 2)) "$work/two-b.out"
wait "$wrk_a"
two="$(python3 -c "print($(rate "$work/two-a.out") + $(rate "$work/two-b.out"))")"

# 3. Sync of 10,000 entries to a PostgreSQL-backed serve.
sync_table=""
if [ -n "$bench" ]; then
  syncdb="$(fresh)"
  sync_load="$(machine)"
  sync_table="$(WELLFLOW_BENCH_DATABASE="$syncdb" "$bench" sync 2>/dev/null || true)"
fi

python3 - "$report_seconds" "$report_kb" "$((users * 8))" "$one" "$two" "$seconds" "$connections" "$binary" <<PY
import sys
seconds, kb, events, one, two, run, connections, binary = sys.argv[1:]
print("PostgreSQL on loopback, %s (Tools/bench.sh postgres builds and runs the release one)" % binary)
print("%-58s %-22s %s" % ("figure", "value", "goal"))
print("%-58s %-22s %s" % ("report over %s events in PostgreSQL: wall" % format(int(events), ","), "%.1f s" % float(seconds), "<= 30 s (10 million)"))
print("%-58s %-22s %s" % ("report: the client's peak memory (max RSS)", "%.0f MB" % (int(kb) / 1024), "<= 100 MB"))
print("%-58s %-22s %s" % ("POST req/s, one serve (wrk -c%s, %s s)" % (connections, run), "%.0f" % float(one), ""))
print("%-58s %-22s %s" % ("POST req/s, two serve on one database (2 x wrk -c%d)" % (int(connections) // 2), "%.0f" % float(two), ""))
print("%-58s %-22s %s" % ("two / one", "%.2f x" % (float(two) / float(one)), ">= 1.5 x"))
PY
echo "machine while measuring: report: $report_load; POST: $post_load${sync_load:+; sync: $sync_load}"
echo "(PostgreSQL, every serve process, wrk and the client share these cores)"
[ -n "$sync_table" ] && { echo "sync to a PostgreSQL-backed serve (wellflow-bench sync):"; echo "$sync_table"; }
exit 0
