# libFuzzer executables, one per target (KUEUESIM_BUILD_FUZZERS=ON, clang
# only): fuzz_<target> in <build>/tests/fuzz. The whole build is compiled
# with -fsanitize=fuzzer-no-link,address,undefined (top-level
# CMakeLists.txt); ./dev.sh fuzz builds and runs them (docs/fuzzing.md).
if(NOT TARGET kueuesim_fuzz_targets)
  add_library(kueuesim_fuzz_targets STATIC ${PROJECT_SOURCE_DIR}/tests/fuzz/targets.cc)
  target_link_libraries(kueuesim_fuzz_targets PUBLIC kueuesim::scenario kueuesim::trace kueuesim::doc
                        kueuesim::dra kueuesim::base)
  target_include_directories(kueuesim_fuzz_targets PUBLIC ${PROJECT_SOURCE_DIR}/tests/fuzz)
  kueuesim_apply_warnings(kueuesim_fuzz_targets)
endif()

set(KUEUESIM_FUZZ_TARGETS doc_reader scenario_loader trace_native_csv trace_native_jsonl
    trace_kueue_workloads trace_perf_generator trace_alibaba trace_philly trace_helios trace_pollux
    trace_alibaba_dlrm trace_replica_timeline quantity duration cel)
foreach(target IN LISTS KUEUESIM_FUZZ_TARGETS)
  add_executable(fuzz_${target} ${PROJECT_SOURCE_DIR}/tests/fuzz/fuzz_main.cc)
  target_compile_definitions(fuzz_${target} PRIVATE KUEUESIM_FUZZ_TARGET="${target}")
  target_link_libraries(fuzz_${target} PRIVATE kueuesim_fuzz_targets)
  target_link_options(fuzz_${target} PRIVATE -fsanitize=fuzzer)
  set_target_properties(fuzz_${target} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/fuzz)
endforeach()
add_custom_target(fuzzers)
foreach(target IN LISTS KUEUESIM_FUZZ_TARGETS)
  add_dependencies(fuzzers fuzz_${target})
endforeach()
