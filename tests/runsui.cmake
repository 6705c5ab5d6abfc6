# The runs table, run details and log view (ui/runs/, ui/log/), and RunStore::deleteRun.
# Included by tests/CMakeLists.txt.
ferry_test(tst_runstore_delete)
if(FERRY_GUI)
  ferry_test(tst_runsmodel GUI LIBS ferry_ui)
  ferry_test(tst_rundetailsview GUI LIBS ferry_ui)
  ferry_test(tst_logview GUI LIBS ferry_ui)
  ferry_test(tst_exportrundialog GUI LIBS ferry_ui)
endif()
