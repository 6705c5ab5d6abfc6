# One open workspace's run store, loader, chart feeder and monitor thread (ui/session/).
# Included by tests/CMakeLists.txt.
if(FERRY_GUI)
  ferry_test(tst_workspacesession GUI SOURCES ui/session/tst_workspacesession.cpp LIBS ferry_ui)
endif()
