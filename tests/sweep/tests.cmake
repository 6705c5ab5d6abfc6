# Sweeps: the sweep file and the samplers. Included by tests/CMakeLists.txt.
ferry_test(tst_sweepfile SOURCES sweep/tst_sweepfile.cpp)
ferry_test(tst_sampler SOURCES sweep/tst_sampler.cpp)
ferry_test(tst_earlystopping SOURCES sweep/tst_earlystopping.cpp)
# `ferry sweep`, through the built binary as a user runs it.
ferry_test(tst_sweepcli SOURCES sweep/tst_sweepcli.cpp)
add_dependencies(tst_sweepcli ferry)
# Sweeps on the local target with real processes (the built `ferry`, its detached controller).
ferry_test(tst_sweeprun SOURCES sweep/tst_sweeprun.cpp)
add_dependencies(tst_sweeprun ferry)
set_tests_properties(tst_sweeprun PROPERTIES TIMEOUT 900)
