# The window's alerts (ui/alerts/): real local runs, a real notification server on a private D-Bus
# session (tests/services/notifications.sh; the test re-runs itself inside one), offscreen; a real
# local kernel (Debian's python3-ipykernel) for the idle GPU of kernels.
# Included by tests/CMakeLists.txt.
if(FERRY_GUI)
  ferry_test(tst_runalerts GUI SOURCES ui/alerts/tst_runalerts.cpp LIBS ferry_ui)
endif()
