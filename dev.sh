#!/usr/bin/env bash
# kueuesim developer entry point. Two commands do everything on a fresh
# Debian 12 machine:
#
#   ./dev.sh run    install what is missing, build (release), and run the
#                   quick-start scenario, printing its summary; afterwards
#                   `python3 -c "import kueuesim"` works (docs/python.md)
#   ./dev.sh test   install what is missing, build, and run every test:
#                   unit and end-to-end tests, the Python module's tests,
#                   the Kueue conformance cases,
#                   the example that links the installed library; then, built
#                   with clang, the tests again under AddressSanitizer +
#                   UndefinedBehaviorSanitizer and every fuzz target for
#                   KUEUESIM_CI_FUZZ_SECONDS (default 20; 0 leaves them out)
#                   with a fixed seed
#
# Other commands: ./dev.sh deps | build | bench | fuzz [SECONDS]
#   ./dev.sh fuzz [SECONDS]  build the libFuzzer targets of tests/fuzz with clang
#                   (installed if missing) into build/fuzz and run each for
#                   SECONDS (default 180; 0: build only) on its corpus and
#                   dictionary; crashes go to tests/fuzz/regressions/<target>/
#                   (docs/fuzzing.md)
# Environment: JOBS (parallel jobs, default: number of cores).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
JOBS="${JOBS:-$(nproc 2>/dev/null || echo 2)}"
PACKAGES=(build-essential cmake pkg-config python3 libabsl-dev libboost-graph-dev libfmt-dev
          nlohmann-json3-dev libyaml-cpp-dev libyaml-dev libsimdjson-dev libre2-dev libcli11-dev libgtest-dev libgmock-dev
          libmimalloc-dev  # the allocator of the kueuesim command (docs/performance.md#the-allocator)
          googletest libbenchmark-dev pybind11-dev python3-dev
          python3-pandas   # DataFrames of the Python module (docs/python.md#tables), tested with and without it
          tzdata     # IANA time zones for CronJob spec.timeZone (absl::LoadTimeZone reads /usr/share/zoneinfo)
          chromium   # renders the HTML report in tests/e2e/report_render_test.py
          libjs-dygraphs  # the charting library the HTML report inlines (docs/decisions.md)
          valgrind)  # counts instructions for the speed guard (tests/perf/instruction_gate.py)
CONFORMANCE="${ROOT}/../shared/conformance/check.py"

log() { printf '\n== %s\n' "$*" >&2; }

install_deps() {
  local missing=()
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -eq 0 ]; then return 0; fi
  log "installing: ${missing[*]}"
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

configure_and_build() {  # dir build-type extra-cmake-args...
  local dir="$1" type="$2"; shift 2
  # ccache, when a developer has it, makes rebuilds in several checkouts cheap;
  # CI machines without it build as before.
  local launcher=()
  if command -v ccache >/dev/null 2>&1; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
  cmake -S "$ROOT" -B "$dir" -DCMAKE_BUILD_TYPE="$type" -DKUEUESIM_WERROR=ON "${launcher[@]}" \
        -DPython3_EXECUTABLE=/usr/bin/python3 -DKUEUESIM_BUILD_PYTHON=ON "$@" >/dev/null
  cmake --build "$dir" -j "$JOBS"
}

# Puts <build>/python (the kueuesim module) on python3's path through a .pth
# file in the user's site-packages, so that `python3 -c "import kueuesim"`
# works from anywhere (docs/python.md).
link_python_module() {  # build-dir
  local site
  site="$(python3 -c 'import site; print(site.getusersitepackages() if site.ENABLE_USER_SITE else "")')"
  if [ -z "$site" ]; then
    echo "(python: user site-packages disabled; use PYTHONPATH=$1/python)" >&2
    return 0
  fi
  mkdir -p "$site"
  echo "$1/python" > "$site/kueuesim.pth"
  echo "(python: import kueuesim now loads $1/python, via $site/kueuesim.pth)" >&2
}

