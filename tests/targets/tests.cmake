# core/targets: where a run runs. Included by tests/CMakeLists.txt.
# The argument builders, pure functions: no engine, no ssh.
ferry_test(tst_containerarguments SOURCES targets/tst_containerarguments.cpp)
ferry_test(tst_remotearguments SOURCES targets/tst_remotearguments.cpp)
# Where every cancel starts: the run folder, its end, the target's record.
ferry_test(tst_cancelstart SOURCES targets/tst_cancelstart.cpp)

# The local target: real processes (`ferry __supervise`, Python scripts from data/runs/), no
# mocks. The scripts run under /usr/bin/python3.
foreach(name tst_localtarget tst_localtarget_cancel)
  ferry_test(${name} SOURCES targets/${name}.cpp)
endforeach()

# The container target against a real Docker engine: the private dockerd and the base image
# ferry-base:bookworm come from the `docker` fixture (tests/env/devcontainer.cmake); the test
# asks tests/services/docker.sh for DOCKER_HOST when it is not set.
if(FERRY_GUI)
  ferry_test(tst_containertarget SOURCES targets/tst_containertarget.cpp)
  # Builds on the vfs storage driver are slow: one at a time (container_builds), with time to spare.
  set_tests_properties(tst_containertarget PROPERTIES FIXTURES_REQUIRED docker RESOURCE_LOCK container_builds TIMEOUT 1200)

  # Registry credentials: a password-protected registry of our own (tests/services/registry.sh).
  add_test(NAME registry_service_stop COMMAND bash "${PROJECT_SOURCE_DIR}/tests/services/registry.sh" stop)
  set_tests_properties(registry_service_stop PROPERTIES FIXTURES_CLEANUP registry TIMEOUT 60)
  add_test(NAME registry_service_start COMMAND bash "${PROJECT_SOURCE_DIR}/tests/services/registry.sh" start)
  set_tests_properties(registry_service_start PROPERTIES FIXTURES_SETUP registry TIMEOUT 120)
  ferry_test(tst_registrylogin SOURCES targets/tst_registrylogin.cpp)
  set_tests_properties(tst_registrylogin PROPERTIES FIXTURES_REQUIRED "docker;registry" RESOURCE_LOCK container_builds TIMEOUT 900)
endif()

# SSH hosts and Slurm clusters. The parsers everywhere; the targets against a real OpenSSH
# server on 127.0.0.1 and a real single-node Slurm with two fake GPUs, started as CTest
# fixtures by tests/services/sshd.sh and slurm.sh with their state under this build folder
# (only in the full build: the GUI-less build runs the same core). The fixtures and the folders
# below (sshd_dir, slurm_dir) serve tests/ui/launch and tests/security too.
ferry_test(tst_gpuinfo SOURCES targets/tst_gpuinfo.cpp)
ferry_test(tst_slurmjob SOURCES targets/tst_slurmjob.cpp)

