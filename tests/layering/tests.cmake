# The layers of core (docs/architecture.md) hold because the build holds them: each probe is
# compiled with one core library's include directories, the way that library's own code is.
function(ferry_layering_probe name library probe expect)
  add_test(NAME ${name} COMMAND "${CMAKE_COMMAND}"
    "-DCOMPILER=${CMAKE_CXX_COMPILER}"
    "-DINCLUDES=$<TARGET_PROPERTY:${library},INCLUDE_DIRECTORIES>"
    "-DDEFINES=$<TARGET_PROPERTY:${library},COMPILE_DEFINITIONS>"
    "-DPROBE=${CMAKE_CURRENT_SOURCE_DIR}/layering/${probe}"
    "-DEXPECT=${expect}" "-DMISSING=${ARGN}"
    -P "${CMAKE_CURRENT_SOURCE_DIR}/layering/compile-probe.cmake")
endfunction()
ferry_layering_probe(layering_common_cannot_include_run ferry_common common_includes_run.cpp fails run/runspec.h)
ferry_layering_probe(layering_run_cannot_include_targets ferry_run run_includes_targets.cpp fails targets/target.h)
ferry_layering_probe(layering_metrics_cannot_include_run ferry_metrics metrics_includes_run.cpp fails run/runspec.h)
ferry_layering_probe(layering_kernels_cannot_include_run ferry_kernels kernels_includes_run.cpp fails run/runspec.h)
ferry_layering_probe(layering_pip_cannot_include_env ferry_env_pip pip_includes_env.cpp fails env/environment.h)
ferry_layering_probe(layering_tracking_cannot_include_analysis ferry_tracking tracking_includes_analysis.cpp fails
  analysis/curves.h)
ferry_layering_probe(layering_store_cannot_include_analysis ferry_store store_includes_analysis.cpp fails
  analysis/rungroups.h)
ferry_layering_probe(layering_tracking_cannot_include_notify ferry_tracking tracking_includes_notify.cpp fails
  notify/desktopnotifier.h)
ferry_layering_probe(layering_run_includes_env ferry_run run_includes_env.cpp compiles)
ferry_layering_probe(layering_run_includes_metrics ferry_run run_includes_metrics.cpp compiles)

find_program(OBJDUMP objdump REQUIRED)
add_test(NAME layering_core_needs_no_widgets COMMAND "${CMAKE_COMMAND}"
  "-DOBJDUMP=${OBJDUMP}" "-DLIBRARY=$<TARGET_FILE:ferry_core>"
  -P "${CMAKE_CURRENT_SOURCE_DIR}/layering/core-libraries.cmake")
add_test(NAME layering_no_climbing_includes COMMAND "${CMAKE_COMMAND}"
  "-DROOT=${PROJECT_SOURCE_DIR}" -P "${CMAKE_CURRENT_SOURCE_DIR}/layering/relative-includes.cmake")
