# End-to-end tests: the CLI on every scenario, the CLI on bad input, and an
# outside project built against the installed package.
find_package(Python3 COMPONENTS Interpreter REQUIRED)

# Under the sanitizers each scenario runs once (the second run, for
# byte-identical output, is the optimized build's check).
if(KUEUESIM_SANITIZE)
  set(KUEUESIM_SCENARIO_TEST_FLAGS --sanitized)
endif()
add_test(NAME e2e.scenarios
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/e2e/run_scenarios.py
          --sim $<TARGET_FILE:kueuesim_cli> --root ${PROJECT_SOURCE_DIR}/scenarios ${KUEUESIM_SCENARIO_TEST_FLAGS})
# Every Kueue conformance case again with --check-invariants (through a
# wrapper: check.py passes no extra flags). The cases live outside the tree
# (../shared/conformance by default, as for dev.sh); without them the test is
# not defined.
set(KUEUESIM_CONFORMANCE_DIR "${PROJECT_SOURCE_DIR}/../shared/conformance" CACHE PATH
    "Kueue conformance cases (check.py)")
if(EXISTS "${KUEUESIM_CONFORMANCE_DIR}/check.py")
  add_test(NAME e2e.conformance_invariants
    COMMAND ${Python3_EXECUTABLE} ${KUEUESIM_CONFORMANCE_DIR}/check.py
            --sim ${PROJECT_SOURCE_DIR}/tests/conformance/kueuesim_checked.sh
            --known-failures ${PROJECT_SOURCE_DIR}/tests/conformance/known_failures.txt)
  set_tests_properties(e2e.conformance_invariants PROPERTIES
    ENVIRONMENT "KUEUESIM_BIN=$<TARGET_FILE:kueuesim_cli>" TIMEOUT 900)
endif()
add_test(NAME e2e.bad_input
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/e2e/bad_input_test.py
          --sim $<TARGET_FILE:kueuesim_cli>)
add_test(NAME e2e.check_thresholds
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/e2e/check_thresholds_test.py
          --sim $<TARGET_FILE:kueuesim_cli> --root ${PROJECT_SOURCE_DIR}/scenarios)
if(KUEUESIM_BUILD_EXAMPLES AND KUEUESIM_INSTALL AND NOT KUEUESIM_SANITIZE)
  add_test(NAME e2e.install_example
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e/install_example_test.sh ${PROJECT_BINARY_DIR} ${PROJECT_SOURCE_DIR})
  set_tests_properties(e2e.install_example PROPERTIES TIMEOUT 600)
