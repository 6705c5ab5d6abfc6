# Cloud hand-off: AzureML command jobs and SageMaker launchers, read back by yaml-cpp and Python.
# Included by tests/CMakeLists.txt.
ferry_test(tst_cloudhandoff SOURCES cloud/tst_cloudhandoff.cpp LIBS yaml-cpp)
# Sweeps handed to AzureML's sweep jobs and SageMaker's HyperparameterTuner.
ferry_test(tst_sweepexport SOURCES cloud/tst_sweepexport.cpp LIBS yaml-cpp)
