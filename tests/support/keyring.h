// Runs keychain tests inside a private, unlocked gnome-keyring session, re-launching the test
// there.
#pragma once

// Keychain tests run inside a private, unlocked gnome-keyring (tests/services/keyring.sh). A test
// started on its own (by CTest, or by hand) runs itself again inside one; the copy inside sees
// FERRY_KEYRING_SESSION and runs the tests.
#include "support/session.h"

#include <QCoreApplication>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QProcess>
#include <QStringList>
#include <QTest>

// tests/services/keyring.sh: starts a private D-Bus session with an unlocked gnome-keyring.
#define FERRY_KEYRING_SCRIPT FERRY_SOURCE_DIR "/tests/services/keyring.sh"

namespace ferry::test {

inline bool insideKeyringSession()
{
    return qEnvironmentVariable("FERRY_KEYRING_SESSION") == QLatin1StringView("run");
}

// `keyring.sh MODE PROGRAM ARGS...`, its output forwarded; returns its exit code.
inline int runInKeyringSession(const QString &mode, const QString &program, const QStringList &arguments)
{
    return runInSession(QStringLiteral(FERRY_KEYRING_SCRIPT), "FERRY_KEYRING_SESSION", mode, program, arguments);
}

// The value secret-tool finds for a Ferry secret (empty: none): the keychain as other programs
// see it.
inline QString keychainLookup(const QString &name)
{
    QProcess tool;
    tool.start(QStringLiteral("secret-tool"), {QStringLiteral("lookup"), QStringLiteral("server"),
                                               QStringLiteral("dev.ferry.Ferry"), QStringLiteral("user"), name});
    if (!tool.waitForFinished(20000))
        return {};
    return QString::fromUtf8(tool.readAllStandardOutput());
}

// Every file under `root` that holds `secret` as it is or base64-encoded.
inline QStringList filesHolding(const QString &root, const QString &secret)
{
    QStringList hits;
    QDirIterator it(root, QDir::Files | QDir::Hidden | QDir::System, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        QFile file(it.next());
        if (!file.open(QIODevice::ReadOnly))
            continue;
        const QByteArray bytes = file.readAll();
        if (bytes.contains(secret.toUtf8()) || bytes.contains(secret.toUtf8().toBase64()))
            hits << file.fileName();
    }
    return hits;
}

} // namespace ferry::test

// FERRY_TEST_MAIN with application class App (QCoreApplication, QApplication), but inside a
// keyring session: started on its own, the test runs itself again inside one.
#define FERRY_KEYRING_TEST_MAIN_APP(App, TestObject)                                                                   \
    FERRY_SESSION_TEST_MAIN_APP(App, TestObject, FERRY_KEYRING_SCRIPT, "FERRY_KEYRING_SESSION", "run")

// FERRY_TEST_GUILESS_MAIN, but inside a keyring session.
#define FERRY_KEYRING_TEST_MAIN(TestObject) FERRY_KEYRING_TEST_MAIN_APP(QCoreApplication, TestObject)
