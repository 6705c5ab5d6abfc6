# The workbench window's parts (issue 6), offscreen.
if(FERRY_GUI)
  ferry_test(tst_workbenchparts GUI LIBS ferry_ui)
  add_dependencies(tst_workbenchparts ferry)
  if(FERRY_TRAINER)
    add_dependencies(tst_workbenchparts ferry_trainer)
  endif()
endif()

# Screenshots of the main screens (tests/gui/screenshots.sh, by hand).
if(FERRY_GUI AND FERRY_TRAINER)
  add_executable(ferry_screenshots EXCLUDE_FROM_ALL gui/screenshots.cpp)
  target_link_libraries(ferry_screenshots PRIVATE ferry_ui Qt6::Test ferry_warnings)
  target_compile_definitions(ferry_screenshots PRIVATE FERRY_BINARY="$<TARGET_FILE:ferry>"
                                                       FERRY_BUILD_DIR="${CMAKE_BINARY_DIR}")
  set_target_properties(ferry_screenshots PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}/gui")
endif()

# Benchmark: embedded training from the window vs headless (tests/bench/guitrain.sh, by hand).
if(FERRY_GUI AND FERRY_TRAINER)
  add_executable(ferry_guitrainbench EXCLUDE_FROM_ALL bench/guitrainbench.cpp)
  target_link_libraries(ferry_guitrainbench PRIVATE ferry_ui Qt6::Test ferry_warnings)
  target_compile_definitions(ferry_guitrainbench PRIVATE FERRY_BINARY="$<TARGET_FILE:ferry>"
                                                         FERRY_BUILD_DIR="${CMAKE_BINARY_DIR}")
  set_target_properties(ferry_guitrainbench PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}/bench")
endif()
