# core/tracking: a run followed wherever it runs (the real `ferry` supervising a local run).
# Included by tests/CMakeLists.txt.
ferry_test(tst_runmonitor SOURCES tracking/tst_runmonitor.cpp)
ferry_test(tst_metricsources SOURCES tracking/tst_metricsources.cpp)
# `ferry runs export --bundle` / `ferry runs import` between two workspaces, real runs.
ferry_test(tst_runbundle SOURCES tracking/tst_runbundle.cpp)
# The run query (ferry runs list --where, the runs view's filter) over a real store.
ferry_test(tst_runquery SOURCES tracking/tst_runquery.cpp)
# A finished run's log collected as `ferry runs attach` collects it (the follower's pipeline, its
# fast paths), against the plain path line by line, bit for bit.
ferry_test(tst_followeringest SOURCES tracking/tst_followeringest.cpp)
# A run's images, histograms and texts followed into the store and read back (tracking/runmedia.h):
# media_writer.py's event file, histograms.jsonl and output/images, and the attacks.
ferry_test(tst_runmedia SOURCES tracking/tst_runmedia.cpp)
# How runs are told apart: short ids, names from the parameters that differ, ids by their start or
# end, a metric's best (review 2026-12-06, finding 1).
ferry_test(tst_runlabels SOURCES tracking/tst_runlabels.cpp)
# Alert rules (`ferry runs watch --alert`, the window's alerts): their syntax, and what fires
# over a real store's points.
ferry_test(tst_alertrule SOURCES tracking/tst_alertrule.cpp)
ferry_test(tst_alertwatch SOURCES tracking/tst_alertwatch.cpp)
# A Slurm run ended at the --time of its budget: recorded as the budget's stop.
ferry_test(tst_budgetend SOURCES tracking/tst_budgetend.cpp)
# A run's progress and ETA from real tqdm and Hugging Face output (progress.py), Keras' lines, an
# epochs parameter; the idle GPU rule over recorded samples and as a gpu_idle alert.
ferry_test(tst_progress SOURCES tracking/tst_progress.cpp)
