# Regression replay without libFuzzer: for every target in targets.cmake, an executable
# NAME_replay that feeds the target's LLVMFuzzerTestOneInput every file under
# tests/data/fuzz-regressions/NAME/ and the seed corpus tests/data/env/ (whole files, lines and
# tab-separated fields, as tests/fuzz/run.sh seeds the fuzzers). A crash or a broken invariant
# fails the test, so whatever fuzzing once found stays fixed.
include_guard(GLOBAL)
function(ferry_fuzz_target name source)
  set(target ${name}_replay)
  add_executable(${target}
    "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/${source}"
    "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/replaymain.cpp")
  target_link_libraries(${target} PRIVATE ferry_core ferry_warnings)
  set_target_properties(${target} PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}")
  add_test(NAME ${target}
           COMMAND ${target} "${PROJECT_SOURCE_DIR}/tests/data/fuzz-regressions/${name}"
                             "${PROJECT_SOURCE_DIR}/tests/data/env"
                             "${PROJECT_SOURCE_DIR}/tests/data/notebooks")
  set_tests_properties(${target} PROPERTIES TIMEOUT 300)
endfunction()
include("${CMAKE_CURRENT_LIST_DIR}/targets.cmake")
