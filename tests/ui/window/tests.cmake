# The window (ui/window/) and the workbench's parts it assembles, offscreen.
# Included by tests/CMakeLists.txt.
# Both load the trainer plugin where it is built.
set(window_trainer "")
if(FERRY_TRAINER)
  set(window_trainer ferry_trainer)
endif()
if(FERRY_GUI)
  ferry_test(tst_mainwindow GUI SOURCES ui/window/tst_mainwindow.cpp LIBS ferry_ui DEPENDS ${window_trainer})
endif()

# The workbench window's parts (issue 6), offscreen.
if(FERRY_GUI)
  ferry_test(tst_workbenchparts GUI SOURCES ui/window/tst_workbenchparts.cpp LIBS ferry_ui DEPENDS ${window_trainer})
endif()

# By-hand tools that drive the real window (they need the trainer plugin):
#   ferry_screenshots   tests/gui/screenshots.sh: the main screens as PNGs under Xvfb
#   ferry_guitrainbench tests/bench/guitrain.sh: embedded training from the window vs headless
function(ferry_window_tool name source folder)
  add_executable(${name} EXCLUDE_FROM_ALL ${source})
  target_link_libraries(${name} PRIVATE ferry_ui Qt6::Test ferry_warnings)
  target_link_libraries(${name} PRIVATE ferry_test_support) # support/testenv.h
  target_compile_definitions(${name} PRIVATE FERRY_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
                                             FERRY_TEST_DATA="${CMAKE_CURRENT_SOURCE_DIR}/data")
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}/${folder}")
endfunction()
if(FERRY_GUI AND FERRY_TRAINER)
  ferry_window_tool(ferry_screenshots gui/screenshots.cpp gui)
  ferry_window_tool(ferry_sweepscreenshots gui/sweepscreenshots.cpp gui) # tests/gui/sweep-screenshots.sh
  ferry_window_tool(ferry_comparescreenshots gui/comparescreenshots.cpp gui) # tests/gui/compare-screenshots.sh
  ferry_window_tool(ferry_chartscreenshots gui/chartscreenshots.cpp gui) # tests/gui/chart-screenshots.sh
  ferry_window_tool(ferry_analysisscreenshots gui/analysisscreenshots.cpp gui) # tests/gui/analysis-screenshots.sh
  ferry_window_tool(ferry_mediascreenshots gui/mediascreenshots.cpp gui) # tests/gui/media-screenshots.sh
  ferry_window_tool(ferry_runsscreenshots gui/runsscreenshots.cpp gui) # tests/gui/runs-screenshots.sh
  ferry_window_tool(ferry_costscreenshots gui/costscreenshots.cpp gui) # tests/gui/cost-screenshots.sh
  ferry_window_tool(ferry_guitrainbench bench/guitrainbench.cpp bench)
endif()

# One window per user: the real `ferry` binary hands its paths to the running instance.
if(FERRY_GUI)
  ferry_test(tst_singleinstance GUI SOURCES ui/window/tst_singleinstance.cpp LIBS ferry_ui)
endif()

# The documents in the middle of the window (issue 36): environments as tabs beside the runs.
if(FERRY_GUI)
  ferry_test(tst_documents GUI SOURCES ui/window/tst_documents.cpp LIBS ferry_ui)
endif()
