# ui/launch: the launch dialog. Included by tests/CMakeLists.txt after tests/targets/tests.cmake,
# whose sshd fixture and folder (sshd_dir) it uses.
if(FERRY_GUI)
  # The launch dialog's remote fields and a host's page (trusting a key) against the sshd.
  ferry_test(tst_hostdialog GUI SOURCES ui/launch/tst_hostdialog.cpp LIBS ferry_ui)
  set_tests_properties(tst_hostdialog PROPERTIES FIXTURES_REQUIRED sshd)
  # What a new user meets there (review 2026-12-06, finding 12) and the estimate beside Start.
  ferry_test(tst_launchdialog GUI SOURCES ui/launch/tst_launchdialog.cpp LIBS ferry_ui)
endif()