cmd_run() {
  install_deps
  log "building (release)"
  configure_and_build "$ROOT/build/release" Release -DKUEUESIM_BUILD_TESTS=OFF -DKUEUESIM_BUILD_BENCHMARKS=OFF
  link_python_module "$ROOT/build/release"
  log "running scenarios/quickstart/gpu-teams.yaml"
  "$ROOT/build/release/cli/kueuesim" run "$ROOT/scenarios/quickstart/gpu-teams.yaml" \
      --events "$ROOT/build/release/quickstart-events.jsonl"
  echo "(event log: build/release/quickstart-events.jsonl)"
}

run_tests() {  # build-dir label
  local dir="$1" label="$2"
  log "tests ($label)"
  (cd "$dir" && ctest --output-on-failure -j "$JOBS")
  log "Kueue conformance cases ($label, with --check-invariants): the shared suite and ours"
  KUEUESIM_BIN="$dir/cli/kueuesim" python3 "$CONFORMANCE" --sim "$ROOT/tests/conformance/kueuesim_checked.sh" \
      --cases "$ROOT/../shared/conformance/cases" --cases "$ROOT/tests/conformance/cases" \
      --known-failures "$ROOT/tests/conformance/known_failures.txt"
}

cmd_test() {
  install_deps
  log "building (RelWithDebInfo, tests)"
  configure_and_build "$ROOT/build/test" RelWithDebInfo -DKUEUESIM_BUILD_BENCHMARKS=ON
  run_tests "$ROOT/build/test" "RelWithDebInfo"
  # One clang tree for the sanitizers and the fuzz targets: the tests run
  # under ASan + UBSan, and the libFuzzer executables link the same
  # instrumented libraries (a second compiler's view of the code, and one
  # build instead of two on CI's two cores).
  log "building (clang, AddressSanitizer + UndefinedBehaviorSanitizer, with the fuzz targets)"
  install_clang
  CC=clang CXX=clang++ configure_and_build "$ROOT/build/sanitize" Debug -DKUEUESIM_SANITIZE="address;undefined" \
      -DKUEUESIM_BUILD_FUZZERS=ON -DKUEUESIM_BUILD_BENCHMARKS=OFF -DKUEUESIM_BUILD_EXAMPLES=OFF
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
      run_tests "$ROOT/build/sanitize" "ASan+UBSan"
  # Every fuzz target briefly, with a fixed seed, on top of the corpus and
  # regression replay the ctest runs did (docs/fuzzing.md);
  # KUEUESIM_CI_FUZZ_SECONDS=0 leaves it out.
  local fuzz_seconds="${KUEUESIM_CI_FUZZ_SECONDS:-20}"
  if [ "$fuzz_seconds" != "0" ]; then run_fuzzers "$ROOT/build/sanitize" "$fuzz_seconds" 1; fi
  log "all tests passed"
}

# clang with its sanitizer and libFuzzer runtimes (Debian 12: clang 14).
install_clang() {
  PACKAGES+=(clang libclang-rt-14-dev)
  install_deps
}

FUZZ_TARGETS=(doc_reader scenario_loader trace_native_csv trace_native_jsonl trace_kueue_workloads
              trace_perf_generator trace_alibaba trace_philly trace_helios trace_pollux trace_alibaba_dlrm
              trace_replica_timeline quantity duration cel)

# The fuzz targets alone, optimized (RelWithDebInfo), for long runs.
build_fuzzers() {  # build-dir
  local dir="$1"
  install_clang
  local launcher=()
  if command -v ccache >/dev/null 2>&1; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
  CC=clang CXX=clang++ cmake -S "$ROOT" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "${launcher[@]}" \
      -DKUEUESIM_BUILD_FUZZERS=ON -DKUEUESIM_BUILD_TESTS=OFF -DKUEUESIM_BUILD_BENCHMARKS=OFF \
      -DKUEUESIM_BUILD_CLI=OFF -DKUEUESIM_BUILD_PYTHON=OFF -DKUEUESIM_BUILD_EXAMPLES=OFF \
      -DKUEUESIM_INSTALL=OFF >/dev/null
  cmake --build "$dir" -j "$JOBS" --target fuzzers
}

