# The fuzz targets (tests/fuzz/targets.cc) as a library, and their replay
# over the seed corpora and the regression inputs in every test run.
# Included from tests/CMakeLists.txt; the libFuzzer executables are built by
# tests/fuzz/fuzzers.cmake (KUEUESIM_BUILD_FUZZERS, ./dev.sh fuzz).
if(NOT TARGET kueuesim_fuzz_targets)
  add_library(kueuesim_fuzz_targets STATIC ${PROJECT_SOURCE_DIR}/tests/fuzz/targets.cc)
  target_link_libraries(kueuesim_fuzz_targets PUBLIC kueuesim::scenario kueuesim::trace kueuesim::doc
                        kueuesim::dra kueuesim::base)
  target_include_directories(kueuesim_fuzz_targets PUBLIC ${PROJECT_SOURCE_DIR}/tests/fuzz)
  kueuesim_apply_warnings(kueuesim_fuzz_targets)
endif()

kueuesim_test(NAME fuzz_replay_test
  SOURCES fuzz/replay_test.cc
  DEPS kueuesim_fuzz_targets)
target_compile_definitions(fuzz_replay_test PRIVATE KUEUESIM_FUZZ_DIR="${PROJECT_SOURCE_DIR}/tests/fuzz")
