# The embedded trainer (issue 5, core/trainer/): only where the libtorch plugin is built.
# Its command line (`ferry train`) is tested in tests/cli. Included by tests/CMakeLists.txt.
if(FERRY_TRAINER)
  ferry_test(tst_trainer SOURCES trainer/tst_trainer.cpp DEPENDS ferry_trainer)
endif()

# Benchmark (tests/bench/trainer.sh, by hand): links libtorch itself for the bare loop.
if(FERRY_TRAINER)
  find_package(Torch REQUIRED)
  add_executable(trainerbench EXCLUDE_FROM_ALL bench/trainerbench.cpp)
  target_link_libraries(trainerbench PRIVATE ferry_core ferry_warnings ${TORCH_LIBRARIES})
  set_target_properties(trainerbench PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}/bench")
  add_dependencies(trainerbench ferry_trainer)
endif()
