// Runs a test again inside a private service session (a D-Bus session with a keyring or a
// notification server), the way tests/services/keyring.sh and notifications.sh start one.
#pragma once

// A test that needs a service on a private session bus runs itself again inside a script that
// starts one (`SCRIPT MODE PROGRAM ARGS...`); the copy inside sees MARKER=MODE in its
// environment and runs the tests. support/keyring.h and support/notifications.h build on this.
#include "support/testmain.h"

#include <QCoreApplication>
#include <QProcess>
#include <QProcessEnvironment>
#include <QStringList>
#include <QTest>

namespace ferry::test {

// `bash SCRIPT MODE PROGRAM ARGS...` with MARKER=MODE, its output forwarded; its exit code.
inline int runInSession(const QString &script, const char *marker, const QString &mode, const QString &program,
                        const QStringList &arguments)
{
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QString::fromLatin1(marker), mode);
    process.setProcessEnvironment(env);
    process.setProcessChannelMode(QProcess::ForwardedChannels);
    process.start(QStringLiteral("bash"), QStringList{script, mode, program} + arguments);
    if (!process.waitForStarted() || !process.waitForFinished(-1))
        return 2;
    return process.exitStatus() == QProcess::NormalExit ? process.exitCode() : 2;
}

} // namespace ferry::test

// FERRY_TEST_MAIN with application class App, but inside SCRIPT's session in MODE: started on its
// own, the test runs itself again inside one (where MARKER is MODE).
#define FERRY_SESSION_TEST_MAIN_APP(App, TestObject, script, marker, mode)                                             \
    static int ferrySessionTestMain_##TestObject(int argc, char **argv)                                                \
    {                                                                                                                  \
        if (qEnvironmentVariable(marker) != QLatin1StringView(mode)) {                                                 \
            QStringList arguments;                                                                                     \
            for (int i = 1; i < argc; ++i)                                                                             \
                arguments << QString::fromLocal8Bit(argv[i]);                                                          \
            QCoreApplication app(argc, argv);                                                                          \
            return ferry::test::runInSession(QStringLiteral(script), marker, QStringLiteral(mode),                     \
                                             QCoreApplication::applicationFilePath(),                                  \
                                             ferry::test::testArguments(arguments));                                   \
        }                                                                                                              \
        App app(argc, argv);                                                                                           \
        TestObject test;                                                                                               \
        QTEST_SET_MAIN_SOURCE_PATH                                                                                     \
        return QTest::qExec(&test, argc, argv);                                                                        \
    }                                                                                                                  \
    FERRY_TEST_MAIN_FUNCTION(ferrySessionTestMain_##TestObject)
