# core/analysis: runs compared at once (issue 37): groups' statistics at each step, a metric against
# another x, one value per run, parameter importance. Included by tests/CMakeLists.txt.
# The rule between points and the statistics of a group, on arrays.
ferry_test(tst_curves SOURCES analysis/tst_curves.cpp)
# Groups, x axes and values of runs over a real store.
ferry_test(tst_rungroups SOURCES analysis/tst_rungroups.cpp)
# The random forest and the correlations (numpy.corrcoef, /usr/bin/python3) on synthetic runs.
ferry_test(tst_importance SOURCES analysis/tst_importance.cpp)
