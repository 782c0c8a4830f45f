#!/bin/sh
# The PostgreSQL figures of issue 24, on a throwaway cluster on loopback (or the server of
# WELLFLOW_BENCH_POSTGRES_URL, a user that may create databases):
#   1. wellflow report over EVENTS events already in PostgreSQL: wall seconds and the
#      client's peak memory (goal: 10 million in <= 30 s, <= 100 MB)
#   2. POST /api/v1/progress req/s under wrk: one serve, then two serve processes on the
#      same database, each with its own wrk (goal: two >= 1.5 x one); again with each serve
#      held to REPLICA_CORES of a core (default 0.4) by a cgroup CPU quota
#   3. sync of 10,000 entries to a PostgreSQL-backed serve (goal: >= 5,000/s), by
#      wellflow-bench sync with WELLFLOW_BENCH_DATABASE
# Every process shares the machine's cores (PostgreSQL, serve, wrk, the client): the
# figures print `nproc` and the load average beside them.
# Each figure is measured RUNS times (default 3): the median, then min–max. The cluster lives
# in .build/bench-data/postgres and keeps the report's events between runs: they are made
# once, from `wellflow run` of the check-in experiment for 1,000 users copied under new user
# names (INSERT … SELECT) until there are EVENTS.
#   Tools/postgres-bench.sh WELLFLOW_BINARY [BENCH_BINARY]   (EVENTS, SECONDS_PER_RUN, CONNECTIONS, RUNS)
set -eu
cd "$(dirname "$0")/.."
binary="$1"
bench="${2:-}"
events="${EVENTS:-10000000}"
seconds="${SECONDS_PER_RUN:-10}"
connections="${CONNECTIONS:-16}"
runs="${RUNS:-3}"
work="$(mktemp -d /tmp/wellflow-pg-bench.XXXXXX)"
pids=""
pg_stop=""
cgroups=""
cleanup() {
  # start_serve runs in a command substitution's subshell: its pids come back through a file.
  for pid in $pids $(cat "$work/serve.pids" 2>/dev/null); do kill "$pid" 2>/dev/null || true; done
  for group in $cgroups; do
    for _ in 1 2 3 4 5 6 7 8 9 10; do rmdir "$group" 2>/dev/null && break; sleep 0.2; done
  done
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
  data="$(pwd)/.build/bench-data/postgres"
  mkdir -p "$data"
  if [ "$(id -u)" = 0 ]; then chown postgres "$work" "$data"; as_postgres="su postgres -s /bin/sh -c"; fi
  [ -f "$data/PG_VERSION" ] || $as_postgres "'$pg_bin/initdb' -D '$data' -U wellflow --auth=trust -E UTF8 >/dev/null"
  $as_postgres "'$pg_bin/pg_ctl' -D '$data' -l '$work/pg.log' -w \
    -o '-p $port -k $work -c listen_addresses=127.0.0.1 -c max_connections=200' start >/dev/null"
  pg_stop="$as_postgres \"'$pg_bin/pg_ctl' -D '$data' -m fast stop\""
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
# Databases of earlier runs' POST and sync figures: only the report's events are kept.
for old in $(psql -X -tA "$server" -c "SELECT datname FROM pg_database WHERE datname LIKE 'bench\_%'"); do
  psql_run "$server" -c "DROP DATABASE $old" >/dev/null
done

# 1. The report over EVENTS events of the check-in experiment, made once and kept.
reportdb="$base/report_events_$events"
filled="$(psql -X -tA "$server" -c "SELECT 1 FROM pg_database WHERE datname = 'report_events_$events'")"
if [ "$filled" != 1 ] || [ "$(psql -X -tA "$reportdb" -c "SELECT count(*) FROM events" 2>/dev/null)" != "$events" ]; then
  psql_run "$server" -c "DROP DATABASE IF EXISTS report_events_$events" -c "CREATE DATABASE report_events_$events" >/dev/null
  echo "filling $reportdb with $events events…" >&2
  # A real population: the check-in experiment's script for 1,000 users, into the table.
  "$binary" run Apps/Wellflow/Scripts/experiment-checkin.yaml --quiet \
    --experiments Apps/Wellflow/Experiments/checkin-length.yaml --users 1000 --events "$reportdb" >&2
  psql_run "$reportdb" <<SQL
CREATE TEMP TABLE population AS SELECT seq, data FROM events;
INSERT INTO events (data)
SELECT jsonb_set(p.data, '{user}', to_jsonb((p.data->>'user') || '~' || k))
FROM population p, generate_series(1, ($events + (SELECT count(*) FROM population) - 1) / (SELECT count(*) FROM population)) AS k
ORDER BY k, p.seq;
DELETE FROM events WHERE seq > (SELECT min(seq) FROM events) + $events - 1;
VACUUM ANALYZE;
SQL
fi
report_runs=""
for _ in $(seq 1 "$runs"); do
  load="$(cut -d' ' -f1 /proc/loadavg)"
  /usr/bin/time -f "%e %M" -o "$work/report.time" "$binary" report "$reportdb" --experiment checkin-length \
    --experiments Apps/Wellflow/Experiments/checkin-length.yaml --format json >"$work/report.json"
  read -r report_seconds report_kb <"$work/report.time"
  report_runs="$report_runs $report_seconds:$report_kb:$load"
done

# 2. POST req/s: one serve, then two on the same database.
postdb="$(fresh)"
export WELLFLOW_API_KEY="bench-key-0123456789abcdef0123456789"
WELLFLOW_JWT_SECRET="$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')"
export WELLFLOW_JWT_SECRET
start_serve() {
  log="$work/serve-$1.log"
  "$binary" serve --port 0 --database "$postdb" --quiet >"$log" 2>&1 &
  echo "$!" >>"$work/serve.pids"
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
# RUNS rounds of: one serve under wrk, then both at once; each round "one:two:load".
post_rounds() {
  for _ in $(seq 1 "$runs"); do
    load="$(cut -d' ' -f1 /proc/loadavg)"
    post "$first" "$connections" "$work/one.out"
    one="$(rate "$work/one.out")"
    post "$first" $((connections / 2)) "$work/two-a.out" &
    wrk_a=$!
    post "$second" $((connections / 2)) "$work/two-b.out"
    wait "$wrk_a"
    two="$(python3 -c "print($(rate "$work/two-a.out") + $(rate "$work/two-b.out"))")"
    printf ' %s:%s:%s' "$one" "$two" "$load"
  done
}
post_runs="$(post_rounds)"

# 2b. The same with each serve held to a share of a core (REPLICA_CORES, default 0.4) by a
# cgroup CPU quota, as replicas on machines of their own would be: on 2 cores one serve,
# PostgreSQL and wrk already use every core, so a second process has none to add unless
# serve, not the machine, is what limits. Needs a writable cgroup cpu controller (root).
replica_cores="${REPLICA_CORES:-0.4}"
capped_runs=""
cap() { # cap PID N: the process in a cgroup of its own with a quota of replica_cores
  quota="$(python3 -c "print(int($replica_cores * 100000))")"
  if [ -w /sys/fs/cgroup/cpu ] && [ -f /sys/fs/cgroup/cpu/cgroup.procs ]; then
    group="/sys/fs/cgroup/cpu/wellflow-bench-$$-$2"
    mkdir -p "$group" && echo 100000 >"$group/cpu.cfs_period_us" && echo "$quota" >"$group/cpu.cfs_quota_us"
  elif [ -w /sys/fs/cgroup/cgroup.subtree_control ] && grep -qw cpu /sys/fs/cgroup/cgroup.controllers; then
    group="/sys/fs/cgroup/wellflow-bench-$$-$2"
    mkdir -p "$group" && echo "$quota 100000" >"$group/cpu.max"
  else
    return 1
  fi
  cgroups="$cgroups $group"
  echo "$1" >"$group/cgroup.procs"
}
if cap "$(sed -n 1p "$work/serve.pids")" 1 2>/dev/null && cap "$(sed -n 2p "$work/serve.pids")" 2 2>/dev/null; then
  capped_runs="$(post_rounds)"
fi

# 3. Sync of 10,000 entries to a PostgreSQL-backed serve.
sync_table=""
if [ -n "$bench" ]; then
  syncdb="$(fresh)"
  sync_load="$(machine)"
  sync_table="$(WELLFLOW_BENCH_DATABASE="$syncdb" "$bench" sync 2>/dev/null || true)"
fi

python3 - "$events" "$connections" "$seconds" "$binary" "$report_runs" "$post_runs" "$capped_runs" "$replica_cores" <<'PY'
import statistics, sys
events, connections, run, binary, report_runs, post_runs, capped_runs, cores = sys.argv[1:]
reports = [tuple(float(v) for v in r.split(":")) for r in report_runs.split()]
posts = [tuple(float(v) for v in r.split(":")) for r in post_runs.split()]
def cell(values, form):
    return "%s (%s–%s)" % (form % statistics.median(values), form % min(values), form % max(values))
def load(rows):
    return "load %s" % ", ".join("%.1f" % r[-1] for r in rows)
print("PostgreSQL on loopback, %s; %d runs each: median (min–max)" % (binary, len(reports)))
print("%-56s %-24s %-12s %s" % ("figure", "value", "goal", "1-min load per run"))
print("%-56s %-24s %-12s %s" % ("report over %s events in PostgreSQL: wall" % format(int(events), ","), cell([r[0] for r in reports], "%.1f s"), "<= 30 s", load(reports)))
print("%-56s %-24s %-12s %s" % ("report: the client's peak memory (max RSS)", cell([r[1] / 1024 for r in reports], "%.0f MB"), "<= 100 MB", load(reports)))
print("%-56s %-24s %-12s %s" % ("POST req/s, one serve (wrk -c%s, %s s)" % (connections, run), cell([p[0] for p in posts], "%.0f"), "", load(posts)))
print("%-56s %-24s %-12s %s" % ("POST req/s, two serve on one database (2 x wrk -c%d)" % (int(connections) // 2), cell([p[1] for p in posts], "%.0f"), "", load(posts)))
print("%-56s %-24s %-12s %s" % ("two / one (per run)", cell([p[1] / p[0] for p in posts], "%.2f x"), ">= 1.5 x", load(posts)))
capped = [tuple(float(v) for v in r.split(":")) for r in capped_runs.split()]
if capped:
    print("%-56s %-24s %-12s %s" % ("POST req/s, one serve held to %s core" % cores, cell([p[0] for p in capped], "%.0f"), "", load(capped)))
    print("%-56s %-24s %-12s %s" % ("POST req/s, two serve, each held to %s core" % cores, cell([p[1] for p in capped], "%.0f"), "", load(capped)))
    print("%-56s %-24s %-12s %s" % ("two / one, each serve held to %s core" % cores, cell([p[1] / p[0] for p in capped], "%.2f x"), ">= 1.5 x", load(capped)))
else:
    print("two / one, each serve held to a share of a core: not measured (no writable cgroup cpu controller)")
PY
echo "machine: $(nproc) cores${sync_load:+; sync measured at $sync_load}"
echo "(PostgreSQL, every serve process, wrk and the client share these cores; held to a share of a"
echo " core, each serve runs as on a small machine of its own, while PostgreSQL and wrk use the rest)"
[ -n "$sync_table" ] && { echo "sync to a PostgreSQL-backed serve (wellflow-bench sync):"; echo "$sync_table"; }
exit 0
