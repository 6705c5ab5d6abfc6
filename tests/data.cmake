# Dataset tests (core/data/). Included by tests/CMakeLists.txt.
ferry_test(tst_csvreader)
ferry_test(tst_idxreader)
ferry_test(tst_datasplit)
if(FERRY_GUI)
  # The tests draw their images with QImage; without the GUI they check the clear refusal.
  ferry_test(tst_imagefolder LIBS Qt6::Gui)
  ferry_test(tst_datasetdetect LIBS Qt6::Gui)
else()
  ferry_test(tst_imagefolder)
  ferry_test(tst_datasetdetect)
endif()

# Benchmark, run by hand: tests/bench/csvload.sh (not built by default, never by CI).
add_executable(ferry_csvbench EXCLUDE_FROM_ALL bench/csvbench.cpp)
target_link_libraries(ferry_csvbench PRIVATE ferry_core ferry_warnings)
