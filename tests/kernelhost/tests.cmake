# core/kernelhost: kernels started, kept and stopped as runs are, through `ferry kernel` and a real
# ipykernel (python3-ipykernel) under its keeper. Included by tests/CMakeLists.txt.
# The records of a kernel read and said in words (unit).
ferry_test(tst_kernelrecords SOURCES kernelhost/tst_kernelrecords.cpp)
# Data dropped on a notebook's cell: the path its kernel sees on its target, the code that loads it (unit).
ferry_test(tst_kerneldata SOURCES kernelhost/tst_kerneldata.cpp)
ferry_test(tst_localkernel SOURCES kernelhost/tst_localkernel.cpp)
# `ferry notebook execute` against Debian's `jupyter nbconvert --execute` on the same notebooks.
ferry_test(tst_notebookexecute SOURCES kernelhost/tst_notebookexecute.cpp)
# Kernels in containers (the docker fixture; ferry-kernel:bookworm, made by tests/services/docker.sh).
ferry_test(tst_containerkernel SOURCES kernelhost/tst_containerkernel.cpp)
set_tests_properties(tst_containerkernel PROPERTIES FIXTURES_REQUIRED docker RESOURCE_LOCK container_builds TIMEOUT 900)
# The same on an SSH host: the test sshd (tests/targets/tests.cmake), the host being this machine.
if(FERRY_GUI)
  ferry_test(tst_sshkernel SOURCES kernelhost/tst_sshkernel.cpp)
  set_tests_properties(tst_sshkernel PROPERTIES FIXTURES_REQUIRED sshd)
  # In the environment's image on that host, built there by the docker fixture's engine.
  ferry_test(tst_sshimagekernel SOURCES kernelhost/tst_sshimagekernel.cpp)
  set_tests_properties(tst_sshimagekernel PROPERTIES FIXTURES_REQUIRED "sshd;docker" RESOURCE_LOCK container_builds
                                                     TIMEOUT 900)
  # And on the test Slurm, through the test sshd as its login host (its node is this machine).
  ferry_test(tst_slurmkernel SOURCES kernelhost/tst_slurmkernel.cpp)
  set_tests_properties(tst_slurmkernel PROPERTIES FIXTURES_REQUIRED "sshd;slurm")
endif()
