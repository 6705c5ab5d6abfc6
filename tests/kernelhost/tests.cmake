# core/kernelhost: kernels started, kept and stopped as runs are, through `ferry kernel` and a real
# ipykernel (python3-ipykernel) under its keeper. Included by tests/CMakeLists.txt.
ferry_test(tst_localkernel SOURCES kernelhost/tst_localkernel.cpp)
# `ferry notebook execute` against Debian's `jupyter nbconvert --execute` on the same notebooks.
ferry_test(tst_notebookexecute SOURCES kernelhost/tst_notebookexecute.cpp)
# The same on an SSH host: the test sshd (tests/targets/tests.cmake), the host being this machine.
if(FERRY_GUI)
  ferry_test(tst_sshkernel SOURCES kernelhost/tst_sshkernel.cpp)
  set_tests_properties(tst_sshkernel PROPERTIES FIXTURES_REQUIRED sshd)
endif()
