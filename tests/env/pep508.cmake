# pep508 tests
# PEP 508 requirements and requirements.txt files. tst_requirement checks the parser against
# packaging as Debian ships it (python3-packaging), so the system Python 3 is needed; always
# /usr/bin/python3, never a python3 earlier on PATH that lacks packaging.
find_program(FERRY_SYSTEM_PYTHON3 python3 PATHS /usr/bin NO_DEFAULT_PATH REQUIRED)
ferry_test(tst_requirement SOURCES env/tst_requirement.cpp)
target_compile_definitions(tst_requirement PRIVATE FERRY_PYTHON3="${FERRY_SYSTEM_PYTHON3}")
ferry_test(tst_requirementsfile SOURCES env/tst_requirementsfile.cpp)
