#!/bin/sh
# Stands in for a program only tests run (tests/CMakeLists.txt, ferry_test_program) when it was not
# found at configure time: the test says what is missing and fails; configure and build go on.
echo "$1 is not installed: 'packaging/install-deps.sh test' installs what the tests need, then configure again" >&2
exit 1
