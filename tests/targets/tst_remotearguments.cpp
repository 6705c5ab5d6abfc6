// The argument lists of ssh and rsync without a host (core/targets/sshshell.h, remoteshell.h):
// never a prompt, never an unknown host key, the key Ferry was told to use, and no path read as
// an option. The real ssh and rsync run in tst_sshtarget and tests/security. And the watcher the
// SSH and Slurm runners and a container's entry run (remotescripts.h), run here by sh and bash:
// it writes nowhere but the run's own files.
#include "support/testmain.h"
#include "targets/remotescripts.h"
#include "targets/remoteshell.h"
#include "targets/sshshell.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace ferry::targets;

namespace {

// Every `-o` value.
QStringList optionsOf(const QStringList &args)
{
    QStringList values;
    for (qsizetype i = 0; i + 1 < args.size(); ++i)
        if (args.at(i) == u"-o"_s)
            values << args.at(i + 1);
    return values;
}

SshOptions plainOptions()
{
    SshOptions options;
    options.knownHostsFile = u"/home/u/.config/ferry/known_hosts"_s;
    return options;
}

} // namespace

class RemoteArgumentsTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void sshNeverPromptsAndNeverTakesAnUnknownKey()
    {
        const QStringList o = optionsOf(sshArguments(plainOptions()));
        QVERIFY(o.contains(u"BatchMode=yes"_s));
        QVERIFY(o.contains(u"StrictHostKeyChecking=yes"_s));
        QVERIFY(o.contains(u"UserKnownHostsFile=\"/home/u/.config/ferry/known_hosts\" \"~/.ssh/known_hosts\""_s));
        QVERIFY(o.contains(u"ServerAliveInterval=5"_s));
        QVERIFY(o.contains(u"ConnectTimeout=10"_s));
        QVERIFY(!sshArguments(plainOptions()).contains(u"-i"_s)); // the keys ~/.ssh/config names
        QVERIFY(!sshArguments(plainOptions()).contains(u"-F"_s));
    }

    void aPassphraseFromTheKeychainIsTheOnlyQuestionAllowed()
    {
        SshOptions options = plainOptions();
        options.key.passphraseSecret = u"ssh/gpu1"_s;
        const QStringList o = optionsOf(sshArguments(options));
        QVERIFY(o.contains(u"BatchMode=no"_s));
        QVERIFY(!o.contains(u"BatchMode=yes"_s));
        for (const QString &off : {u"PasswordAuthentication=no"_s, u"KbdInteractiveAuthentication=no"_s,
                                   u"NumberOfPasswordPrompts=1"_s, u"StrictHostKeyChecking=yes"_s})
            QVERIFY2(o.contains(off), qPrintable(off));
    }

    void theChosenKeyIsTheOnlyOneOffered()
    {
        SshOptions options = plainOptions();
        options.key.identityFile = u"/home/u/.ssh/id gpu"_s; // a space stays in its word
        const QStringList args = sshArguments(options);
        QCOMPARE(args.at(args.indexOf(u"-i"_s) + 1), u"/home/u/.ssh/id gpu"_s);
        QVERIFY(optionsOf(args).contains(u"IdentitiesOnly=yes"_s));
    }

    void aConfigFileAndSharedConnectionsAreUsedWhenSet()
    {
        SshOptions options = plainOptions();
        options.configFile = u"/tmp/ssh_config"_s;
        options.controlDir = u"/run/user/1000/ferry-ssh"_s;
        const QStringList args = sshArguments(options);
        QCOMPARE(args.mid(0, 2), (QStringList{u"-F"_s, u"/tmp/ssh_config"_s}));
        const QStringList o = optionsOf(args);
        QVERIFY(o.contains(u"ControlMaster=auto"_s));
        QVERIFY(o.contains(u"ControlPath=/run/user/1000/ferry-ssh/%C"_s));
        QVERIFY(o.contains(u"ControlPersist=60"_s));
        QVERIFY(!optionsOf(sshArguments(plainOptions())).contains(u"ControlMaster=auto"_s));
    }

    // A kernel's forwards (kernelhost/kernellink.h): a connection of their own, whatever master
    // the options or ~/.ssh/config name, with the same host-key rules and key; only forwards.
    void forwardsHaveAConnectionOfTheirOwn()
    {
        SshOptions options = plainOptions();
        options.controlDir = u"/run/user/1000/ferry-ssh"_s;
        options.key.identityFile = u"/home/u/.ssh/id_gpu"_s;
        const QStringList args = sshForwardArguments(
            options, u"-gpu1"_s,
            {{u"/run/l/k-1"_s, u"/tmp/ferry-k-x/k-1"_s}, {u"/run/l/k-5"_s, u"/tmp/ferry-k-x/k-5"_s}});
        QCOMPARE(args.mid(0, 4), (QStringList{u"-o"_s, u"ControlPath=none"_s, u"-o"_s, u"ControlMaster=no"_s}));
        const QStringList o = optionsOf(args);
        QVERIFY(!o.contains(u"ControlMaster=auto"_s));
        for (const QString &on : {u"StrictHostKeyChecking=yes"_s, u"BatchMode=yes"_s, u"IdentitiesOnly=yes"_s,
                                  u"ExitOnForwardFailure=yes"_s, u"StreamLocalBindUnlink=yes"_s})
            QVERIFY2(o.contains(on), qPrintable(on));
        QVERIFY(args.contains(u"-N"_s));
        QCOMPARE(args.at(args.indexOf(u"-L"_s) + 1), u"/run/l/k-1:/tmp/ferry-k-x/k-1"_s);
        QCOMPARE(args.at(args.lastIndexOf(u"-L"_s) + 1), u"/run/l/k-5:/tmp/ferry-k-x/k-5"_s);
        QCOMPARE(args.mid(args.size() - 2), (QStringList{u"--"_s, u"-gpu1"_s})); // no host read as an option
    }

    void rsyncReadsNoPathAsAnOption()
    {
        const QStringList args = rsyncArguments({u"-a"_s}, u"'ssh' '-o' 'BatchMode=yes'"_s, false,
                                                {u"--delete"_s, u"-e touch x"_s}, u"host:-dest"_s);
        QCOMPARE(args, (QStringList{u"-a"_s, u"-e"_s, u"'ssh' '-o' 'BatchMode=yes'"_s, u"--"_s, u"--delete"_s,
                                    u"-e touch x"_s, u"host:-dest"_s}));
    }

    void rsyncHereHasNoRemoteShellAndReportsProgressWhenAsked()
    {
        const QStringList args = rsyncArguments({u"-a"_s}, {}, true, {u"src/"_s}, u"/dst"_s);
        QVERIFY(!args.contains(u"-e"_s));
        QVERIFY(args.indexOf(u"--info=progress2"_s) < args.indexOf(u"--"_s));
        QVERIFY(args.indexOf(u"--no-inc-recursive"_s) < args.indexOf(u"--"_s));
        QCOMPARE(args.last(), u"/dst"_s);
    }

    void theRemoteShellOfRsyncIsQuotedTheWayRsyncSplits()
    {
        const auto line = rsyncCommandLine({u"ssh"_s, u"-o"_s, u"UserKnownHostsFile=/a b/it's"_s});
        QVERIFY(line);
        QCOMPARE(*line, u"'ssh' '-o' 'UserKnownHostsFile=/a b/it''s'"_s);
        QVERIFY(!rsyncCommandLine({u"a\0b"_s}));
    }

    // L5 (review 2026-12-06): the watcher wrote each sample block to ${TMPDIR:-/tmp}/ferry-sample.$$
    // with '>' on shared SSH and Slurm hosts, where another user's link at that predictable name
    // was truncated and written through (fs.protected_symlinks off). Now it makes no temp file at
    // all: the block is gathered in memory and appended to the run's system.samples.
    void theWatcherWritesOnlyTheRunsFiles_data()
    {
        QTest::addColumn<QString>("shell");
        QTest::newRow("sh (a container's entry)") << u"sh"_s;
        QTest::newRow("bash (the SSH and Slurm runners)") << u"bash"_s;
    }

    void theWatcherWritesOnlyTheRunsFiles()
    {
        QFETCH(QString, shell);
        const QString script = QString::fromLatin1(scripts::watcher);
        QVERIFY(!script.contains(u"/tmp"_s) && !script.contains(u"TMPDIR"_s) && !script.contains(u"mktemp"_s));
        QTemporaryDir run, tmp;
        QFile log(run.filePath(u"log"_s));
        QVERIFY(log.open(QIODevice::WriteOnly) && log.write("a line\n") == 7);
        log.close();
        QProcess watcher;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(u"TMPDIR"_s, tmp.path());
        watcher.setProcessEnvironment(env);
        watcher.start(shell, {u"-c"_s,
                              script + u"sleep 1.5 & ferry_watch \"$1/log\" \"$1/log.times\" \"$1/system.samples\" '' "
                                       u"$! \"$1/heartbeat\""_s,
                              shell, run.path()});
        QVERIFY(watcher.waitForFinished(30000));
        QCOMPARE(watcher.exitCode(), 0);
        QFile samples(run.filePath(u"system.samples"_s));
        QVERIFY(samples.open(QIODevice::ReadOnly));
        const QByteArray block = samples.readAll();
        QVERIFY2(block.startsWith("sample 0 ") && block.endsWith("\nend\n"), block.constData());
        QCOMPARE(QDir(run.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden),
                 (QStringList{u"heartbeat"_s, u"log"_s, u"log.times"_s, u"system.samples"_s}));
        QCOMPARE(QDir(tmp.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden), QStringList());
    }
};

FERRY_TEST_APPLESS_MAIN(RemoteArgumentsTest)
#include "tst_remotearguments.moc"
