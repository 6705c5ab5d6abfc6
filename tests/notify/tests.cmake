# core/notify: desktop notifications through a real notification server on a private D-Bus session
# (tests/services/notifications.sh; the test re-runs itself inside one), no mocks.
# Included by tests/CMakeLists.txt.
ferry_test(tst_desktopnotifier SOURCES notify/tst_desktopnotifier.cpp)
