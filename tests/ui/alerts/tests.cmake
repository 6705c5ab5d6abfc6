# The window's alerts (ui/alerts/): real local runs, a real notification server on a private D-Bus
# session (tests/services/notifications.sh; the test re-runs itself inside one), offscreen.
# Included by tests/CMakeLists.txt.
if(FERRY_GUI)
  ferry_test(tst_runalerts GUI SOURCES ui/alerts/tst_runalerts.cpp LIBS ferry_ui)
endif()
