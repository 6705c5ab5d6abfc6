# core/run: a run's spec, its folder, the contract the script sees, the supervisor (the metric
# readers' tests are in tests/metrics). Included by tests/CMakeLists.txt.
ferry_test(tst_contract SOURCES run/tst_contract.cpp)
# log.times: when each part of the log was written.
ferry_test(tst_logtimes SOURCES run/tst_logtimes.cpp)

# Run supervision: real processes (`ferry __supervise`, Python scripts from data/runs/), no mocks.
# The scripts run under /usr/bin/python3.
foreach(name tst_logtail tst_supervisor tst_rundirectory)
  ferry_test(${name} SOURCES run/${name}.cpp)
endforeach()

# The launch dialog's hyperparameters, read from a script's argparse calls.
ferry_test(tst_scriptparameters SOURCES run/tst_scriptparameters.cpp)

# An environment applied to a run (the command line's and the window's launch).
ferry_test(tst_runenvironment SOURCES run/tst_runenvironment.cpp)
