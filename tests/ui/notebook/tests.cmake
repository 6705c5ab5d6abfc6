# The notebook in the window (ui/notebook/), offscreen, with a real ipykernel (Debian's) under its
# keeper. Included by tests/CMakeLists.txt.
if(FERRY_GUI)
  ferry_test(tst_notebookeditor GUI SOURCES ui/notebook/tst_notebookeditor.cpp LIBS ferry_ui)
  # A cell's outputs drawn: colours, redraws, a growing stream cut, hostile HTML, an image, JSON.
  ferry_test(tst_outputarea GUI SOURCES ui/notebook/tst_outputarea.cpp LIBS ferry_ui)
  # Hidden state made visible with a real ipykernel: stale cells and Run Stale Cells, the
  # variables pane, no trace of the queries, completion (a stale reply dropped) and inspect.
  ferry_test(tst_notebookstate GUI SOURCES ui/notebook/tst_notebookstate.cpp LIBS ferry_ui)
  # An image output decoded when drawn, the decoded ones kept within a budget.
  ferry_test(tst_imageview GUI SOURCES ui/notebook/tst_imageview.cpp LIBS ferry_ui)
endif()
# The real window under Xvfb: `ferry NB.ipynb`, Notebook ▸ Run All Cells by the menu's keys
# (xdotool), saved, against nbconvert (tests/gui/notebook-window.sh).
if(FERRY_GUI)
  add_test(NAME notebook_window COMMAND bash "${PROJECT_SOURCE_DIR}/tests/gui/notebook-window.sh" $<TARGET_FILE:ferry>)
  set_tests_properties(notebook_window PROPERTIES LABELS gui TIMEOUT 300)
endif()
# The benchmark (tests/bench/notebookview.sh, by hand; never built by CI): a 20 MB notebook opened
# and scrolled, a million printed lines streamed into a cell, against one QTextBrowser and a
# QPlainTextEdit.
if(FERRY_GUI)
  add_executable(notebookviewbench EXCLUDE_FROM_ALL bench/notebookviewbench.cpp)
  target_link_libraries(notebookviewbench PRIVATE ferry_ui ferry_test_support ferry_warnings)
  set_target_properties(notebookviewbench PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}/bench")
endif()
