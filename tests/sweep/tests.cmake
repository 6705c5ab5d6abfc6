# Sweeps: the sweep file and the samplers. Included by tests/CMakeLists.txt.
ferry_test(tst_sweepfile SOURCES sweep/tst_sweepfile.cpp)
ferry_test(tst_sampler SOURCES sweep/tst_sampler.cpp)
ferry_test(tst_earlystopping SOURCES sweep/tst_earlystopping.cpp)
# Which sweeps ended since the last look (the window's word when one ends), over real folders.
ferry_test(tst_sweepwatch SOURCES sweep/tst_sweepwatch.cpp)
# `ferry sweep`, through the built binary as a user runs it.
ferry_test(tst_sweepcli SOURCES sweep/tst_sweepcli.cpp)
# Sweeps on the local target with real processes (the built `ferry`, its detached controller).
ferry_test(tst_sweeprun SOURCES sweep/tst_sweeprun.cpp)
set_tests_properties(tst_sweeprun PROPERTIES TIMEOUT 900)
# Sweeps on the real Slurm of the `slurm` fixture (tests/targets/tests.cmake): one job array.
if(FERRY_GUI)
  ferry_test(tst_sweepslurm SOURCES sweep/tst_sweepslurm.cpp)
  # The cluster's two cores are the trials' slots: nothing else may take them meanwhile.
  ferry_service_owner(tst_sweepslurm slurm)
  set_tests_properties(tst_sweepslurm PROPERTIES FIXTURES_REQUIRED slurm TIMEOUT 900
                                      ENVIRONMENT "SLURM_CONF=${slurm_dir}/slurm.conf")
endif()
# Sweeps on the container target against the real engine of the `docker` fixture.
if(FERRY_GUI)
  ferry_test(tst_sweepcontainer SOURCES sweep/tst_sweepcontainer.cpp)
  set_tests_properties(tst_sweepcontainer PROPERTIES FIXTURES_REQUIRED docker RESOURCE_LOCK container_builds
                                          TIMEOUT 1200)
endif()
# A sweep's budget: real trials on the local target, the launches stopped before the budget is passed.
ferry_test(tst_sweepbudget SOURCES sweep/tst_sweepbudget.cpp)
