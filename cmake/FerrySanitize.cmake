# The sanitizer build (FERRY_SANITIZE=ON; CMakePresets.json "asan", CI's second build): every
# target compiles and links with AddressSanitizer (and LeakSanitizer) and UndefinedBehaviorSanitizer,
# and the first report ends the process with an error, so a test that meets one fails. With
# FERRY_FUZZ (clang) all of core is also instrumented for libFuzzer's coverage, and the fuzz
# targets link core itself (tests/fuzz/CMakeLists.txt).
if(NOT FERRY_SANITIZE)
  return()
endif()
if(NOT CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  message(FATAL_ERROR "FERRY_SANITIZE needs gcc or clang")
endif()
set(FERRY_SANITIZERS -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
add_compile_options(${FERRY_SANITIZERS})
add_link_options(-fsanitize=address,undefined)
if(FERRY_FUZZ)
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
