# core/training: the embedded trainer's interface, its loader and its runs.
# Included by tests/CMakeLists.txt.
ferry_test(tst_trainerloader SOURCES training/tst_trainerloader.cpp)
if(FERRY_TRAINER)
  add_dependencies(tst_trainerloader ferry_trainer)
  # A plugin for an older TrainerEngine interface, to pin the "stale plugin" message.
  add_library(tst_stale_trainer MODULE fixtures/staletrainer.cpp)
  target_link_libraries(tst_stale_trainer PRIVATE ferry_core)
  set_target_properties(tst_stale_trainer PROPERTIES PREFIX "" OUTPUT_NAME ferry_trainer
    LIBRARY_OUTPUT_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}/stale")
  add_dependencies(tst_trainerloader tst_stale_trainer)
endif()

# The embedded training both the command line and the train panel run (a fake trainer: no torch).
ferry_test(tst_trainingsession SOURCES training/tst_trainingsession.cpp)
