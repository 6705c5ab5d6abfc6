# core/training: the embedded trainer's interface, its loader and its runs.
# Included by tests/CMakeLists.txt.
if(FERRY_TRAINER)
  # A plugin for an older TrainerEngine interface, to pin the "stale plugin" message.
  add_library(tst_stale_trainer MODULE fixtures/staletrainer.cpp)
  target_link_libraries(tst_stale_trainer PRIVATE ferry_core)
  set_target_properties(tst_stale_trainer PROPERTIES PREFIX "" OUTPUT_NAME ferry_trainer
    LIBRARY_OUTPUT_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}/stale")
  ferry_test(tst_trainerloader SOURCES training/tst_trainerloader.cpp DEPENDS ferry_trainer tst_stale_trainer)
else()
  ferry_test(tst_trainerloader SOURCES training/tst_trainerloader.cpp)
endif()

# The embedded training both the command line and the train panel run (a fake trainer: no torch).
ferry_test(tst_trainingsession SOURCES training/tst_trainingsession.cpp)