if(FERRY_GUI)
  set(services "${PROJECT_SOURCE_DIR}/tests/services")
  set(sshd_dir "${CMAKE_CURRENT_BINARY_DIR}/services/sshd")
  set(slurm_dir "${CMAKE_CURRENT_BINARY_DIR}/services/slurm")
  find_program(BASH bash REQUIRED)

  # Sessions on the test sshd get SLURM_CONF and DOCKER_HOST, so slurm:ferrytest reaches the
  # test cluster and an ssh:ferrytest run in an image the private engine of the `docker` fixture.
  add_test(NAME sshd_service_start
           COMMAND ${CMAKE_COMMAND} -E env "SLURM_CONF=${slurm_dir}/slurm.conf"
                   "DOCKER_HOST=unix:///var/tmp/ferry-docker/docker.sock"
                   ${BASH} "${services}/sshd.sh" start "${sshd_dir}")
  # The sessions' SLURM_CONF must name a cluster that is up: a Slurm client whose slurm.conf is
  # missing retries for a minute, and every host probe asks it its version.
  set_tests_properties(sshd_service_start PROPERTIES FIXTURES_SETUP sshd FIXTURES_REQUIRED slurm TIMEOUT 60)
  add_test(NAME sshd_service_stop COMMAND ${BASH} "${services}/sshd.sh" stop "${sshd_dir}")
  set_tests_properties(sshd_service_stop PROPERTIES FIXTURES_CLEANUP sshd TIMEOUT 60)
  add_test(NAME slurm_service_start COMMAND ${BASH} "${services}/slurm.sh" start "${slurm_dir}")
  set_tests_properties(slurm_service_start PROPERTIES FIXTURES_SETUP slurm TIMEOUT 120)
  add_test(NAME slurm_service_stop COMMAND ${BASH} "${services}/slurm.sh" stop "${slurm_dir}")
  set_tests_properties(slurm_service_stop PROPERTIES FIXTURES_CLEANUP slurm TIMEOUT 120)

  foreach(name tst_shellquote tst_sshtarget tst_slurmtarget tst_sshimage)
    ferry_test(${name} SOURCES targets/${name}.cpp)
  endforeach()
  set_tests_properties(tst_shellquote PROPERTIES FIXTURES_REQUIRED sshd)
  # It stops and restarts the sshd (a cut connection): nothing else may use it meanwhile.
  set_tests_properties(tst_sshtarget PROPERTIES FIXTURES_REQUIRED sshd TIMEOUT 600)
  ferry_service_owner(tst_sshtarget sshd)
  # It stops and restarts the sshd too (a cut connection to the cluster).
  set_tests_properties(tst_slurmtarget PROPERTIES FIXTURES_REQUIRED "sshd;slurm" TIMEOUT 600)
  ferry_service_owner(tst_slurmtarget sshd slurm)
  # The SageMaker-style script in the environment's image, built on the host by its engine.
  set_tests_properties(tst_sshimage PROPERTIES FIXTURES_REQUIRED "sshd;docker" RESOURCE_LOCK container_builds
                                               TIMEOUT 1200)
  set_property(TEST tst_slurmtarget APPEND PROPERTY ENVIRONMENT "SLURM_CONF=${slurm_dir}/slurm.conf")
  # The host as an SSH or Slurm run saw it, reported by the runner on the node.
  ferry_test(tst_remotehostfacts SOURCES targets/tst_remotehostfacts.cpp)
  set_tests_properties(tst_remotehostfacts PROPERTIES FIXTURES_REQUIRED "sshd;slurm" TIMEOUT 300
                       ENVIRONMENT "SLURM_CONF=${slurm_dir}/slurm.conf")
  # A run's budget as its Slurm job's --time, read back with scontrol (docs/cost.md).
  ferry_test(tst_slurmbudget SOURCES targets/tst_slurmbudget.cpp)
  set_tests_properties(tst_slurmbudget PROPERTIES FIXTURES_REQUIRED slurm TIMEOUT 300
                       ENVIRONMENT "SLURM_CONF=${slurm_dir}/slurm.conf")
  # An SSH run's cap held by its runner on the host: SIGTERM, the grace, SIGKILL (docs/cost.md).
  ferry_test(tst_sshbudget SOURCES targets/tst_sshbudget.cpp)
  set_tests_properties(tst_sshbudget PROPERTIES FIXTURES_REQUIRED sshd TIMEOUT 300)
  # A key whose passphrase is a keychain secret (a real gnome-keyring), logging in to the sshd.
  ferry_test(tst_sshpassphrase SOURCES targets/tst_sshpassphrase.cpp)
  set_tests_properties(tst_sshpassphrase PROPERTIES FIXTURES_REQUIRED sshd)

  # One run across two nodes (issue 20): a second cluster of two slurmd (n1, n2) on this machine,
  # beside the single-node one, with DDP on Debian's python3-torch.
  set(slurm2_dir "${CMAKE_CURRENT_BINARY_DIR}/services/slurm2")
  add_test(NAME slurm2_service_start COMMAND ${BASH} "${services}/slurm.sh" start "${slurm2_dir}" 2)
  set_tests_properties(slurm2_service_start PROPERTIES FIXTURES_SETUP slurm2 TIMEOUT 120)
  add_test(NAME slurm2_service_stop COMMAND ${BASH} "${services}/slurm.sh" stop "${slurm2_dir}" 2)
  set_tests_properties(slurm2_service_stop PROPERTIES FIXTURES_CLEANUP slurm2 TIMEOUT 120)
  ferry_test(tst_slurmmultinode SOURCES targets/tst_slurmmultinode.cpp)
  set_tests_properties(tst_slurmmultinode PROPERTIES FIXTURES_REQUIRED slurm2 TIMEOUT 900
                       ENVIRONMENT "SLURM_CONF=${slurm2_dir}/slurm.conf")
endif()
