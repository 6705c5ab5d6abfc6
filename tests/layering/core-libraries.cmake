# Checks what the shared core library needs at run time: Qt Core, never Qt Widgets or libtorch
# (the trainer plugin brings torch; the GUI brings widgets). The link graph proves it, not a
# second build: ferry_core links with --no-undefined, so a widget call would not link either.
#   cmake -DOBJDUMP=objdump -DLIBRARY=libferry_core.so -P core-libraries.cmake
execute_process(COMMAND "${OBJDUMP}" -p "${LIBRARY}" OUTPUT_VARIABLE headers RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "cannot read ${LIBRARY}")
endif()
string(REGEX MATCHALL "NEEDED +[^\n]+" needed "${headers}")
message(STATUS "${LIBRARY} needs: ${needed}")
if(NOT needed MATCHES "libQt6Core")
  message(FATAL_ERROR "no Qt Core among the libraries: this check reads the wrong file")
endif()
foreach(forbidden libQt6Widgets libtorch libc10 libQt6Charts)
  if(needed MATCHES "${forbidden}")
    message(FATAL_ERROR "${LIBRARY} needs ${forbidden}: core must not depend on it")
  endif()
endforeach()
