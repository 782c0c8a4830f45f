#!/usr/bin/env bash
# Builds the libFuzzer harnesses and fuzzes the script or experiment-file loader.
#
#   Tools/Fuzz/run.sh script [SECONDS]          fuzz the script loader (default 300 s)
#   Tools/Fuzz/run.sh experiment [SECONDS]      fuzz the experiment-file loader
#   Tools/Fuzz/run.sh build                     only build
#   Tools/Fuzz/run.sh repro script|experiment FILE...   run saved inputs once each
#   Tools/Fuzz/run.sh minimize script|experiment FILE   shrink a crashing input
#
# Environment: WELLFLOW_FUZZ_RUN=1 also runs scripts that load; WELLFLOW_FUZZ_STRICT=1
# traps on rejections without a position or with a multi-line message; JOBS=N runs N
# fuzzing processes; FUZZ_ARGS adds libFuzzer flags.
set -euo pipefail

# Swift's own crash backtracer would catch a trap first (and take seconds to print), so
# libFuzzer would never see it: off, unless asked for.
export SWIFT_BACKTRACE="${SWIFT_BACKTRACE:-enable=no}"

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
scratch="$root/.build-fuzz"

build() {
  swift build -c release --package-path "$here" --scratch-path "$scratch" \
    -Xswiftc -sanitize=fuzzer -Xswiftc -use-ld=lld >&2
}

binary() {
  case "$1" in
  script | experiment) echo "$scratch/release/wellflow-fuzz-$1" ;;
  *)
    echo "unknown target '$1' (script or experiment)" >&2
    exit 2
    ;;
  esac
}

command="${1:-script}"
case "$command" in
build)
  build
  ;;
repro)
  target="${2:?repro takes script or experiment, then files}"
  shift 2
  build
  "$(binary "$target")" -timeout=5 -rss_limit_mb=2048 "$@"
  ;;
minimize)
  target="${2:?minimize takes script or experiment, then a file}"
  build
  mkdir -p "$here/artifacts/$target"
  "$(binary "$target")" -minimize_crash=1 -runs=20000 -timeout=5 -rss_limit_mb=2048 \
    -artifact_prefix="$here/artifacts/$target/" "${3:?minimize takes a file}"
  ;;
script | experiment)
  target="$command"
  seconds="${2:-300}"
  build
  # New inputs go to a working corpus under .build-fuzz; the committed seeds are only read.
  corpus="$scratch/corpus/$target"
  mkdir -p "$corpus" "$here/artifacts/$target"
  jobs="${JOBS:-1}"
  parallel=()
  if [ "$jobs" -gt 1 ]; then parallel=(-fork="$jobs" -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1); fi
  # shellcheck disable=SC2086
  "$(binary "$target")" "$corpus" "$here/corpus/${target}s" \
    -dict="$here/wellflow.dict" -max_total_time="$seconds" -timeout=5 -rss_limit_mb=2048 \
    -max_len=65536 -print_final_stats=1 -artifact_prefix="$here/artifacts/$target/" \
    "${parallel[@]}" ${FUZZ_ARGS:-}
  ;;
*)
  sed -n '2,14p' "$0" >&2
  exit 2
  ;;
esac
