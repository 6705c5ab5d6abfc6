# core/snapshot: what a run ran, content-addressed. Included by tests/CMakeLists.txt.
ferry_test(tst_snapshot SOURCES snapshot/tst_snapshot.cpp)
# `ferry runs diff` on real runs in a git repository, through the built binary.
ferry_test(tst_runsdiff SOURCES snapshot/tst_runsdiff.cpp)
# A data channel's fingerprint (core/snapshot/datafingerprint.h) on real files.
ferry_test(tst_datafingerprint SOURCES snapshot/tst_datafingerprint.cpp)
