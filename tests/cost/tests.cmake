# What runs cost and take (core/cost, docs/cost.md): the price catalog, rates, the estimate before
# a run, the report after. Included by tests/CMakeLists.txt. All unit tests: no process, no service.
ferry_test(tst_catalog SOURCES cost/tst_catalog.cpp)
ferry_test(tst_rates SOURCES cost/tst_rates.cpp)
ferry_test(tst_estimate SOURCES cost/tst_estimate.cpp)
ferry_test(tst_costreport SOURCES cost/tst_costreport.cpp)
# Budgets: the rate at launch, a run's caps, a month's budget and a sweep's (exact arithmetic).
ferry_test(tst_budget SOURCES cost/tst_budget.cpp)
