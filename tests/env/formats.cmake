# Environment model, formats, hashing and generators.
ferry_test(tst_environmentfile SOURCES env/tst_environmentfile.cpp)
ferry_test(tst_environmentvalidator SOURCES env/tst_environmentvalidator.cpp)
ferry_test(tst_azuremlcommandjob SOURCES env/tst_azuremlcommandjob.cpp)
ferry_test(tst_azuremlrun SOURCES env/tst_azuremlrun.cpp)
ferry_test(tst_envformats SOURCES env/tst_envformats.cpp)
ferry_test(tst_spechash SOURCES env/tst_spechash.cpp)
ferry_test(tst_imagegenerator SOURCES env/tst_imagegenerator.cpp)
ferry_test(tst_envcli SOURCES env/tst_envcli.cpp)
