# Include paths name a folder from the top ("run/runspec.h"), never climb out with "../": a
# climbing include would step around the per-folder views that keep the layers apart.
#   cmake -DROOT=source-dir -P relative-includes.cmake
file(GLOB_RECURSE sources "${ROOT}/core/*.h" "${ROOT}/core/*.cpp" "${ROOT}/ui/*.h" "${ROOT}/ui/*.cpp"
     "${ROOT}/app/*.h" "${ROOT}/app/*.cpp")
set(found "")
foreach(file IN LISTS sources)
  file(STRINGS "${file}" lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"\\.\\./")
  foreach(line IN LISTS lines)
    list(APPEND found "${file}: ${line}")
  endforeach()
endforeach()
if(found)
  list(JOIN found "\n" text)
  message(FATAL_ERROR "includes that climb out of their folder:\n${text}")
endif()
list(LENGTH sources count)
message(STATUS "${count} files, no include climbs with ../")
