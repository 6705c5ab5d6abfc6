# The log view (ui/log/). Included by tests/CMakeLists.txt.
if(FERRY_GUI)
  ferry_test(tst_logview GUI SOURCES ui/log/tst_logview.cpp LIBS ferry_ui)
endif()
