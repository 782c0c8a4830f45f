#!/usr/bin/env bash
# Replays the seeded fuzz test's mutants in child processes, so a trap kills one
# `wellflow run`, not the test, and lists every mutant that trapped or hung.
#
#   WELLFLOW_FUZZ_DUMP=/tmp/mutants swift test --filter FuzzTests   # writes the mutants
#   swift build --product wellflow
#   Tools/Fuzz/replay-mutants.sh /tmp/mutants                       # replays them
#
# Environment: WELLFLOW (default .build/debug/wellflow), TIMEOUT seconds per mutant
# (default 20), JOBS parallel runs (default 2). Stderr of each finding is kept in
# FOLDER/findings/ID.err; the list is FOLDER/findings.tsv (id, exit status, mutant).
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
folder="${1:?replay-mutants.sh takes the folder WELLFLOW_FUZZ_DUMP wrote}"
export WELLFLOW="${WELLFLOW:-$root/.build/debug/wellflow}"
export TIMEOUT="${TIMEOUT:-20}"
export FINDINGS="$folder/findings"
mkdir -p "$FINDINGS"

replay() {
  local id scripts experiments label status
  IFS=$'\t' read -r id scripts experiments label <<<"$1"
  # shellcheck disable=SC2206
  local arguments=(run $scripts)
  if [ "$experiments" != "-" ]; then arguments+=(--experiments "$experiments"); fi
  if [[ "$id" == e* ]]; then arguments+=(--users 2); fi
  SWIFT_BACKTRACE=enable=yes,interactive=no,color=no timeout -k 5 "$TIMEOUT" \
    "$WELLFLOW" "${arguments[@]}" >/dev/null 2>"$FINDINGS/$id.err"
  status=$?
  if [ "$status" -ge 124 ]; then
    printf '%s\t%s\t%s\n' "$id" "$status" "$label"
  else
    rm -f "$FINDINGS/$id.err"
  fi
}
export -f replay

cat "$folder"/manifest-*.tsv | grep -v '^$' | tr '\n' '\0' |
  xargs -0 -n 1 -P "${JOBS:-2}" bash -c 'replay "$1"' _ | tee "$folder/findings.tsv"
echo "$(wc -l <"$folder/findings.tsv") of $(cat "$folder"/manifest-*.tsv | grep -vc '^$') mutants trapped (status ≥ 128) or hung (124)" >&2