endif()
# The HTML report renders right in headless Chromium (dev.sh installs
# chromium and libjs-dygraphs; the test fails without them): no console
# errors, every chart drawn, known values (p90s) in the live charts, every
# ClusterQueue and run present; the capacity-planning report's screenshot
# goes to <build>/tests/report-capacity-planning.png.
add_test(NAME e2e.report_render
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/e2e/report_render_test.py
          --sim $<TARGET_FILE:kueuesim_cli> --root ${PROJECT_SOURCE_DIR} --out-dir ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(e2e.report_render PROPERTIES TIMEOUT 300)
# The report of the Philly year (the shared traces, outside the tree:
# defined only when they are there; not under the sanitizers) renders in
# Chromium in seconds. Also run by `./dev.sh bench`.
set(KUEUESIM_TRACES_DIR "${PROJECT_SOURCE_DIR}/../shared/traces" CACHE PATH "The shared traces (philly/philly.csv)")
if(EXISTS "${KUEUESIM_TRACES_DIR}/philly/philly.csv" AND NOT KUEUESIM_SANITIZE)
  add_test(NAME e2e.report_render_philly
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/e2e/report_render_test.py
            --sim $<TARGET_FILE:kueuesim_cli> --root ${PROJECT_SOURCE_DIR} --out-dir ${CMAKE_CURRENT_BINARY_DIR}
            --philly ${KUEUESIM_TRACES_DIR})
  set_tests_properties(e2e.report_render_philly PROPERTIES TIMEOUT 600 LABELS "philly")
endif()
add_test(NAME e2e.compare
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/e2e/compare_test.py
          --sim $<TARGET_FILE:kueuesim_cli> --root ${PROJECT_SOURCE_DIR}/scenarios)
if(KUEUESIM_SANITIZE)
  set(KUEUESIM_SWEEP_TEST_FLAGS --sanitized)  # the Philly study's figures: in the optimized build
endif()
add_test(NAME e2e.sweep
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/e2e/sweep_test.py
          --sim $<TARGET_FILE:kueuesim_cli> --source ${PROJECT_SOURCE_DIR} ${KUEUESIM_SWEEP_TEST_FLAGS})
# Trace replay with recorded start times reproduces the trace's own waits
# (computed from the raw CSV), through --workloads and the summary.
add_test(NAME e2e.trace_replay
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/e2e/trace_replay_test.py
          --sim $<TARGET_FILE:kueuesim_cli> --root ${PROJECT_SOURCE_DIR}/scenarios)
# Real clusters as they are: a directory of kubectl YAML and JSON, generated
# names, unsimulated kinds, default run times, validate --strict.
add_test(NAME e2e.loadpath
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/e2e/loadpath_test.py
          --sim $<TARGET_FILE:kueuesim_cli>)
# kueuesim explain, the workload table's pending columns and the summary's
# pendingByReason on scenarios/docs/pending-reasons.yaml.
add_test(NAME e2e.explain
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/e2e/explain_test.py
          --sim $<TARGET_FILE:kueuesim_cli> --root ${PROJECT_SOURCE_DIR}/scenarios)
# "-" is stdout for every output option, "no data" is null / "-", unknown
# commands and empty inputs get clear errors, --help shows examples.
add_test(NAME e2e.cli_output
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/e2e/cli_output_test.py
          --sim $<TARGET_FILE:kueuesim_cli> --root ${PROJECT_SOURCE_DIR}/scenarios)
# Docs that cannot drift: every marked example of README.md and docs/*.md
# is run and its output compared; an unmarked block that runs kueuesim fails.
# Under the sanitizers the slowest block (docs/multikueue.md's two-point
# MultiKueue sweep of the Philly fleet) alone takes about 110 s.
if(KUEUESIM_SANITIZE)
  set(KUEUESIM_DOC_COMMAND_TIMEOUT 600)
  set(KUEUESIM_DOC_CHECK_TIMEOUT 1200)
else()
  set(KUEUESIM_DOC_COMMAND_TIMEOUT 120)
  set(KUEUESIM_DOC_CHECK_TIMEOUT 300)
endif()
add_test(NAME e2e.doc_check
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/e2e/doc_check.py
          --sim $<TARGET_FILE:kueuesim_cli> --source ${PROJECT_SOURCE_DIR}
          --command-timeout ${KUEUESIM_DOC_COMMAND_TIMEOUT})
set_tests_properties(e2e.doc_check PROPERTIES TIMEOUT ${KUEUESIM_DOC_CHECK_TIMEOUT})
add_test(NAME e2e.doc_check_self
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/e2e/doc_check_test.py
          --sim $<TARGET_FILE:kueuesim_cli> --source ${PROJECT_SOURCE_DIR})
# Random clusters, checked (docs/invariants.md#random-clusters): 200 generated
# valid scenarios (and tests/e2e/random_clusters_regressions/*.yaml), each run
# with --check-invariants and again without it: exit 0 and identical outputs.
# Under the sanitizers (a Debug build, several times slower) 40 seeds.
if(KUEUESIM_SANITIZE)
  set(KUEUESIM_RANDOM_CLUSTER_SEEDS 40)
else()
  set(KUEUESIM_RANDOM_CLUSTER_SEEDS 200)
endif()
add_test(NAME e2e.random_clusters
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/e2e/random_clusters.py
          --sim $<TARGET_FILE:kueuesim_cli> --seeds ${KUEUESIM_RANDOM_CLUSTER_SEEDS})
set_tests_properties(e2e.random_clusters PROPERTIES TIMEOUT 600)
# The command allocates with mimalloc on large OS pages, unless the
# environment sets MIMALLOC_LARGE_OS_PAGES (cli/main.cc,
# docs/performance.md#the-allocator). mimalloc lists its options as it starts.
if(KUEUESIM_USE_MIMALLOC)
  add_test(NAME e2e.allocator_large_pages
    COMMAND ${CMAKE_COMMAND} -E env MIMALLOC_VERBOSE=1 $<TARGET_FILE:kueuesim_cli> policies)
  set_tests_properties(e2e.allocator_large_pages PROPERTIES
    PASS_REGULAR_EXPRESSION "mimalloc: option 'large_os_pages': 1")
  add_test(NAME e2e.allocator_setting_kept
    COMMAND ${CMAKE_COMMAND} -E env MIMALLOC_VERBOSE=1 MIMALLOC_LARGE_OS_PAGES=0 $<TARGET_FILE:kueuesim_cli> policies)
  set_tests_properties(e2e.allocator_setting_kept PROPERTIES
    PASS_REGULAR_EXPRESSION "mimalloc: option 'large_os_pages': 0")
endif()
