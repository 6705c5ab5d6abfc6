# Run store tests (core/store/). Included by tests/CMakeLists.txt.
ferry_test(tst_runstore SOURCES store/tst_runstore.cpp)
# Kills a child process (this test binary, started with --append-child) at random moments.
ferry_test(tst_runstore_crash SOURCES store/tst_runstore_crash.cpp)
# RunStore::deleteRun (the window's delete is in ui/runs/).
ferry_test(tst_runstore_delete SOURCES store/tst_runstore_delete.cpp)
ferry_test(tst_seriesblock SOURCES store/tst_seriesblock.cpp)
# store/metriccsv.h: `ferry runs metrics --csv` read back bit for bit (what a run bundle carries).
ferry_test(tst_metriccsv SOURCES store/tst_metriccsv.cpp)
# A run's tags and note (issue 19), and the migration to schema version 4.
ferry_test(tst_runstore_tags SOURCES store/tst_runstore_tags.cpp)
# The index of a run's images, histograms and texts (issue 37), and the migration to schema version 5.
ferry_test(tst_runstore_media SOURCES store/tst_runstore_media.cpp)
