# Security (issue 14, docs/security.md): one test per finding of the security review, each doing
# the attack against the real component and asserting it failed and nothing was lost.
ferry_test(tst_safefile SOURCES security/tst_safefile.cpp)

# H1, the run folder shared by every target: links planted by a run (the real local supervisor).
ferry_test(tst_runfolderlinks SOURCES security/tst_runfolderlinks.cpp)
target_include_directories(tst_runfolderlinks PRIVATE "${CMAKE_CURRENT_SOURCE_DIR}")
add_dependencies(tst_runfolderlinks ferry)

# L11: crash leftovers swept at the next start of the real `ferry`.
ferry_test(tst_leftoversweep SOURCES security/tst_leftoversweep.cpp)
add_dependencies(tst_leftoversweep ferry)

# H1 against the real Docker engine (the `docker` fixture, tests/container.cmake): a container run
# attacking the host, and the engine recorded per run. One at a time, with time for image builds.
if(FERRY_GUI)
  ferry_test(tst_containerescape SOURCES security/tst_containerescape.cpp)
  target_include_directories(tst_containerescape PRIVATE "${CMAKE_CURRENT_SOURCE_DIR}"
                                                         "${CMAKE_CURRENT_SOURCE_DIR}/secrets")
  target_compile_definitions(tst_containerescape PRIVATE
    FERRY_KEYRING_SCRIPT="${PROJECT_SOURCE_DIR}/tests/services/keyring.sh")
  ferry_test(tst_containerengine SOURCES security/tst_containerengine.cpp)
  target_include_directories(tst_containerengine PRIVATE "${CMAKE_CURRENT_SOURCE_DIR}")
  set_tests_properties(tst_containerescape tst_containerengine PROPERTIES FIXTURES_REQUIRED docker RUN_SERIAL ON
                                                                          TIMEOUT 1200)
endif()
