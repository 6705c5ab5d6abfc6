# Dataset tests (core/data/). Included by tests/CMakeLists.txt. The files they read lie in this
# folder's subfolders, with every other test's data (FERRY_TEST_DATA).
ferry_test(tst_csvreader SOURCES data/tst_csvreader.cpp)
ferry_test(tst_idxreader SOURCES data/tst_idxreader.cpp)
ferry_test(tst_datasplit SOURCES data/tst_datasplit.cpp)
if(FERRY_GUI)
  # The tests draw their images with QImage; without the GUI they check the clear refusal.
  ferry_test(tst_imagefolder SOURCES data/tst_imagefolder.cpp LIBS Qt6::Gui)
  ferry_test(tst_datasetdetect SOURCES data/tst_datasetdetect.cpp LIBS Qt6::Gui)
else()
  ferry_test(tst_imagefolder SOURCES data/tst_imagefolder.cpp)
  ferry_test(tst_datasetdetect SOURCES data/tst_datasetdetect.cpp)
endif()

# Benchmark, run by hand: tests/bench/csvload.sh (not built by default, never by CI).
add_executable(ferry_csvbench EXCLUDE_FROM_ALL bench/csvbench.cpp)
target_link_libraries(ferry_csvbench PRIVATE ferry_core ferry_warnings)
