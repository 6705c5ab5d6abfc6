// An SSH run in the environment's image, built on the host (here: 127.0.0.1 through the test
// sshd, with the private engine of the `docker` fixture): the SageMaker-style script runs
// unchanged in the container and its model.tar.gz comes back; cancel leaves neither a
// container nor a process of the run.
#include "targets/sshtarget.h"

#include "env/formats.h"
#include "env/spechash.h"
#include "run/archive.h"
#include "support/remote.h"
#include "support/targets.h"
#include "support/testmain.h"

#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace ferry::targets;
using ferry::run::RunDirectory;
using ferry::run::RunSpec;
using namespace ferry::test;

class TestSshImage : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_ws.isValid());
        const SshSandbox sandbox;
        SshShell shell = sandbox.shell();
        const ShellResult base = shell.run({u"docker"_s, u"image"_s, u"inspect"_s, u"ferry-base:bookworm"_s});
        QVERIFY2(base.ok(), "no engine or base image behind the test sshd: run the docker fixture first");
        m_envFile = m_ws.filePath(u"env.yml"_s);
        QFile env(m_envFile);
        QVERIFY(env.open(QIODevice::WriteOnly));
        env.write("ferry: 1\nname: tst-sshimage\nversion: \"1\"\n"
                  "docker:\n  base_image: ferry-base:bookworm\n  shm_size: 256m\n  gpu: auto\n"
                  "python:\n  interpreter: python3\n  user_managed: true\n"
                  "variables:\n  FERRY_TEST_VAR: \"hello world; $(echo no)\"\n");
        env.close();
        m_image = ferry::env::imageReference(ferry::env::readEnvironment(m_envFile).environment);
        shell.run({u"docker"_s, u"rmi"_s, u"-f"_s, m_image}); // built by the first run, really
    }

    void sageMakerScriptRunsInTheImage()
    {
        const SshSandbox sandbox;
        QTemporaryDir ws;
        RunSpec spec;
        spec.id = u"ml"_s; // the script expects the folder it is given to end in its job name
        spec.script = u"train.py"_s;
        spec.sourceDir = kSageMaker;
        spec.environmentFile = m_envFile;
        spec.target = *ferry::run::TargetSpec::parse(u"ssh:"_s + kHost);
        spec.target.options[u"remoteDir"_s] = ws.filePath(u"host"_s);
        spec.channels = {{u"training"_s, kSageMaker + u"/data/training"_s},
                         {u"validation"_s, kSageMaker + u"/data/validation"_s}};
        spec.hyperparameters = sageMakerHyperparameters(u"/opt/ml"_s, u"/opt/ml/input/data/training"_s,
                                                        u"/opt/ml/input/data/validation"_s);
        const QString runDir = ws.filePath(u"run"_s);
        SshTarget target(kHost, sandbox.options());
        const auto started = target.start(runDir, spec);
        QVERIFY2(started, qPrintable(started ? QString() : started.error().toString()));
        QVERIFY(ferry::test::waitFor([&] { return probeOf(target, runDir).finished(); }, 300000, 200));
        const RunProbe status = probeOf(target, runDir);
        QVERIFY2(status.state == RunState::Succeeded, logOf(runDir).constData());
        QVERIFY(ferry::run::archiveEntries(RunDirectory(runDir).modelArchive())->contains(u"model.pth"_s));
        const QByteArray log = logOf(runDir);
        QVERIFY2(log.contains("Successfully built") || log.contains("image there"), log.constData());
        QCOMPARE(log.count("epoch="), 3);
        SshShell shell = sandbox.shell();
        QVERIFY(shell.run({u"docker"_s, u"image"_s, u"inspect"_s, m_image}).ok());
    }

    void cancelLeavesNoContainer()
    {
        const SshSandbox sandbox;
        QTemporaryDir ws;
        RunSpec spec;
        spec.id = ferry::run::newRunId(u"waiter.py"_s);
        spec.script = u"waiter.py"_s;
        spec.sourceDir = kScripts;
        spec.environmentFile = m_envFile;
        spec.target = *ferry::run::TargetSpec::parse(u"ssh:"_s + kHost);
        spec.target.options[u"remoteDir"_s] = ws.filePath(u"host"_s);
        spec.hyperparameters = {{u"go-file"_s, u"/nonexistent/never"_s}};
        const QString runDir = ws.filePath(u"run"_s);
        SshTarget target(kHost, sandbox.options());
        const auto started = target.start(runDir, spec);
        QVERIFY2(started, qPrintable(started ? QString() : started.error().toString()));
        SshShell shell = sandbox.shell();
        const QStringList ps{u"docker"_s, u"ps"_s, u"-q"_s, u"--filter"_s, u"label=ferry.run-id="_s + spec.id};
        QVERIFY(ferry::test::waitFor(
            [&] {
                probeOf(target, runDir);
                return logOf(runDir).contains("waiting for");
            },
            120000, 200));
        QVERIFY(!shell.run(ps).out.trimmed().isEmpty());
        const auto cancelled = target.cancel(runDir, 2000);
        QVERIFY2(cancelled, qPrintable(cancelled ? QString() : cancelled.error().toString()));
        QCOMPARE(cancelled->state, RunState::Cancelled);
        QCOMPARE(shell.run(ps).out.trimmed(), QByteArray());
        RemoteRun remote(shell, runDir);
        QCOMPARE(*remote.markedProcesses(**RemoteRecord::read(runDir)), QList<qint64>{});
    }

private:
    QTemporaryDir m_ws;
    QString m_envFile;
    QString m_image;
};

FERRY_TEST_GUILESS_MAIN(TestSshImage)
#include "tst_sshimage.moc"
