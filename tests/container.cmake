# The container target against a real Docker engine: the private dockerd and the base image
# ferry-base:bookworm come from the `docker` fixture (tests/env/devcontainer.cmake); the test
# asks tests/services/docker.sh for DOCKER_HOST when it is not set.
if(FERRY_GUI)
  ferry_test(tst_containertarget)
  # Builds on the vfs storage driver are slow: one at a time (container_builds), with time to spare.
  set_tests_properties(tst_containertarget PROPERTIES FIXTURES_REQUIRED docker RESOURCE_LOCK container_builds TIMEOUT 1200)

  # Registry credentials: a password-protected registry of our own (tests/services/registry.sh).
  add_test(NAME registry_service_stop COMMAND bash "${PROJECT_SOURCE_DIR}/tests/services/registry.sh" stop)
  set_tests_properties(registry_service_stop PROPERTIES FIXTURES_CLEANUP registry TIMEOUT 60)
  add_test(NAME registry_service_start COMMAND bash "${PROJECT_SOURCE_DIR}/tests/services/registry.sh" start)
  set_tests_properties(registry_service_start PROPERTIES FIXTURES_SETUP registry TIMEOUT 120)
  ferry_test(tst_registrylogin)
  target_compile_definitions(tst_registrylogin PRIVATE
    FERRY_KEYRING_SCRIPT="${PROJECT_SOURCE_DIR}/tests/services/keyring.sh")
  set_tests_properties(tst_registrylogin PROPERTIES FIXTURES_REQUIRED "docker;registry" RESOURCE_LOCK container_builds TIMEOUT 900)
  # The canary sweep (issue 9): a canary secret through local, container, SSH (host Python and
  # image) and Slurm runs, the registry login and `ferry secret`, then searched for everywhere
  # Ferry writes or shows: 0 hits.
  ferry_test(tst_secretsweep SOURCES secrets/tst_secretsweep.cpp)
  target_compile_definitions(tst_secretsweep PRIVATE
    FERRY_KEYRING_SCRIPT="${PROJECT_SOURCE_DIR}/tests/services/keyring.sh"
    FERRY_SSHD_DIR="${CMAKE_CURRENT_BINARY_DIR}/services/sshd")
  add_dependencies(tst_secretsweep ferry)
  set_tests_properties(tst_secretsweep PROPERTIES FIXTURES_REQUIRED "docker;registry;sshd;slurm" RUN_SERIAL ON
                                                  TIMEOUT 1200)
endif()
