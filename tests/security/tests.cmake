# Security (issue 14, docs/security.md): one test per finding of the security review, each doing
# the attack against the real component and asserting it failed and nothing was lost.
ferry_test(tst_safefile SOURCES security/tst_safefile.cpp)

# M4: a start not confirmed in time, and a killed supervisor, leave a run that is followed and
# cancelled with all its processes (real `ferry`, real Python scripts, /proc).
ferry_test(tst_runlifecycle SOURCES security/tst_runlifecycle.cpp)
target_include_directories(tst_runlifecycle PRIVATE "${CMAKE_CURRENT_SOURCE_DIR}")
add_dependencies(tst_runlifecycle ferry)

if(FERRY_GUI)
  # M9: squatted SSH control folders in the shared /tmp (another user's, 0777, listening at the
  # socket name) are never used; real ssh to the test sshd goes through a private folder.
  ferry_test(tst_sshcontrolsquat SOURCES security/tst_sshcontrolsquat.cpp)
  target_include_directories(tst_sshcontrolsquat PRIVATE "${CMAKE_CURRENT_SOURCE_DIR}"
                             "${CMAKE_CURRENT_SOURCE_DIR}/remote" "${CMAKE_CURRENT_SOURCE_DIR}/security")
  target_compile_definitions(tst_sshcontrolsquat PRIVATE FERRY_SSHD_DIR="${sshd_dir}")
  # It plants /tmp/ferry-ssh and /tmp/runtime-<user> for its run: nothing else may see them.
  set_tests_properties(tst_sshcontrolsquat PROPERTIES FIXTURES_REQUIRED sshd RUN_SERIAL ON)

  # L4: a squatter at the old single-instance socket name, or in a squatted XDG_RUNTIME_DIR,
  # never receives the paths; the real second `ferry` hands them to the real first one.
  ferry_test(tst_singleinstancesquat GUI SOURCES security/tst_singleinstancesquat.cpp LIBS ferry_ui)
  target_include_directories(tst_singleinstancesquat PRIVATE "${CMAKE_CURRENT_SOURCE_DIR}/security")
  add_dependencies(tst_singleinstancesquat ferry)
endif()
