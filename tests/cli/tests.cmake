# The command line (app/cli/), through the built `ferry` as a user runs it.
# Included by tests/CMakeLists.txt. Each area's own subcommand tests (ferry env, ferry secret,
# ferry notebook) stand with that area's tests.
ferry_test(tst_cli SOURCES cli/tst_cli.cpp)

# `ferry run` and `ferry runs`: real processes (`ferry __supervise`, Python scripts from
# data/runs/), no mocks. The scripts run under /usr/bin/python3.
ferry_test(tst_runcli SOURCES cli/tst_runcli.cpp)

# What a run records besides its code: its data's fingerprints and its host, shown and compared.
ferry_test(tst_runprovenance SOURCES cli/tst_runprovenance.cpp)

# A container run's image id and packages; its rerun once the image is gone (the docker fixture).
if(FERRY_GUI)
  find_package(LibArchive 3.3 REQUIRED)
  ferry_test(tst_containerrerun SOURCES cli/tst_containerrerun.cpp LIBS LibArchive::LibArchive)
  set_tests_properties(tst_containerrerun PROPERTIES FIXTURES_REQUIRED docker RESOURCE_LOCK container_builds TIMEOUT 900)
  # A container run's budget, held by its watcher (`ferry __container-budget`), in a private D-Bus
  # session with a real notification server (tests/services/notifications.sh).
  ferry_test(tst_containerbudget SOURCES cli/tst_containerbudget.cpp)
  set_tests_properties(tst_containerbudget PROPERTIES FIXTURES_REQUIRED docker RESOURCE_LOCK container_builds TIMEOUT 600)
endif()

# The run store through `ferry runs metrics --csv`, `ferry runs gc`, `ferry doctor --store` and the
# conversion of an older store, on real stores (tests/data/stores/ for the older one).
ferry_test(tst_storecli SOURCES cli/tst_storecli.cpp)

# `ferry train`: the embedded trainer (issue 5), only where the libtorch plugin is built.
if(FERRY_TRAINER)
  if(FERRY_GUI)
    ferry_test(tst_traincli SOURCES cli/tst_traincli.cpp LIBS Qt6::Gui DEPENDS ferry_trainer)
  else()
    ferry_test(tst_traincli SOURCES cli/tst_traincli.cpp DEPENDS ferry_trainer)
  endif()
  # `ferry runs rerun` of a training: the same losses, bit for bit.
  ferry_test(tst_trainrerun SOURCES cli/tst_trainrerun.cpp DEPENDS ferry_trainer)
endif()

# `ferry runs tag`, `ferry runs note` and `ferry runs list --where` (issue 19) on real local runs.
ferry_test(tst_runsquerycli SOURCES cli/tst_runsquerycli.cpp)

# `ferry runs aggregate` (its CSV checked against numpy, /usr/bin/python3) and `ferry runs importance`
# (issue 37) on a real store.
ferry_test(tst_runsanalysiscli SOURCES cli/tst_runsanalysiscli.cpp)

# `ferry rates`, `ferry run --estimate`, `ferry sweep plan`'s estimate and `ferry cost report`
# (docs/cost.md) on a store of runs with known durations: no run is started.
ferry_test(tst_costcli SOURCES cli/tst_costcli.cpp)

# `ferry runs images`, `ferry runs histograms` and show's text summaries on real runs (issue 37).
ferry_test(tst_mediacli SOURCES cli/tst_mediacli.cpp)
# `ferry runs watch --until-done --alert RULE`: real local runs, their alerts printed and sent to a
# real notification server on a private D-Bus session (tests/services/notifications.sh), the exit
# code the run's end's.
ferry_test(tst_runswatch SOURCES cli/tst_runswatch.cpp)
# A run's budget (`ferry run --max-time/--max-cost`, `ferry budget`): real local runs stopped at
# their cap by the detached supervisor after the grace signal (the script saves a checkpoint), 80 %
# and the stop sent to a real notification server; the rate at launch kept; a spent month refused.
ferry_test(tst_runbudget SOURCES cli/tst_runbudget.cpp)
# `ferry runs list --json`'s progress, ETA and cost so far, for real local runs of progress.py
# (Debian's Python and its tqdm): Hugging Face's steps, a bar read as it redraws, no total.
ferry_test(tst_runsprogress SOURCES cli/tst_runsprogress.cpp)
