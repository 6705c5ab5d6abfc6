// `ferry secret` as a user runs it, against a real gnome-keyring (support/keyring.h): values from
// standard input or a hidden prompt (a real terminal, from util-linux `script`), never from an
// argument; every missing-keychain case ends in a clear error and no plaintext; and a canary
// secret sent through every flow is found nowhere afterwards: settings, files Ferry wrote, the
// keyring's own files (encrypted), terminal transcripts, process command lines.
#include "support/cli.h"
#include "support/keyring.h"
#include "support/testenv.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;

namespace {

using Result = ferry::test::CliResult;

class SecretCliTest : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_home; // settings (XDG_CONFIG_HOME) and the working folder of every run
    const QString m_canary = u"canary-5b1e0c2f-9d7a-4e31"_s;

    QString configHome() const { return m_home.filePath(u"config"_s); }
    QString work() const { return m_home.filePath(u"work"_s); }

    QProcessEnvironment environment(const QList<std::pair<QString, QString>> &extra = {}) const
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(u"XDG_CONFIG_HOME"_s, configHome());
        for (const auto &[name, value] : extra)
            env.insert(name, value);
        return env;
    }

    Result run(const QString &program, const QStringList &arguments, const QByteArray &input = {},
               const QList<std::pair<QString, QString>> &extra = {}) const
    {
        return ferry::test::textOf(
            ferry::test::runCommand(program, arguments, work(), input, environment(extra), 60000));
    }

    Result ferry(const QStringList &arguments, const QByteArray &input = {},
                 const QList<std::pair<QString, QString>> &extra = {}) const
    {
        return run(ferry::test::ferryBinary(), arguments, input, extra);
    }

    // `ferry ARGS` on a real terminal (a pty from `script`), answering each prompt once it shows, as
    // a person types; the transcript is everything the terminal showed.
    Result onTerminal(const QString &arguments, const QList<std::pair<QString, QByteArray>> &answers = {}) const
    {
        QProcess process;
        process.setWorkingDirectory(work());
        process.setProcessEnvironment(environment());
        process.start(u"script"_s, {u"-qec"_s, ferry::test::ferryBinary() + u' ' + arguments, u"/dev/null"_s});
        if (!process.waitForStarted())
            return {};
        QByteArray transcript;
        for (const auto &[prompt, line] : answers) {
            while (!transcript.contains(prompt.toUtf8()) && process.waitForReadyRead(20000))
                transcript += process.readAllStandardOutput();
            process.write(line + '\n');
        }
        while (process.state() == QProcess::Running && process.waitForReadyRead(20000))
            transcript += process.readAllStandardOutput();
        process.waitForFinished(20000);
        transcript += process.readAllStandardOutput();
        return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1, QString::fromUtf8(transcript),
                QString::fromUtf8(process.readAllStandardError())};
    }

    // Every file under `root` holding the canary (its raw bytes or any common encoding).
    QStringList filesWithCanary(const QString &root) const { return ferry::test::filesHolding(root, m_canary); }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(QDir().mkpath(configHome()));
        QVERIFY(QDir().mkpath(work()));
    }

    void setGetListDelete()
    {
        const Result set = ferry({u"secret"_s, u"set"_s, u"REGISTRY_PASSWORD"_s}, "pa55 word\n");
        QVERIFY2(set.exitCode == 0, qPrintable(set.err));
        QVERIFY(set.err.contains(u"stored secret REGISTRY_PASSWORD"_s));
        const Result get = ferry({u"secret"_s, u"get"_s, u"REGISTRY_PASSWORD"_s});
        QCOMPARE(get.exitCode, 0);
        QCOMPARE(get.out, u"pa55 word\n"_s); // one trailing newline of the input dropped
        const Result list = ferry({u"secret"_s, u"list"_s, u"--json"_s});
        QCOMPARE(list.exitCode, 0);
        QCOMPARE(QJsonDocument::fromJson(list.out.toUtf8()).array(), QJsonArray{u"REGISTRY_PASSWORD"_s});
        const Result removed = ferry({u"secret"_s, u"delete"_s, u"REGISTRY_PASSWORD"_s});
        QVERIFY2(removed.exitCode == 0, qPrintable(removed.err));
        const Result again = ferry({u"secret"_s, u"delete"_s, u"REGISTRY_PASSWORD"_s});
        QCOMPARE(again.exitCode, 1);
        QVERIFY(again.err.contains(u"no secret named 'REGISTRY_PASSWORD'"_s));
        QCOMPARE(ferry({u"secret"_s, u"list"_s}).out, QString());
    }

    void userErrors_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("message");
        QTest::addColumn<QByteArray>("input");
        QTest::newRow("value as argument") << QStringList{u"secret"_s, u"set"_s, u"TOKEN"_s, u"hunter2"_s}
                                           << u"never from an argument"_s << QByteArray();
        QTest::newRow("no name") << QStringList{u"secret"_s, u"get"_s} << u"takes the secret's name"_s << QByteArray();
        QTest::newRow("bad name") << QStringList{u"secret"_s, u"get"_s, u"my token"_s}
                                  << u"'my token' is not a secret name"_s << QByteArray();
        QTest::newRow("unknown action") << QStringList{u"secret"_s, u"show"_s, u"X"_s} << u"unknown action 'show'"_s
                                        << QByteArray();
        QTest::newRow("missing") << QStringList{u"secret"_s, u"get"_s, u"NOPE"_s} << u"no secret named 'NOPE'"_s
                                 << QByteArray();
        QTest::newRow("empty value") << QStringList{u"secret"_s, u"set"_s, u"EMPTY"_s} << u"the value is empty"_s
                                     << QByteArray();
        QTest::newRow("too large") << QStringList{u"secret"_s, u"set"_s, u"FILE"_s} << u"more than 64 KiB"_s
                                   << QByteArray(64 * 1024 + 1, 'x');
        QTest::newRow("askpass without name") << QStringList{u"secret"_s, u"askpass"_s, u"Passphrase:"_s}
                                              << u"set FERRY_ASKPASS_SECRET"_s << QByteArray();
    }
    void userErrors()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, message);
        QFETCH(QByteArray, input);
        const Result r = ferry(arguments, input);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(message, Qt::CaseInsensitive), qPrintable(r.err));
        QVERIFY(!ferry({u"secret"_s, u"list"_s}).out.contains(u"TOKEN"_s)); // nothing was stored
    }

    // On a terminal the value is typed twice at a prompt that does not echo, and `get` wants --reveal.
    void terminalPromptAndReveal()
    {
        const QByteArray typed = "typed-" + m_canary.toUtf8();
        const Result set =
            onTerminal(u"secret set TTY_TOKEN"_s, {{u"Value for TTY_TOKEN:"_s, typed}, {u"Repeat"_s, typed}});
        QVERIFY2(set.exitCode == 0, qPrintable(set.out + set.err));
        QVERIFY(set.out.contains(u"Value for TTY_TOKEN:"_s));
        QVERIFY2(!set.out.contains(m_canary), qPrintable(set.out)); // no echo
        const Result hidden = onTerminal(u"secret get TTY_TOKEN"_s);
        QCOMPARE(hidden.exitCode, 1);
        QVERIFY(hidden.out.contains(u"add --reveal"_s));
        const Result shown = onTerminal(u"secret get TTY_TOKEN --reveal"_s);
        QCOMPARE(shown.exitCode, 0);
        QVERIFY(shown.out.contains(u"typed-"_s + m_canary));
        const Result mismatch = onTerminal(u"secret set TTY_OTHER"_s, {{u"Value for"_s, "one"}, {u"Repeat"_s, "two"}});
        QCOMPARE(mismatch.exitCode, 1);
        QVERIFY(mismatch.out.contains(u"the two values differ"_s));
        QVERIFY(ferry({u"secret"_s, u"delete"_s, u"TTY_TOKEN"_s}).exitCode == 0);
    }

    // SSH_ASKPASS helper mode: prints the secret the environment names, nothing else.
    void askpass()
    {
        QCOMPARE(ferry({u"secret"_s, u"set"_s, u"SSH_KEY_PASSPHRASE"_s}, "correct horse").exitCode, 0);
        const Result r = ferry({u"secret"_s, u"askpass"_s, u"Enter passphrase for key '/k':"_s}, {},
                               {{u"FERRY_ASKPASS_SECRET"_s, u"SSH_KEY_PASSPHRASE"_s}});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(r.out, u"correct horse\n"_s);
        // A host asking for a password never gets the passphrase.
        const Result password = ferry({u"secret"_s, u"askpass"_s, u"root@gpu-box's password: "_s}, {},
                                      {{u"FERRY_ASKPASS_SECRET"_s, u"SSH_KEY_PASSPHRASE"_s}});
        QCOMPARE(password.exitCode, 1);
        QVERIFY(password.out.isEmpty());
        QVERIFY2(password.err.contains(u"not a passphrase question"_s), qPrintable(password.err));
        QVERIFY(ferry({u"secret"_s, u"delete"_s, u"SSH_KEY_PASSPHRASE"_s}).exitCode == 0);
    }

    // The real consumer of the helper mode: ssh-add, with SSH_ASKPASS pointing at the ferry
    // binary itself, unlocks a passphrase-protected key from the keychain.
    void sshAddAsksFerryForThePassphrase()
    {
        QTemporaryDir dir;
        const QString passphrase = u"phrase with spaces"_s;
        const Result keygen = run(u"ssh-keygen"_s, {u"-q"_s, u"-t"_s, u"ed25519"_s, u"-N"_s, passphrase, u"-C"_s,
                                                    u"ferry-test"_s, u"-f"_s, dir.filePath(u"key"_s)});
        QVERIFY2(keygen.exitCode == 0, qPrintable(keygen.err));
        QCOMPARE(ferry({u"secret"_s, u"set"_s, u"KEY_PASSPHRASE"_s}, passphrase.toUtf8()).exitCode, 0);
        // A private agent, stopped by the pid it reports.
        const Result added = run(u"bash"_s,
                                 {u"-c"_s,
                                  u"eval \"$(ssh-agent -s)\" >/dev/null; ssh-add \"$1\" </dev/null; rc=$?; "
                                  u"ssh-add -l; ssh-agent -k >/dev/null; exit $rc"_s,
                                  u"bash"_s, dir.filePath(u"key"_s)},
                                 {},
                                 {{u"SSH_ASKPASS"_s, ferry::test::ferryBinary()},
                                  {u"SSH_ASKPASS_REQUIRE"_s, u"force"_s},
                                  {u"FERRY_ASKPASS_SECRET"_s, u"KEY_PASSPHRASE"_s},
                                  {u"XDG_CONFIG_HOME"_s, configHome()}}); // not the user's settings
        QVERIFY2(added.exitCode == 0, qPrintable(added.err));
        QVERIFY2(added.err.contains(u"Identity added"_s), qPrintable(added.err));
        QVERIFY(added.out.contains(u"ferry-test (ED25519)"_s));
        QVERIFY(ferry({u"secret"_s, u"delete"_s, u"KEY_PASSPHRASE"_s}).exitCode == 0);
    }

    // Without a working Secret Service every action fails and says what is missing; nothing is
    // stored anywhere instead.
    void noSecretService_data()
    {
        QTest::addColumn<QString>("mode");
        QTest::addColumn<QString>("message");
        QTest::newRow("no D-Bus") << u"no-bus"_s << u"no D-Bus session bus"_s;
        QTest::newRow("no provider")
            << u"no-provider"_s << u"no Secret Service on the session bus: nothing provides org.freedesktop.secrets"_s;
        QTest::newRow("locked") << u"locked"_s << u"the keyring is locked or has no default collection"_s;
    }
    void noSecretService()
    {
        QFETCH(QString, mode);
        QFETCH(QString, message);
        const Result set = run(u"bash"_s,
                               {QStringLiteral(FERRY_KEYRING_SCRIPT), mode, ferry::test::ferryBinary(), u"secret"_s,
                                u"set"_s, u"UNSTORED"_s},
                               m_canary.toUtf8());
        QCOMPARE(set.exitCode, 1);
        QVERIFY2(set.err.contains(u"cannot store secret 'UNSTORED': "_s + message), qPrintable(set.err));
        QVERIFY(set.err.contains(u"hint: "_s));
        QVERIFY(set.err.contains(u"never in a plain file"_s));
        QVERIFY(filesWithCanary(m_home.path()).isEmpty());
        QVERIFY(!ferry({u"secret"_s, u"list"_s}).out.contains(u"UNSTORED"_s));
    }

    // The canary sweep: one secret through every flow, then searched for everywhere Ferry writes.
    void canarySweep()
    {
        // While `set` waits for its input, no process's command line shows the value.
        QProcess waiting;
        waiting.setWorkingDirectory(work());
        waiting.setProcessEnvironment(environment());
        waiting.start(ferry::test::ferryBinary(), {u"secret"_s, u"set"_s, u"CANARY"_s});
        QVERIFY(waiting.waitForStarted());
        waiting.write(m_canary.left(8).toUtf8());
        QTest::qWait(300);
        QProcess ps;
        ps.start(u"ps"_s, {u"-eo"_s, u"args"_s});
        QVERIFY(ps.waitForFinished());
        const QString processes = QString::fromUtf8(ps.readAllStandardOutput());
        QVERIFY(processes.contains(u"secret set CANARY"_s));
        QVERIFY(!processes.contains(m_canary));
        waiting.write(m_canary.mid(8).toUtf8());
        waiting.closeWriteChannel();
        QVERIFY(waiting.waitForFinished(60000));
        QCOMPARE(waiting.exitCode(), 0);

        QCOMPARE(ferry({u"secret"_s, u"get"_s, u"CANARY"_s}).out.trimmed(), m_canary);
        QVERIFY(ferry({u"secret"_s, u"list"_s}).out.contains(u"CANARY"_s));
        QCOMPARE(ferry({u"secret"_s, u"askpass"_s}, {}, {{u"FERRY_ASKPASS_SECRET"_s, u"CANARY"_s}}).out.trimmed(),
                 m_canary);
        // Errors about the secret never quote it.
        const Result bad = ferry({u"secret"_s, u"set"_s, u"CANARY"_s, m_canary});
        QCOMPARE(bad.exitCode, 1);
        QVERIFY(!bad.err.contains(m_canary)); // a value given by mistake is not quoted back
        // settings, the working folder, and the keyring's own files (encrypted at rest)
        QVERIFY2(filesWithCanary(m_home.path()).isEmpty(), qPrintable(filesWithCanary(m_home.path()).join(u", "_s)));
        const QString keyringData = qEnvironmentVariable("XDG_DATA_HOME");
        QVERIFY(!keyringData.isEmpty());
        QVERIFY(QDir(keyringData + u"/keyrings"_s).exists());
        QVERIFY2(filesWithCanary(keyringData).isEmpty(), qPrintable(filesWithCanary(keyringData).join(u", "_s)));
        QVERIFY(ferry({u"secret"_s, u"delete"_s, u"CANARY"_s}).exitCode == 0);
        QVERIFY(filesWithCanary(m_home.path()).isEmpty());
    }
};

} // namespace

FERRY_KEYRING_TEST_MAIN(SecretCliTest)
#include "tst_secretcli.moc"
