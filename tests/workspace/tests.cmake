# core/workspace: a workspace, the recent ones, what a path handed to Ferry is.
# Included by tests/CMakeLists.txt.
ferry_test(tst_workspace SOURCES workspace/tst_workspace.cpp)
ferry_test(tst_recentworkspaces SOURCES workspace/tst_recentworkspaces.cpp)
ferry_test(tst_filekind SOURCES workspace/tst_filekind.cpp)
