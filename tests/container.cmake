# The container target against a real Docker engine: the private dockerd and the base image
# ferry-base:bookworm come from the `docker` fixture (tests/env/devcontainer.cmake); the test
# asks tests/services/docker.sh for DOCKER_HOST when it is not set.
if(FERRY_GUI)
  ferry_test(tst_containertarget)
  # Builds on the vfs storage driver are slow: one at a time, with time to spare.
  set_tests_properties(tst_containertarget PROPERTIES FIXTURES_REQUIRED docker RUN_SERIAL ON TIMEOUT 1200)
endif()
