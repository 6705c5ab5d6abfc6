# core/run: a run's spec, its folder, the contract the script sees, the supervisor, the metric
# parser. Included by tests/CMakeLists.txt.
ferry_test(tst_contract SOURCES run/tst_contract.cpp)
ferry_test(tst_metricparser SOURCES run/tst_metricparser.cpp)
# Real logs of other people's training scripts (../shared/corpus/logs/), against log_oracle.py.
ferry_test(tst_logcorpus SOURCES run/tst_logcorpus.cpp)
# The files training libraries write beside the log: trainer_state.json, metrics.csv.
ferry_test(tst_metricfiles SOURCES run/tst_metricfiles.cpp)
# log.times: when each part of the log was written.
ferry_test(tst_logtimes SOURCES run/tst_logtimes.cpp)
# system.samples: a run's CPU, memory and GPU metrics.
ferry_test(tst_systemsamples SOURCES run/tst_systemsamples.cpp)
# TensorBoard event files: the corpus's and ones written by python3-protobuf, against event_oracle.py.
ferry_test(tst_eventfile SOURCES run/tst_eventfile.cpp)

# Run supervision: real processes (`ferry __supervise`, Python scripts from data/runs/), no mocks.
# The scripts run under /usr/bin/python3.
foreach(name tst_logtail tst_supervisor tst_rundirectory)
  ferry_test(${name} SOURCES run/${name}.cpp)
  add_dependencies(${name} ferry)
endforeach()

# The launch dialog's hyperparameters, read from a script's argparse calls.
ferry_test(tst_scriptparameters SOURCES run/tst_scriptparameters.cpp)

# An environment applied to a run (the command line's and the window's launch).
ferry_test(tst_runenvironment SOURCES run/tst_runenvironment.cpp)
