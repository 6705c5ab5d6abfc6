// The main() of every test executable (tests/CMakeLists.txt): `tests_run TEST [ARGUMENTS ...]` runs
// the test TEST registered in it (support/testmain.h) with ARGUMENTS, as TEST's own program did
// (`tests_run tst_logtimes malformedAndBackwardLinesAreSkipped`); `--list` prints their names.
#include "support/testmain.h"

#include <QCoreApplication>
#include <QString>

#include <cstdio>
#include <cstring>

namespace {

void printTests(FILE *to)
{
    for (const auto &test : ferry::test::registeredTests())
        std::fprintf(to, "%s\n", test.first.c_str());
}

} // namespace

int main(int argc, char **argv)
{
    if (argc == 2 && std::strcmp(argv[1], "--list") == 0) {
        printTests(stdout);
        return 0;
    }
    const auto &tests = ferry::test::registeredTests();
    const auto test = argc >= 2 ? tests.find(argv[1]) : tests.end();
    if (test == tests.end()) {
        if (argc >= 2)
            std::fprintf(stderr, "%s: no test named %s; its tests are:\n", argv[0], argv[1]);
        else
            std::fprintf(stderr, "usage: %s TEST [ARGUMENTS ...] (or --list); its tests are:\n", argv[0]);
        printTests(stderr);
        return 2;
    }
    const QString name = QString::fromStdString(test->first);
    ferry::test::runningTestName() = name;
    // The name the test's own program had (QSettings, QStandardPaths and Qt's messages use it).
    QCoreApplication::setApplicationName(name);
    // The test sees its program and its own arguments, as before: argv without the test's name.
    argv[1] = argv[0];
    return test->second(argc - 1, argv + 1);
}
