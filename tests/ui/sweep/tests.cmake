# The sweep view and form (ui/sweep/). Included by tests/CMakeLists.txt.
if(FERRY_GUI)
  ferry_test(tst_sweepview GUI SOURCES ui/sweep/tst_sweepview.cpp LIBS ferry_ui)
endif()
