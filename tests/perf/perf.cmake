# The speed guard: instruction count of a benchmark scenario under valgrind,
# compared with bench/instruction_baseline.json (measured on a RelWithDebInfo
# build, the one ./dev.sh test makes). Not in sanitizer builds.
# Included from tests/CMakeLists.txt.
if(CMAKE_BUILD_TYPE STREQUAL "RelWithDebInfo" AND NOT KUEUESIM_SANITIZE)
  add_test(NAME perf.instruction_gate
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/perf/instruction_gate.py
            --sim $<TARGET_FILE:kueuesim_cli> --build-type ${CMAKE_BUILD_TYPE})
  set_tests_properties(perf.instruction_gate PROPERTIES TIMEOUT 900)
endif()
