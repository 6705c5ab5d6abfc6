# Security (issue 14, docs/security.md): one test per finding of the security review, each doing
# the attack against the real component and asserting it failed and nothing was lost.
ferry_test(tst_safefile SOURCES security/tst_safefile.cpp)
# Item 11: the fixtures take the Debian mirror from apt's configuration only.
add_test(NAME no_mirror_host COMMAND bash "${CMAKE_CURRENT_SOURCE_DIR}/security/no-mirror-host.sh")
# L15: an environment's run arguments that undo the container's isolation (found, warned about).
ferry_test(tst_runarguments SOURCES security/tst_runarguments.cpp)
if(FERRY_GUI)
  ferry_test(tst_launchrunarguments GUI SOURCES security/tst_launchrunarguments.cpp LIBS ferry_ui)
endif()
