# Security (issue 14, docs/security.md): one test per finding of the security review, each doing
# the attack against the real component and asserting it failed and nothing was lost.
ferry_test(tst_safefile SOURCES security/tst_safefile.cpp)

# The remote host's side (review M1, M2, M10, L2, L6, L9, L10): against the real test sshd and
# Slurm of tests/remote/remote.cmake (its fixtures and folders), in the full build only.
if(FERRY_GUI)
  foreach(name tst_remotecancel tst_remotesecrets tst_remotedelete tst_remotehostoutput tst_rsyncquote
               tst_remotenames)
    ferry_test(${name} SOURCES security/${name}.cpp)
    if(NOT name MATCHES "^tst_remote(cancel|secrets|hostoutput)$") # these drive the targets in-process
      add_dependencies(${name} ferry)
    endif()
    target_include_directories(${name} PRIVATE "${CMAKE_CURRENT_SOURCE_DIR}" "${CMAKE_CURRENT_SOURCE_DIR}/remote"
                               "${CMAKE_CURRENT_SOURCE_DIR}/security" "${CMAKE_CURRENT_SOURCE_DIR}/secrets")
    target_compile_definitions(${name} PRIVATE FERRY_SSHD_DIR="${sshd_dir}" FERRY_SLURM_DIR="${slurm_dir}"
                               FERRY_KEYRING_SCRIPT="${PROJECT_SOURCE_DIR}/tests/services/keyring.sh")
    # They share the sshd and the Slurm node with the remote tests, which stop and restart them.
    set_tests_properties(${name} PROPERTIES FIXTURES_REQUIRED "sshd;slurm" RUN_SERIAL ON TIMEOUT 600
                         ENVIRONMENT_MODIFICATION "SLURM_CONF=set:${slurm_dir}/slurm.conf")
  endforeach()
endif()
if(FERRY_GUI)
  # The window's delete of an SSH run asks about its folder on the host (M2).
  ferry_test(tst_remotedeletewindow GUI SOURCES security/tst_remotedeletewindow.cpp LIBS ferry_ui)
  add_dependencies(tst_remotedeletewindow ferry)
  target_include_directories(tst_remotedeletewindow PRIVATE "${CMAKE_CURRENT_SOURCE_DIR}"
                             "${CMAKE_CURRENT_SOURCE_DIR}/remote" "${PROJECT_SOURCE_DIR}")
  target_compile_definitions(tst_remotedeletewindow PRIVATE FERRY_SSHD_DIR="${sshd_dir}")
  set_tests_properties(tst_remotedeletewindow PROPERTIES FIXTURES_REQUIRED sshd RUN_SERIAL ON TIMEOUT 600)
endif()
