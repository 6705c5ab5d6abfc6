# The runs table, run details and the export dialog (ui/runs/). Included by tests/CMakeLists.txt.
if(FERRY_GUI)
  ferry_test(tst_runsmodel GUI SOURCES ui/runs/tst_runsmodel.cpp LIBS ferry_ui)
  ferry_test(tst_rundetailsview GUI SOURCES ui/runs/tst_rundetailsview.cpp LIBS ferry_ui)
  # The filter's query and the details pane's tags and note (issue 19), on a real store.
  ferry_test(tst_runsqueryview GUI SOURCES ui/runs/tst_runsqueryview.cpp LIBS ferry_ui)
  ferry_test(tst_exportrundialog GUI SOURCES ui/runs/tst_exportrundialog.cpp LIBS ferry_ui)
endif()
