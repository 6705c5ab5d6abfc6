// Review L1: ssh hands its command line to the remote user's login shell. In fish (and tcsh) a
// backslash inside single quotes escapes the quote, so POSIX quoting of two adjacent words, one
// ending in `\` and the next chosen by someone else, breaks out and runs a command. Against the
// real test sshd with a real user whose login shell is fish (made here, with the fixture's key): the old command line
// runs the planted command (the attack is real), Ferry's command line delivers every word exactly and runs nothing
// else.
#include "targets/shellquote.h"

#include "support/remote.h"
#include "support/testmain.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace ferry::targets;
using namespace ferry::test;

namespace {

const QString kUser = u"ferryfish"_s;
const QString kFishHost = u"ferryfish"_s;

int runLocal(const QString &program, const QStringList &args, QByteArray *out = nullptr)
{
    const CliResult r = runProgram(program, args, {}, 60000);
    if (out)
        *out = (r.out + r.err).toUtf8();
    return r.exitCode;
}

} // namespace

class TestLoginShell : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    SshSandbox m_sandbox;
    QString m_config;
    QString m_marker;

    SshShell fishShell() const
    {
        SshOptions o = m_sandbox.options();
        o.configFile = m_config;
        return SshShell(kFishHost, o);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(QFile::exists(u"/usr/bin/fish"_s), "fish is missing: packaging/install-deps.sh test");
        // A user whose login shell is fish; the test sshd takes the fixture's key for every user.
        QByteArray out;
        if (runLocal(u"id"_s, {kUser}) != 0)
            QVERIFY2(runLocal(u"useradd"_s, {u"-m"_s, u"-s"_s, u"/usr/bin/fish"_s, u"-p"_s, u"*"_s, kUser}, &out) == 0,
                     out.constData());
        QVERIFY(runLocal(u"getent"_s, {u"passwd"_s, kUser}, &out) == 0);
        QVERIFY2(out.trimmed().endsWith("/usr/bin/fish"), out.constData());
        // Its key: the fixture's, in its own ~/.ssh (sshd reads it as that user).
        const QString home = QString::fromUtf8(out.trimmed()).section(u':', 5, 5);
        QVERIFY(QDir().mkpath(home + u"/.ssh"_s));
        QVERIFY(QFile::remove(home + u"/.ssh/authorized_keys"_s) || !QFile::exists(home + u"/.ssh/authorized_keys"_s));
        QVERIFY(QFile::copy(sshdDir() + u"/id_ed25519.pub"_s, home + u"/.ssh/authorized_keys"_s));
        QVERIFY(runLocal(u"chown"_s, {u"-R"_s, kUser + u':' + kUser, home + u"/.ssh"_s}) == 0);

        QFile port(sshdDir() + u"/port"_s);
        QVERIFY(port.open(QIODevice::ReadOnly));
        m_config = m_dir.filePath(u"ssh_config"_s);
        QFile config(m_config);
        QVERIFY(config.open(QIODevice::WriteOnly));
        config.write("Host " + kFishHost.toUtf8() + "\n  HostName 127.0.0.1\n  Port " + port.readAll().trimmed() +
                     "\n  User " + kUser.toUtf8() + "\n  IdentityFile " + sshdDir().toUtf8() +
                     "/id_ed25519\n  IdentitiesOnly yes\n");
        config.close();
        m_marker = u"/tmp/ferry-loginshell-marker-"_s + QString::number(QCoreApplication::applicationPid());
        QFile::remove(m_marker);
    }

    void cleanupTestCase()
    {
        fishShell().closeMaster();
        QFile::remove(m_marker);
    }

    // The attack, on the quoting alone: with fish as the login shell it runs `touch`.
    void posixQuotingAloneBreaksOutInFish()
    {
        const QStringList words{u"echo"_s, u"x\\"_s, u"; touch "_s + m_marker + u" #"_s};
        const QString line = *shellCommandLine(words);
        QByteArray out;
        const int code =
            runLocal(u"ssh"_s,
                     {u"-F"_s, m_config, u"-o"_s, u"BatchMode=yes"_s, u"-o"_s, u"StrictHostKeyChecking=yes"_s, u"-o"_s,
                      u"UserKnownHostsFile="_s + m_sandbox.knownHosts(), u"-o"_s, u"ControlPath=none"_s, u"--"_s,
                      kFishHost, line},
                     &out);
        Q_UNUSED(code); // fish may or may not complain about the rest of the line
        QVERIFY2(QFile::exists(m_marker), out.constData());
        QFile::remove(m_marker);
    }

    // Ferry's command line: the same words arrive as they are, and nothing else runs.
    void ferrysCommandLineDeliversEveryWord()
    {
        SshShell shell = fishShell();
        const QStringList words{u"x\\"_s,
                                u"; touch "_s + m_marker + u" #"_s,
                                u"it's"_s,
                                u"\\'"_s,
                                u"$HOME (echo fish) {a,b} *"_s,
                                u"trailing\\"_s,
                                u"'"_s,
                                u"🚀"_s};
        const ShellResult r =
            shell.run(QStringList{u"bash"_s, u"-c"_s, u"printf '%s\\0' \"$@\""_s, u"ferry"_s} + words);
        QVERIFY2(r.ok(), qPrintable(r.errorText()));
        QByteArray out = r.out;
        QVERIFY(out.endsWith('\0'));
        out.chop(1);
        QStringList seen;
        for (const QByteArray &arg : out.split('\0'))
            seen << QString::fromUtf8(arg);
        QCOMPARE(seen, words);
        QVERIFY(!QFile::exists(m_marker));
        // And the shell that received it really was fish.
        const ShellResult who = shell.run({u"sh"_s, u"-c"_s, u"getent passwd \"$(id -un)\" | cut -d: -f7"_s});
        QVERIFY2(who.ok(), qPrintable(who.errorText()));
        QCOMPARE(who.out.trimmed(), QByteArray("/usr/bin/fish"));
    }
};

FERRY_TEST_GUILESS_MAIN(TestLoginShell)
#include "tst_loginshell.moc"
