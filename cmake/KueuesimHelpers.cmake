# kueuesim_module(NAME <m> SOURCES ... [DEPS ...] [PRIVATE_DEPS ...])
#   A static library kueuesim_<m>, alias kueuesim::<m>, exported as <m>.
function(kueuesim_module)
  cmake_parse_arguments(ARG "" "NAME" "SOURCES;DEPS;PRIVATE_DEPS" ${ARGN})
  set(target kueuesim_${ARG_NAME})
  add_library(${target} STATIC ${ARG_SOURCES})
  add_library(kueuesim::${ARG_NAME} ALIAS ${target})
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${ARG_NAME})
  target_include_directories(${target}
    PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include> $<INSTALL_INTERFACE:include>
    PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_compile_features(${target} PUBLIC cxx_std_20)
  target_link_libraries(${target} PUBLIC ${ARG_DEPS} PRIVATE ${ARG_PRIVATE_DEPS})
  kueuesim_apply_warnings(${target})
  if(KUEUESIM_INSTALL)
    install(TARGETS ${target} EXPORT kueuesimTargets
            ARCHIVE DESTINATION lib LIBRARY DESTINATION lib)
  endif()
endfunction()

# kueuesim_test(NAME <t> SOURCES ... [DEPS ...])
function(kueuesim_test)
  cmake_parse_arguments(ARG "" "NAME" "SOURCES;DEPS" ${ARGN})
  add_executable(${ARG_NAME} ${ARG_SOURCES})
  target_include_directories(${ARG_NAME} PRIVATE ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/tests)
  target_link_libraries(${ARG_NAME} PRIVATE ${ARG_DEPS} kueuesim_testing GTest::gmock GTest::gtest_main)
  kueuesim_apply_warnings(${ARG_NAME})
  gtest_discover_tests(${ARG_NAME}
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
    PROPERTIES ENVIRONMENT "KUEUESIM_SOURCE_DIR=${PROJECT_SOURCE_DIR}"
    DISCOVERY_TIMEOUT 60)
endfunction()

# kueuesim_benchmark(NAME <b> SOURCES ... [DEPS ...])
function(kueuesim_benchmark)
  cmake_parse_arguments(ARG "" "NAME" "SOURCES;DEPS" ${ARGN})
  add_executable(${ARG_NAME} ${ARG_SOURCES})
  target_include_directories(${ARG_NAME} PRIVATE ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/bench)
  target_link_libraries(${ARG_NAME} PRIVATE ${ARG_DEPS} benchmark::benchmark)
  kueuesim_apply_warnings(${ARG_NAME})
endfunction()
