# Run store tests (core/run/runstore*). Included by tests/CMakeLists.txt.
ferry_test(tst_runstore)
# Kills a child process (this test binary, started with --append-child) at random moments.
ferry_test(tst_runstore_crash)
add_subdirectory(bench) # TEMPORARY (runstore engineer): the lead adds this
