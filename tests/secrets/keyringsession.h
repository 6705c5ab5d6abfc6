#pragma once

// Keychain tests run inside a private, unlocked gnome-keyring (tests/services/keyring.sh). A test
// started on its own (by CTest, or by hand) runs itself again inside one; the copy inside sees
// FERRY_KEYRING_SESSION and runs the tests.
#include <QCoreApplication>
#include <QProcess>
#include <QStringList>
#include <QTest>

namespace ferry::testing {

inline bool insideKeyringSession()
{
    return qEnvironmentVariable("FERRY_KEYRING_SESSION") == QLatin1StringView("run");
}

// `keyring.sh MODE PROGRAM ARGS...`, its output forwarded; returns its exit code.
inline int runInKeyringSession(const QString &mode, const QString &program, const QStringList &arguments)
{
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("FERRY_KEYRING_SESSION"), mode);
    process.setProcessEnvironment(env);
    process.setProcessChannelMode(QProcess::ForwardedChannels);
    process.start(QStringLiteral("bash"), QStringList{QStringLiteral(FERRY_KEYRING_SCRIPT), mode, program} + arguments);
    if (!process.waitForStarted() || !process.waitForFinished(-1))
        return 2;
    return process.exitStatus() == QProcess::NormalExit ? process.exitCode() : 2;
}

} // namespace ferry::testing

// QTEST_GUILESS_MAIN, but inside a keyring session.
#define FERRY_KEYRING_TEST_MAIN(TestObject)                                                                            \
    int main(int argc, char **argv)                                                                                    \
    {                                                                                                                  \
        if (!ferry::testing::insideKeyringSession()) {                                                                 \
            QStringList arguments;                                                                                     \
            for (int i = 1; i < argc; ++i)                                                                             \
                arguments << QString::fromLocal8Bit(argv[i]);                                                          \
            QCoreApplication app(argc, argv);                                                                          \
            return ferry::testing::runInKeyringSession(QStringLiteral("run"), QCoreApplication::applicationFilePath(), \
                                                       arguments);                                                     \
        }                                                                                                              \
        QCoreApplication app(argc, argv);                                                                              \
        TestObject test;                                                                                               \
        QTEST_SET_MAIN_SOURCE_PATH                                                                                     \
        return QTest::qExec(&test, argc, argv);                                                                        \
    }
