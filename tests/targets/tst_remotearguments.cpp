// The argument lists of ssh and rsync without a host (core/targets/sshshell.h, remoteshell.h):
// never a prompt, never an unknown host key, the key Ferry was told to use, and no path read as
// an option. The real ssh and rsync run in tst_sshtarget and tests/security.
#include "targets/remoteshell.h"
#include "targets/sshshell.h"

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
};

QTEST_APPLESS_MAIN(RemoteArgumentsTest)
#include "tst_remotearguments.moc"
