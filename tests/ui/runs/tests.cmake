# The runs table, run details and the export dialog (ui/runs/). Included by tests/CMakeLists.txt.
if(FERRY_GUI)
  ferry_test(tst_runsmodel GUI SOURCES ui/runs/tst_runsmodel.cpp LIBS ferry_ui)
  ferry_test(tst_rundetailsview GUI SOURCES ui/runs/tst_rundetailsview.cpp LIBS ferry_ui)
  # The filter's query and the details pane's tags and note (issue 19), on a real store.
  ferry_test(tst_runsqueryview GUI SOURCES ui/runs/tst_runsqueryview.cpp LIBS ferry_ui)
  ferry_test(tst_exportrundialog GUI SOURCES ui/runs/tst_exportrundialog.cpp LIBS ferry_ui)
endif()

# The window's "Re-run exactly" of a container run whose image is gone (issue 19), on the real
# Docker engine of the `docker` fixture.
if(FERRY_GUI)
  find_package(LibArchive 3.3 REQUIRED)
  ferry_test(tst_rerunactions GUI SOURCES ui/runs/tst_rerunactions.cpp LIBS ferry_ui LibArchive::LibArchive)
  set_tests_properties(tst_rerunactions PROPERTIES FIXTURES_REQUIRED docker RESOURCE_LOCK container_builds TIMEOUT 900)
endif()
