# The Analysis tab (ui/analysis/) over a real store, and its link to the runs table
# (ui/window/analysiscontroller.h), offscreen. Included by tests/CMakeLists.txt.
if(FERRY_GUI)
  ferry_test(tst_runsanalysis GUI SOURCES ui/analysis/tst_runsanalysis.cpp LIBS ferry_ui)
endif()
