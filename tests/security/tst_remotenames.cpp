// What names a place on a host is checked before anything reaches it (review
// security-2026-12-01; issue 14 item 9):
// - L2: host names (rsync passes the host to ssh without `--`): a leading '-', a blank or a
//   control character is refused with a clear error, from the CLI and from a spec.json; an
//   `ssh:-oProxyCommand=...` target never runs its command.
// - L10: data already on the host (remoteChannels) is named like a channel and its path holds
//   no ',' (it reaches docker's --mount as one value).
// - L9: a remote folder written `~/x` is the home's x, not a folder named '~' (real sshd).
#include "run/runspec.h"
#include "targets/sshtarget.h"

#include "support/remote.h"
#include "support/targets.h"
#include "support/testmain.h"

#include <QDir>
#include <QFile>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>
#include <QUuid>

using namespace Qt::StringLiterals;
using namespace ferry;
using ferry::test::ferryCli;
using ferry::test::kHost;
using ferry::test::SshSandbox;

class TestRemoteNames : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void hostNamesAreValidated_data()
    {
        QTest::addColumn<QString>("target");
        QTest::addColumn<QString>("why");
        QTest::newRow("option") << u"ssh:-oProxyCommand=touch x"_s << u"starts with '-'"_s;
        QTest::newRow("slurm option") << u"slurm:-F/tmp/evil"_s << u"starts with '-'"_s;
        QTest::newRow("blank") << u"ssh:gpu1 -oProxyCommand=x"_s << u"blank or a control character"_s;
        QTest::newRow("tab") << u"ssh:gpu1\tx"_s << u"blank or a control character"_s;
        QTest::newRow("newline") << u"slurm:gpu1\nx"_s << u"blank or a control character"_s;
        QTest::newRow("escape") << u"ssh:gpu\x1b[2J"_s << u"blank or a control character"_s;
    }

    void hostNamesAreValidated()
    {
        QFETCH(QString, target);
        QFETCH(QString, why);
        const auto parsed = run::TargetSpec::parse(target);
        QVERIFY(!parsed);
        QVERIFY2(parsed.error().message.contains(why), qPrintable(parsed.error().message));
        QVERIFY(!parsed.error().hint.isEmpty());
        // A spec.json holding it (a copied run folder) is refused the same way.
        run::RunSpec spec;
        spec.id = u"x"_s;
        spec.script = u"x.py"_s;
        QJsonObject json = spec.toJson();
        json[u"target"_s] = QJsonObject{{u"kind"_s, target.section(u':', 0, 0)}, {u"host"_s, target.section(u':', 1)}};
        QVERIFY(!run::RunSpec::fromJson(json));
        // A spec built without parse (the launch dialog's fields) is refused before the launch.
        spec.target.kind = target.startsWith(u"ssh:"_s) ? run::TargetKind::Ssh : run::TargetKind::Slurm;
        spec.target.host = target.section(u':', 1);
        spec.target.options[u"remoteDir"_s] = u"/r"_s;
        spec.sourceDir = QStringLiteral(FERRY_TEST_DATA "/runs/scripts");
        spec.script = u"metrics.py"_s;
        const QList<Error> errors = run::validateRunSpec(spec);
        QCOMPARE(errors.size(), 1);
        QVERIFY2(errors.first().message.contains(why), qPrintable(errors.first().message));
    }

    void goodHostNamesPass()
    {
        for (const QString &target :
             {u"ssh:gpu1"_s, u"ssh:user@gpu1.example.org"_s, u"slurm:local"_s, u"ssh:10.0.0.7"_s, u"slurm:login-1"_s})
            QVERIFY2(run::TargetSpec::parse(target), qPrintable(target));
    }

    // The attack from the CLI: the ProxyCommand would run on this machine.
    void optionAsHostRunsNothing()
    {
        const SshSandbox sandbox;
        QTemporaryDir ws;
        QFile script(ws.filePath(u"hello.py"_s));
        QVERIFY(script.open(QIODevice::WriteOnly));
        script.write("print('hello')\n");
        script.close();
        const QString pwned = ws.filePath(u"pwned"_s);
        const auto ran = ferryCli(sandbox, ws.path(),
                                  {u"run"_s, u"hello.py"_s, u"--target"_s, u"ssh:-oProxyCommand=touch "_s + pwned,
                                   u"--remote-dir"_s, ws.filePath(u"host"_s)});
        QCOMPARE(ran.exitCode, 1);
        QVERIFY2(ran.err.contains(u"starts with '-'"_s), qPrintable(ran.err));
        QVERIFY(!QFile::exists(pwned));
        QVERIFY(!QFile::exists(ws.filePath(u"host"_s)));
    }

    void remoteChannelsAreValidated_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("path");
        QTest::newRow("comma in path") << u"train"_s << u"/data,readonly=false"_s;
        QTest::newRow("mount options") << u"train"_s << u"/data,source=/,target=/opt/ml/code"_s;
        QTest::newRow("comma in name") << u"a,readonly=false"_s << u"/data"_s;
        QTest::newRow("upper case") << u"Train"_s << u"/data"_s;
        QTest::newRow("relative") << u"train"_s << u"data"_s;
        QTest::newRow("newline") << u"train"_s << u"/data\n/x"_s;
    }

    void remoteChannelsAreValidated()
    {
        QFETCH(QString, name);
        QFETCH(QString, path);
        QTemporaryDir ws;
        QFile script(ws.filePath(u"hello.py"_s));
        QVERIFY(script.open(QIODevice::WriteOnly));
        script.close();
        run::RunSpec spec = ferry::test::remoteSpec(u"ssh:"_s + kHost, ws.path(), u"hello.py"_s, u"/r"_s);
        QVERIFY(run::validateRunSpec(spec).isEmpty());
        spec.target.options[u"remoteChannels"_s] = QJsonObject{{name, path}};
        const QList<Error> errors = run::validateRunSpec(spec);
        QCOMPARE(errors.size(), 1);
        QVERIFY2(errors.first().message.contains(u"channel"_s), qPrintable(errors.first().message));
    }

    // From the CLI: refused before anything is made on the host.
    void remoteChannelWithCommaNeverReachesTheHost()
    {
        const SshSandbox sandbox;
        QTemporaryDir ws;
        QFile script(ws.filePath(u"hello.py"_s));
        QVERIFY(script.open(QIODevice::WriteOnly));
        script.write("print('hello')\n");
        script.close();
        const auto ran = ferryCli(sandbox, ws.path(),
                                  {u"run"_s, u"hello.py"_s, u"--target"_s, u"ssh:"_s + kHost, u"--remote-dir"_s,
                                   ws.filePath(u"host"_s), u"--remote-data"_s, u"train=/data,source=/"_s});
        QCOMPARE(ran.exitCode, 1);
        QVERIFY2(ran.err.contains(u"without ','"_s), qPrintable(ran.err));
        QVERIFY(!QFile::exists(ws.filePath(u"host"_s)));
    }

    void tildeRemoteDirIsTheHome()
    {
        const SshSandbox sandbox;
        QTemporaryDir ws;
        QFile script(ws.filePath(u"hello.py"_s));
        QVERIFY(script.open(QIODevice::WriteOnly));
        script.write("print('hello')\n");
        script.close();
        const QString name = u".ferry-l9-"_s + QUuid::createUuid().toString(QUuid::Id128).left(12);
        run::RunSpec spec = ferry::test::remoteSpec(u"ssh:"_s + kHost, ws.path(), u"hello.py"_s, u"~/"_s + name);
        targets::SshTarget target(kHost, sandbox.options());
        const QString runDir = ws.filePath(u"run"_s);
        const auto started = target.start(runDir, spec);
        const auto record = targets::RemoteRecord::read(runDir);
        QVERIFY(ferry::test::waitFor(
            [&] { return ferry::test::probeOf(target, runDir).state != targets::RunState::Running; }, 60000, 200));
        QDir(QDir::home().filePath(name)).removeRecursively();
        QVERIFY2(started, qPrintable(ferry::test::errorOf(started)));
        QVERIFY(record && record->has_value());
        QCOMPARE((*record)->dir, QDir::home().filePath(name + u'/' + spec.id));
        QVERIFY(!QFileInfo::exists(QDir::home().filePath(u"~"_s)));

        // ~user is not guessed.
        spec.id = run::newRunId(u"hello.py"_s);
        spec.target.options[u"remoteDir"_s] = u"~root/x"_s;
        const auto refused = target.start(ws.filePath(u"run2"_s), spec);
        QVERIFY(!refused);
        QVERIFY2(refused.error().message.contains(u"'~' but not '~/'"_s), qPrintable(refused.error().message));
        QVERIFY(!QFileInfo::exists(QDir::home().filePath(u"~root"_s)));
    }
};

FERRY_TEST_GUILESS_MAIN(TestRemoteNames)
#include "tst_remotenames.moc"
