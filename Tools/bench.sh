#!/bin/sh
# Builds the two release products the benchmark needs (it spawns `wellflow run` and
# `wellflow serve` from beside itself), then runs it: the table on standard output,
# build output and progress on standard error.
#   Tools/bench.sh                      every figure (fills .build/bench-data once: minutes)
#   Tools/bench.sh --quick              a smoke run with small N
#   Tools/bench.sh mood sync --scale 2  some figures, bigger N
#   Tools/bench.sh events               figure 10 alone: events' cost, --jobs 2, the report over 1M and 10M events
#   Tools/bench.sh reminders            figure 8 alone: a hundred years of daily reminders
#   Tools/bench.sh memory               figure 9 alone: peak memory of wellflow run by output
#   Tools/bench.sh http                 serve's GET and POST req/s beside nginx (wrk; Tools/http-bench.sh)
#   Tools/bench.sh postgres             report, two serve replicas and sync on PostgreSQL (Tools/postgres-bench.sh)
set -eu
cd "$(dirname "$0")/.."
swift build -c release --product wellflow >&2
if [ "${1:-}" = http ]; then
  shift
  exec sh Tools/http-bench.sh "$(swift build -c release --show-bin-path)/wellflow" "$@"
fi
swift build -c release --product wellflow-bench >&2
if [ "${1:-}" = postgres ]; then
  bin="$(swift build -c release --show-bin-path)"
  exec sh Tools/postgres-bench.sh "$bin/wellflow" "$bin/wellflow-bench"
fi
exec "$(swift build -c release --show-bin-path)/wellflow-bench" "$@"
