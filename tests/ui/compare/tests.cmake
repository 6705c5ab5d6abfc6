# The compare view and "Re-run exactly" (ui/compare/, RunActions). Included by tests/CMakeLists.txt.
if(FERRY_GUI)
  ferry_test(tst_compareview GUI SOURCES ui/compare/tst_compareview.cpp LIBS ferry_ui)
endif()
