# The environment editor (issue 7): its core (version diff, versioned saves, secret variables)
# and, in the GUI build, the editor's widgets offscreen.
ferry_test(tst_environmentdiff SOURCES env/tst_environmentdiff.cpp)
if(FERRY_GUI)
  ferry_test(tst_environmenteditor GUI SOURCES env/tst_environmenteditor.cpp LIBS ferry_ui)
  ferry_test(tst_environmenteditorparts GUI SOURCES env/tst_environmenteditorparts.cpp LIBS ferry_ui)
endif()
# By hand: tests/gui/env-screenshots.sh renders the editor under Xvfb (not a test: look at them).
if(FERRY_GUI)
  add_executable(ferry_env_screenshots EXCLUDE_FROM_ALL gui/envscreenshots.cpp)
  target_link_libraries(ferry_env_screenshots PRIVATE ferry_ui Qt6::Test ferry_warnings)
  set_target_properties(ferry_env_screenshots PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}/gui")
endif()
# The image actions against the real engine (the `docker` fixture of devcontainer.cmake).
if(FERRY_GUI)
  ferry_test(tst_environmentimage GUI SOURCES env/tst_environmentimage.cpp LIBS ferry_ui)
  set_tests_properties(tst_environmentimage PROPERTIES FIXTURES_REQUIRED docker RESOURCE_LOCK container_builds TIMEOUT 1200)
endif()
