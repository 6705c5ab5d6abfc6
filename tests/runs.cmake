# Run supervision and the local target: real processes (`ferry __supervise`, Python scripts
# from data/runs/), no mocks. The scripts run under /usr/bin/python3.
foreach(name tst_logtail tst_supervisor tst_localtarget tst_localtarget_cancel tst_runcli tst_rundirectory)
  ferry_test(${name})
  add_dependencies(${name} ferry)
endforeach()

# The launch dialog's hyperparameters, read from a script's argparse calls.
ferry_test(tst_scriptparameters)

ferry_test(tst_runmonitor)
add_dependencies(tst_runmonitor ferry)

# Cloud hand-off: AzureML command jobs and SageMaker launchers, read back by yaml-cpp and Python.
ferry_test(tst_cloudhandoff LIBS yaml-cpp)
add_dependencies(tst_cloudhandoff ferry)

# An environment applied to a run (the command line's and the window's launch).
ferry_test(tst_runenvironment)

# The embedded training both the command line and the train panel run (a fake trainer: no torch).
ferry_test(tst_trainingsession)
