# pep508 tests
# PEP 508 requirements and requirements.txt files. tst_requirement checks the parser against
# packaging as Debian ships it (python3-packaging), so the system Python 3 is needed; always
# /usr/bin/python3, never a python3 earlier on PATH that lacks packaging.
find_program(FERRY_SYSTEM_PYTHON3 python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(NOT FERRY_SYSTEM_PYTHON3) # the test says it cannot start it (packaging/install-deps.sh test installs it)
  set(FERRY_SYSTEM_PYTHON3 /usr/bin/python3)
endif()
ferry_test(tst_requirement SOURCES env/tst_requirement.cpp DEFINES FERRY_PYTHON3="${FERRY_SYSTEM_PYTHON3}")
ferry_test(tst_requirementsfile SOURCES env/tst_requirementsfile.cpp)