cmd_fuzz() {  # seconds
  log "building the fuzz targets (clang, libFuzzer + ASan + UBSan) in build/fuzz"
  build_fuzzers "$ROOT/build/fuzz"
  # 0: build only (libFuzzer would read -max_total_time=0 as "no limit");
  # tests/fuzz/long_run.sh runs the targets by CPU time.
  if [ "${1:-180}" = "0" ]; then return 0; fi
  run_fuzzers "$ROOT/build/fuzz" "${1:-180}"
}

# Runs every fuzz target of build-dir (its fuzz/ directory) for $2 seconds.
# New corpus entries go to <build-dir>/corpus/<target> (the committed seeds
# stay as they are); crashing inputs to tests/fuzz/regressions/<target>/.
# Returns non-zero when a target crashed. Each target's summary goes to
# <build-dir>/logs/<target>.log.
run_fuzzers() {  # build-dir seconds [seed]
  local dir="$1" seconds="$2" failed=() seed=()
  if [ -n "${3:-}" ]; then seed=(-seed="$3"); fi
  mkdir -p "$dir/logs"
  for t in "${FUZZ_TARGETS[@]}"; do
    local work="$dir/corpus/$t" regressions="$ROOT/tests/fuzz/regressions/$t"
    mkdir -p "$work" "$regressions"
    log "fuzzing $t for ${seconds}s"
    if ! ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        "$dir/fuzz/fuzz_$t" -max_total_time="$seconds" "${seed[@]}" -timeout=25 -rss_limit_mb=2048 -max_len=16384 \
        -print_final_stats=1 -dict="$ROOT/tests/fuzz/dict/$t.dict" -artifact_prefix="$regressions/" \
        "$work" "$ROOT/tests/fuzz/corpus/$t" >"$dir/logs/$t.log" 2>&1; then
      failed+=("$t")
      tail -n 40 "$dir/logs/$t.log" >&2
    fi
    grep -E '^#[0-9]+ +DONE|^stat::number_of_executed_units|^stat::peak_rss_mb' "$dir/logs/$t.log" | tr '\n' ' ' >&2
    echo >&2
  done
  if [ ${#failed[@]} -ne 0 ]; then
    echo "fuzz targets that crashed: ${failed[*]} (inputs in tests/fuzz/regressions/)" >&2
    return 1
  fi
  log "no crash"
}

case "${1:-}" in
  run) cmd_run ;;
  test) cmd_test ;;
  deps) install_deps ;;
  build) install_deps; configure_and_build "$ROOT/build/test" RelWithDebInfo ;;
  bench)
    install_deps
    configure_and_build "$ROOT/build/release" Release -DKUEUESIM_BUILD_TESTS=OFF -DKUEUESIM_BUILD_BENCHMARKS=ON
    for b in "$ROOT"/build/release/bench/*_benchmark; do "$b"; done
    python3 "$ROOT/bench/sweep_speedup.py" --sim "$ROOT/build/release/cli/kueuesim"
    python3 "$ROOT/bench/philly_compare.py" --sim "$ROOT/build/release/cli/kueuesim"
    if [ -f "$ROOT/../shared/traces/philly/philly.csv" ]; then  # the report of the Philly year in Chromium
      python3 "$ROOT/tests/e2e/report_render_test.py" --sim "$ROOT/build/release/cli/kueuesim" --root "$ROOT" \
          --out-dir "$ROOT/build/release" --philly "$ROOT/../shared/traces"
    fi ;;
  fuzz) cmd_fuzz "${2:-180}" ;;
  *) echo "usage: ./dev.sh run|test|deps|build|bench|fuzz [SECONDS]" >&2; exit 2 ;;
esac
