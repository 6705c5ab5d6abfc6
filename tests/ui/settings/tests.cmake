# ui/settings: the settings' pages. Included by tests/CMakeLists.txt.
if(FERRY_GUI)
  # The Rates page: rates typed in and taken from the catalog, and what cannot be a rate said.
  ferry_test(tst_ratespage GUI SOURCES ui/settings/tst_ratespage.cpp LIBS ferry_ui)
endif()
