# The package (packaging/): the .deb installed in a clean system, its desktop file and metainfo.
# Included by tests/CMakeLists.txt; only in the full build.
if(FERRY_GUI)
  add_executable(tst_package_mimeprobe fixtures/mimeprobe.cpp)
  target_link_libraries(tst_package_mimeprobe PRIVATE Qt6::Core ferry_warnings)
  ferry_test(tst_package SOURCES packaging/tst_package.cpp DEPENDS tst_package_mimeprobe
             DEFINES CPACK_COMMAND="${CMAKE_CPACK_COMMAND}" FERRY_MIME_PROBE="$<TARGET_FILE:tst_package_mimeprobe>")
  # Installs the package in a clean Debian 12 container (the docker fixture, tests/env/devcontainer.cmake);
  # one container build at a time (RESOURCE_LOCK container_builds), tests without the engine beside it.
  set_tests_properties(tst_package PROPERTIES RESOURCE_LOCK container_builds TIMEOUT 900 FIXTURES_REQUIRED docker)

  ferry_test_program(DESKTOP_FILE_VALIDATE desktop-file-validate)
  ferry_test_program(APPSTREAMCLI appstreamcli)
  add_test(NAME desktop_file_valid
           COMMAND ${DESKTOP_FILE_VALIDATE} "${PROJECT_SOURCE_DIR}/packaging/${FERRY_APP_ID}.desktop")
  add_test(NAME metainfo_valid
           COMMAND ${APPSTREAMCLI} validate --no-net "${PROJECT_SOURCE_DIR}/packaging/${FERRY_APP_ID}.metainfo.xml")

  # The README's first command on a clean Debian 12 (a container of the debootstrap base): its
  # install-deps.sh and configure steps as the README writes them, then one small target.
  add_test(NAME readme_first_command_fresh_machine
           COMMAND ${BASH} "${CMAKE_CURRENT_SOURCE_DIR}/packaging/fresh-machine.sh")
  set_tests_properties(readme_first_command_fresh_machine PROPERTIES
    FIXTURES_REQUIRED docker TIMEOUT 1200 LABELS "containers;slow")
endif()

