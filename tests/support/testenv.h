// Finds the build under test (its folder and binaries) from the environment CTest gives or the
// executable's place.
#pragma once

#include <QCoreApplication>
#include <QDir>
#include <QString>

// Where the build under test is. CTest hands each test the paths of its own build in the
// environment (tests/CMakeLists.txt), so a test's object file is the same in every build folder
// and the GUI-less build reuses the full build's compiled tests from the cache. Run by hand, a
// test (or a by-hand tool under tests/gui, tests/bench) finds its build as the nearest folder
// above its executable that holds a CMakeCache.txt.
namespace ferry::test {

inline QString buildDir()
{
    const QString given = qEnvironmentVariable("FERRY_BUILD_DIR");
    if (!given.isEmpty())
        return given;
    // tests/ and tests/gui/ executables alike (a fixed "/.." found build/tests for the latter).
    QDir dir(QCoreApplication::applicationDirPath());
    while (!dir.exists(QStringLiteral("CMakeCache.txt")) && dir.cdUp()) {
    }
    return dir.exists(QStringLiteral("CMakeCache.txt"))
               ? QDir::cleanPath(dir.absolutePath())
               : QDir::cleanPath(QCoreApplication::applicationDirPath() + QStringLiteral("/.."));
}

// The `ferry` executable of that build.
inline QString ferryBinary()
{
    const QString given = qEnvironmentVariable("FERRY_BINARY");
    return given.isEmpty() ? buildDir() + QStringLiteral("/bin/ferry") : given;
}

// The folder of that build's test sshd (the `sshd` fixture of tests/targets/tests.cmake): its
// config, keys, known_hosts and port.
inline QString sshdDir()
{
    return buildDir() + QStringLiteral("/tests/services/sshd");
}

} // namespace ferry::test
