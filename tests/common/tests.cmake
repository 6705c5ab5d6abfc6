# core/common: the process runner, typed settings. Included by tests/CMakeLists.txt.
ferry_test(tst_setting SOURCES common/tst_setting.cpp)
ferry_test(tst_process SOURCES common/tst_process.cpp)
ferry_test(tst_linediff SOURCES common/tst_linediff.cpp)
