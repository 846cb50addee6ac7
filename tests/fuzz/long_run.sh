#!/usr/bin/env bash
# Long fuzz runs by CPU time (docs/fuzzing.md#long-runs-an-hour-per-target-as-a-release-check).
#
#   tests/fuzz/long_run.sh CPU_SECONDS TARGET...
#
# Runs each TARGET of the optimized fuzz build (build/fuzz, as `./dev.sh fuzz`
# makes it) in turn, at nice 19, on its corpus (build/fuzz/corpus/TARGET, then
# tests/fuzz/corpus/TARGET) and dictionary, until the process has used
# CPU_SECONDS of CPU time (user + system, read from /proc), then stops it
# with SIGINT, on which libFuzzer prints its final statistics. CPU time, not
# wall-clock time: on a shared machine a run may get a fraction of a core.
# Logs and any crashing input go to build/fuzz/long-runs/ (TARGET.log,
# crash-TARGET-*); a crash ends that target's run early (the log says so).
#
# libFuzzer's -timeout is wall-clock time: do not pause a run (SIGSTOP) for
# longer than it (here 120 s), or the input it was on is reported as a
# timeout although it runs in milliseconds.
set -euo pipefail

if [ $# -lt 2 ]; then
  echo "usage: $0 CPU_SECONDS TARGET..." >&2
  exit 2
fi
budget=$1
shift
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
FUZZ_BUILD="${ROOT}/build/fuzz"
OUT="${FUZZ_BUILD}/long-runs"
mkdir -p "${OUT}"
ticks=$(getconf CLK_TCK)

for target in "$@"; do
  binary="${FUZZ_BUILD}/fuzz/fuzz_${target}"
  if [ ! -x "${binary}" ]; then
    echo "no ${binary}: build it with ./dev.sh fuzz 0" >&2
    exit 1
  fi
  mkdir -p "${FUZZ_BUILD}/corpus/${target}"
  started=$(date +%s)
  ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    nice -n 19 "${binary}" -max_total_time=1000000 -timeout=120 -rss_limit_mb=2048 -max_len=16384 \
      -print_final_stats=1 -dict="${ROOT}/tests/fuzz/dict/${target}.dict" \
      -artifact_prefix="${OUT}/crash-${target}-" \
      "${FUZZ_BUILD}/corpus/${target}" "${ROOT}/tests/fuzz/corpus/${target}" > "${OUT}/${target}.log" 2>&1 &
  pid=$!
  cpu=0
  while kill -0 "${pid}" 2>/dev/null; do
    sleep 10
    # Fields 14 and 15 of /proc/PID/stat: user and system time, in ticks.
    used=$(awk '{print $14 + $15}' "/proc/${pid}/stat" 2>/dev/null) || continue
    [ -n "${used}" ] || continue
    cpu=$(( used / ticks ))
    if [ "${cpu}" -ge "${budget}" ]; then kill -INT "${pid}" 2>/dev/null || true; fi
  done
  status=0
  wait "${pid}" || status=$?
  wall=$(( $(date +%s) - started ))
  echo "long run: ${cpu} s of CPU in ${wall} s, exit status ${status}" >> "${OUT}/${target}.log"
  echo "${target}: ${cpu} s of CPU in ${wall} s, exit status ${status} (${OUT}/${target}.log)"
done
