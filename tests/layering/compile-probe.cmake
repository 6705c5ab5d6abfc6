# Compiles one probe file the way a core library compiles its own code (its include directories
# and definitions) and checks the outcome: EXPECT=compiles, or EXPECT=fails with MISSING (the
# header that must not be found). Used by tests/layering/tests.cmake.
#   cmake -DCOMPILER=c++ -DINCLUDES=a;b -DDEFINES=X;Y -DPROBE=file.cpp -DEXPECT=fails -DMISSING=run/runspec.h -P compile-probe.cmake
set(args -std=c++20 -fPIC -fsyntax-only)
foreach(dir IN LISTS INCLUDES)
  list(APPEND args "-I${dir}")
endforeach()
foreach(definition IN LISTS DEFINES)
  list(APPEND args "-D${definition}")
endforeach()
execute_process(COMMAND "${COMPILER}" ${args} "${PROBE}" RESULT_VARIABLE status ERROR_VARIABLE errors OUTPUT_QUIET)
if(EXPECT STREQUAL "compiles")
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${PROBE} should compile with these include directories and did not:\n${errors}")
  endif()
  message(STATUS "${PROBE}: compiles, as it should")
else()
  if(status EQUAL 0)
    message(FATAL_ERROR "${PROBE} compiled: the include of ${MISSING} went up a layer and the build let it through")
  endif()
  # gcc: "X: No such file or directory"; clang: "'X' file not found".
  string(FIND "${errors}" "${MISSING}: No such file" found)
  string(FIND "${errors}" "'${MISSING}' file not found" found_clang)
  if(found EQUAL -1 AND found_clang EQUAL -1)
    message(FATAL_ERROR "${PROBE} failed, but not because ${MISSING} was out of reach:\n${errors}")
  endif()
  message(STATUS "${PROBE}: ${MISSING} is out of reach, as it should be")
endif()
