# ui/cost: the Costs window (Run › Costs). Included by tests/CMakeLists.txt.
if(FERRY_GUI)
  # Its table laid out to be read: each run's or group's numbers beside its name.
  ferry_test(tst_costsview GUI SOURCES ui/cost/tst_costsview.cpp LIBS ferry_ui)
endif()
