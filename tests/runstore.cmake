# Run store tests (core/run/runstore*). Included by tests/CMakeLists.txt.
ferry_test(tst_runstore)
# Kills a child process (this test binary, started with --append-child) at random moments.
ferry_test(tst_runstore_crash)
# Benchmarks (tests/bench/): their targets are EXCLUDE_FROM_ALL, so CI never builds them.
add_subdirectory(bench)
