# matchspec tests
ferry_test(tst_matchspec SOURCES env/tst_matchspec.cpp)
# Every input fuzzing ever found, replayed through each fuzz target in this (gcc) build.
include(${CMAKE_CURRENT_LIST_DIR}/../fuzz/replay.cmake)
