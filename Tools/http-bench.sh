#!/bin/sh
# The HTTP figures of issue 23: `wellflow serve` under wrk beside nginx serving a 7 KB file,
# on loopback, in the same run, interleaved round by round (nginx, GET, POST):
#   GET  /api/v1/progress?limit=50 of a user holding 10,000 rows
#   POST /api/v1/progress (a new row each)
# Prints each one's req/s as the median with min–max over the rounds, and the ratios to
# nginx with their goals (GET >= 25 %, POST >= 10 %). Needs wrk, nginx and python3.
#   Tools/http-bench.sh [WELLFLOW_BINARY]   (ROUNDS, SECONDS_PER_RUN, CONNECTIONS in the environment)
set -eu
cd "$(dirname "$0")/.."
binary="${1:-$(swift build -c release --show-bin-path)/wellflow}"
rounds="${ROUNDS:-5}"
seconds="${SECONDS_PER_RUN:-5}"
connections="${CONNECTIONS:-16}"
for tool in wrk nginx python3; do
  command -v "$tool" >/dev/null 2>&1 || [ -x "/usr/sbin/$tool" ] || { echo "http-bench needs $tool" >&2; exit 2; }
done
nginx_binary="$(command -v nginx || echo /usr/sbin/nginx)"
work="$(mktemp -d)"
serve_pid=""
nginx_pid=""
trap '[ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null; [ -n "$nginx_pid" ] && kill "$nginx_pid" 2>/dev/null; rm -rf "$work"' EXIT

export WELLFLOW_API_KEY="bench-key-0123456789abcdef0123456789"
WELLFLOW_JWT_SECRET="$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')"
export WELLFLOW_JWT_SECRET
"$binary" serve --port 0 --db "$work/backend.sqlite" --quiet >"$work/serve.log" 2>&1 &
serve_pid=$!
url=""
for _ in $(seq 1 600); do
  url="$(sed -n 's/^serving the progress API on \(http[^ ]*\).*/\1/p' "$work/serve.log")"
  [ -n "$url" ] && break
  kill -0 "$serve_pid" 2>/dev/null || { cat "$work/serve.log" >&2; exit 1; }
  sleep 0.1
done
[ -n "$url" ] || { echo "wellflow serve did not start" >&2; exit 1; }
token="$("$binary" token bench-user --ttl 2h)"

# 10,000 rows for the user, 100 a batch.
python3 - "$url" "$token" <<'PY'
import json, sys, urllib.request
url, token = sys.argv[1], sys.argv[2]
headers = {"X-API-Key": "bench-key-0123456789abcdef0123456789", "Authorization": "Bearer " + token,
           "Content-Type": "application/json"}
for batch in range(100):
    items = []
    for i in range(100):
        n = batch * 100 + i
        day = "%04d-%02d-%02d" % (2000 + n // 336, 1 + (n // 28) % 12, 1 + n % 28)
        items.append({"idempotency_key": "seed-%d" % n, "method": "POST",
                      "body": {"type": "mood_score", "quantity": 1 + n % 10, "logged_at": day,
                               "notes": "seeded row %d" % n}})
    request = urllib.request.Request(url + "/api/v1/progress/batch", json.dumps({"items": items}).encode(),
                                     headers)
    with urllib.request.urlopen(request) as answer:
        assert answer.status == 200
PY

# nginx serving a 7 KB file on a free port.
mkdir -p "$work/www"
head -c 7168 /dev/zero | tr '\0' 'x' >"$work/www/file.html"
nginx_port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
cat >"$work/nginx.conf" <<CONF
daemon off;
worker_processes auto;
pid $work/nginx.pid;
error_log $work/nginx-error.log;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path $work/tmp;
  proxy_temp_path $work/tmp;
  fastcgi_temp_path $work/tmp;
  uwsgi_temp_path $work/tmp;
  scgi_temp_path $work/tmp;
  server { listen 127.0.0.1:$nginx_port; root $work/www; }
}
CONF
mkdir -p "$work/tmp"
"$nginx_binary" -c "$work/nginx.conf" -p "$work" &
nginx_pid=$!
sleep 0.5

cat >"$work/post.lua" <<LUA
wrk.method = "POST"
wrk.body = '{"type":"mood_score","quantity":7,"logged_at":"2026-03-02T08:00:00Z","notes":"bench"}'
wrk.headers["Content-Type"] = "application/json"
LUA
auth_key="X-API-Key: $WELLFLOW_API_KEY"
auth_token="Authorization: Bearer $token"
rate() { sed -n 's/^Requests\/sec: *\([0-9.]*\).*/\1/p'; }
: >"$work/figures"
for round in $(seq 1 "$rounds"); do
  n="$(wrk -t2 -c"$connections" -d"${seconds}s" "http://127.0.0.1:$nginx_port/file.html" | rate)"
  g="$(wrk -t2 -c"$connections" -d"${seconds}s" -H "$auth_key" -H "$auth_token" \
    "$url/api/v1/progress?limit=50" | rate)"
  p="$(wrk -t2 -c"$connections" -d"${seconds}s" -H "$auth_key" -H "$auth_token" -s "$work/post.lua" \
    "$url/api/v1/progress" | rate)"
  echo "$n $g $p" >>"$work/figures"
  echo "round $round: nginx $n, GET $g, POST $p req/s" >&2
done
python3 - "$work/figures" "$rounds" "$seconds" "$connections" <<'PY'
import statistics, sys
rows = [list(map(float, line.split())) for line in open(sys.argv[1]) if line.strip()]
def cell(values, unit=""):
    return "%s%s (%s–%s)" % (fmt(statistics.median(values)), unit, fmt(min(values)), fmt(max(values)))
def fmt(v):
    return ("%.0f" % v) if v >= 100 else ("%.1f" % v)
nginx = [r[0] for r in rows]
get = [r[1] for r in rows]
post = [r[2] for r in rows]
print("HTTP on loopback, wrk -t2 -c%s -d%ss, %s rounds interleaved: median (min–max)" % (sys.argv[4], sys.argv[3], sys.argv[2]))
print("%-44s %-26s %s" % ("figure", "value", "goal"))
print("%-44s %-26s %s" % ("nginx, a 7 KB file (req/s)", cell(nginx), ""))
print("%-44s %-26s %s" % ("serve GET ?limit=50 of 10,000 rows (req/s)", cell(get), ""))
print("%-44s %-26s %s" % ("serve POST /api/v1/progress (req/s)", cell(post), ""))
print("%-44s %-26s %s" % ("GET / nginx (same round)", cell([100 * g / n for g, n in zip(get, nginx)], " %"), ">= 25 %"))
print("%-44s %-26s %s" % ("POST / nginx (same round)", cell([100 * p / n for p, n in zip(post, nginx)], " %"), ">= 10 %"))
PY
