# The live loss chart (ui/chart/). Included by tests/CMakeLists.txt.
if(FERRY_GUI)
  ferry_test(tst_m4summary GUI SOURCES ui/chart/tst_m4summary.cpp LIBS ferry_ui)
  ferry_test(tst_seriesstore GUI SOURCES ui/chart/tst_seriesstore.cpp LIBS ferry_ui)
  ferry_test(tst_losschart GUI SOURCES ui/chart/tst_losschart.cpp LIBS ferry_ui)
  ferry_test(tst_chartgroups GUI SOURCES ui/chart/tst_chartgroups.cpp LIBS ferry_ui)
  ferry_test(tst_metricgroups GUI SOURCES ui/chart/tst_metricgroups.cpp LIBS ferry_ui)
  ferry_test(tst_runcolors GUI SOURCES ui/chart/tst_runcolors.cpp LIBS ferry_ui)
endif()

# Benchmark (tests/bench/chart.sh, by hand; never built by CI): the chart against Qt Charts and,
# where Debian's libqcustomplot-dev is installed (packaging/install-deps.sh bench), QCustomPlot.
if(FERRY_GUI)
  add_executable(chartbench EXCLUDE_FROM_ALL bench/chartbench.cpp)
  target_link_libraries(chartbench PRIVATE ferry_ui ferry_warnings Qt6::Charts)
  find_package(Qt6 QUIET COMPONENTS PrintSupport)
  find_package(QCustomPlotQt6 QUIET)
  if(QCustomPlotQt6_FOUND AND TARGET Qt6::PrintSupport)
    target_link_libraries(chartbench PRIVATE QCustomPlotQt6::QCustomPlotQt6)
    target_compile_definitions(chartbench PRIVATE FERRY_HAVE_QCUSTOMPLOT=1)
  endif()
  set_target_properties(chartbench PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}/bench")
endif()

# The metric store's benchmark (tests/bench/metricstore.sh, by hand; docs/metric-store.md): bytes
# per point, loading a series, a workspace of 1,000 runs, 32 runs from the store into the chart.
if(FERRY_GUI)
  add_executable(ferry_metricstorebench EXCLUDE_FROM_ALL bench/metricstorebench.cpp)
  target_link_libraries(ferry_metricstorebench PRIVATE ferry_ui ferry_core ferry_warnings Qt6::Sql Qt6::Test)
  target_compile_definitions(ferry_metricstorebench PRIVATE FERRY_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
endif()
# The sweep view's frame times with 1,000 trials (tests/bench/sweepview.sh).
if(FERRY_GUI)
  add_executable(sweepviewbench EXCLUDE_FROM_ALL bench/sweepviewbench.cpp)
  target_link_libraries(sweepviewbench PRIVATE ferry_ui ferry_warnings Qt6::Charts Qt6::Test)
  set_target_properties(sweepviewbench PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}/bench")
endif()
