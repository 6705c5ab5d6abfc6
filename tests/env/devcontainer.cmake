# devcontainer tests: the generated .devcontainer and Dockerfile against the real tools.
# A private Docker engine (tests/services/docker.sh) and the Dev Containers CLI
# (tests/services/devcontainer-cli.sh) are CTest fixtures; the base image ferry-base:bookworm
# is built once by debootstrap and kept in the engine's data folder across runs.
# Only in the full build: the GUI-less build runs the same core without these slow tests.
if(FERRY_GUI)
  set(services "${PROJECT_SOURCE_DIR}/tests/services")
  find_program(BASH bash REQUIRED)

  # The engine is shared by concurrent test runs; each build folder holds it while it runs.
  add_test(NAME docker_service_start
           COMMAND ${BASH} -c "\"$0\" start \"$1\" && \"$0\" base-image" "${services}/docker.sh"
                   "${CMAKE_BINARY_DIR}")
  set_tests_properties(docker_service_start PROPERTIES FIXTURES_SETUP docker TIMEOUT 600)
  add_test(NAME docker_service_stop COMMAND ${BASH} "${services}/docker.sh" stop "${CMAKE_BINARY_DIR}")
  set_tests_properties(docker_service_stop PROPERTIES FIXTURES_CLEANUP docker TIMEOUT 60)

  add_test(NAME devcontainer_cli_install COMMAND ${BASH} "${services}/devcontainer-cli.sh")
  set_tests_properties(devcontainer_cli_install PROPERTIES FIXTURES_SETUP devcontainer_cli TIMEOUT 600)

  ferry_test(tst_devcontainer SOURCES env/tst_devcontainer.cpp)
  # Builds on the vfs storage driver are slow and disk-hungry: one at a time (container_builds),
  # with time to spare.
  set_tests_properties(tst_devcontainer PROPERTIES
    FIXTURES_REQUIRED "docker;devcontainer_cli" RESOURCE_LOCK container_builds TIMEOUT 1800)
endif()
