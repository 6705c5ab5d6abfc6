# One line per fuzz target: ferry_fuzz_target(NAME SOURCE), SOURCE defining LLVMFuzzerTestOneInput.
# tests/fuzz/CMakeLists.txt builds each as a libFuzzer executable (-DFERRY_FUZZ=ON, clang);
# tests/fuzz/replay.cmake gives each a regression test NAME_replay in ordinary builds.
ferry_fuzz_target(fuzz_matchspec fuzz_matchspec.cpp)
ferry_fuzz_target(fuzz_requirement fuzz_requirement.cpp)
ferry_fuzz_target(fuzz_requirements_text fuzz_requirements_text.cpp)
ferry_fuzz_target(fuzz_environment_yaml fuzz_environment_yaml.cpp)
ferry_fuzz_target(fuzz_conda_yaml fuzz_conda_yaml.cpp)
ferry_fuzz_target(fuzz_azureml_v1 fuzz_azureml_v1.cpp)
ferry_fuzz_target(fuzz_script_parameters fuzz_script_parameters.cpp)
ferry_fuzz_target(fuzz_notebook fuzz_notebook.cpp)
ferry_fuzz_target(fuzz_metric_lines fuzz_metric_lines.cpp)
ferry_fuzz_target(fuzz_event_file fuzz_event_file.cpp)
ferry_fuzz_target(fuzz_sweep_yaml fuzz_sweep_yaml.cpp)
ferry_fuzz_target(fuzz_run_query fuzz_run_query.cpp)
ferry_fuzz_target(fuzz_bundle_spec fuzz_bundle_spec.cpp)
ferry_fuzz_target(fuzz_snapshot_trees fuzz_snapshot_trees.cpp)
ferry_fuzz_target(fuzz_jupyter_frames fuzz_jupyter_frames.cpp)
ferry_fuzz_target(fuzz_kernel_journal fuzz_kernel_journal.cpp)
