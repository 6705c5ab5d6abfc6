// M2 (review security-2026-12-01, issue 14 "secrets leave nothing behind"): a start that fails
// after the secret variables were sent to the host removes them there. The real keyring
// (tests/secrets/support/keyring.h) holds the secret; the real Slurm refuses the job (a
// partition it does not have), on this machine and through the test sshd; then no `secrets/`
// folder is left in the run's folder on the host, and no file there holds the value.
#include "targets/slurmtarget.h"

#include "secrets/secretstore.h"
#include "support/keyring.h"
#include "support/remote.h"

#include <QDir>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace ferry;
using namespace ferry::targets;
using ferry::test::SshSandbox;

class TestRemoteSecrets : public QObject {
    Q_OBJECT

    const QString m_canary = u"canary-7f3a9c2e51d4b8a6"_s;

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(!qEnvironmentVariableIsEmpty("SLURM_CONF"), "the slurm fixture sets SLURM_CONF");
        QSettings settings;
        secrets::SecretStore store(settings);
        QVERIFY(store.writeNow(u"REMOTE_CANARY"_s, m_canary));
    }

    void refusedSubmissionLeavesNoSecrets_data()
    {
        QTest::addColumn<QString>("host");
        QTest::newRow("slurm:local") << u"local"_s;
        QTest::newRow("slurm:ferrytest") << ferry::test::kHost;
    }

    void refusedSubmissionLeavesNoSecrets()
    {
        QFETCH(QString, host);
        const SshSandbox sandbox;
        QTemporaryDir ws;
        QDir().mkpath(ws.filePath(u"src"_s));
        QFile script(ws.filePath(u"src/token.py"_s));
        QVERIFY(script.open(QIODevice::WriteOnly));
        script.write("import os\nprint(len(os.environ['HF_TOKEN']))\n");
        script.close();
        run::RunSpec spec =
            ferry::test::remoteSpec(u"slurm:"_s + host, ws.filePath(u"src"_s), u"token.py"_s, ws.filePath(u"host"_s));
        spec.secretVariables = {{u"HF_TOKEN"_s, u"REMOTE_CANARY"_s}};
        spec.target.options[u"partition"_s] = u"nosuchpartition"_s; // sbatch refuses it
        const QString runDir = ws.filePath(u"run"_s);
        SlurmTarget target(host, sandbox.options());
        const auto started = target.start(runDir, spec);
        QVERIFY(!started);
        QVERIFY2(started.error().message.contains(u"refused the job"_s), qPrintable(started.error().toString()));

        const QString hostDir = ws.filePath(u"host/"_s + spec.id);
        QVERIFY2(QFile::exists(hostDir + u"/runner.sh"_s), "the upload reached the host");
        QVERIFY2(!QFileInfo::exists(hostDir + u"/secrets"_s), "the secrets folder was removed");
        QCOMPARE(ferry::test::filesHolding(ws.filePath(u"host"_s), m_canary), QStringList());
        QCOMPARE(ferry::test::filesHolding(runDir, m_canary), QStringList());
    }
};

FERRY_KEYRING_TEST_MAIN(TestRemoteSecrets)
#include "tst_remotesecrets.moc"
