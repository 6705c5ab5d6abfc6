# Security (issue 14, docs/security.md): one test per finding of the security review, each doing
# the attack against the real component and asserting it failed and nothing was lost.
ferry_test(tst_safefile SOURCES security/tst_safefile.cpp)
# L7: `ferry runs attach` prints a run's lines as the window shows them (terminal control sequences
# dropped), through the one rule in core/run/terminaltext.
ferry_test(tst_attachescapes SOURCES security/tst_attachescapes.cpp)
add_dependencies(tst_attachescapes ferry)
# M5, L13: two `ferry runs attach` processes and repeated `ferry runs list` calls on one live run
# store every point once.
ferry_test(tst_twofollowers SOURCES security/tst_twofollowers.cpp)
add_dependencies(tst_twofollowers ferry)
set_tests_properties(tst_twofollowers PROPERTIES TIMEOUT 600)
# L5: a model that takes seconds to pack after the exit record is still listed as an artifact.
ferry_test(tst_artifactrace SOURCES security/tst_artifactrace.cpp)
add_dependencies(tst_artifactrace ferry)
set_tests_properties(tst_artifactrace PROPERTIES TIMEOUT 600)
# M3: a multi-line secret (PEM key) from the real keychain, printed line by line, whole and split,
# redacted on every target: local, container (Docker fixture), SSH (sshd) and Slurm.
if(FERRY_GUI)
  ferry_test(tst_multilinesecret SOURCES security/tst_multilinesecret.cpp)
  target_compile_definitions(tst_multilinesecret PRIVATE
    FERRY_KEYRING_SCRIPT="${PROJECT_SOURCE_DIR}/tests/services/keyring.sh"
    FERRY_SSHD_DIR="${CMAKE_CURRENT_BINARY_DIR}/services/sshd")
  add_dependencies(tst_multilinesecret ferry)
  set_tests_properties(tst_multilinesecret PROPERTIES FIXTURES_REQUIRED "docker;sshd;slurm" RUN_SERIAL ON
                                                      TIMEOUT 1200)
endif()
