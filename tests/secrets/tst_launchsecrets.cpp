// Secrets in the window (support/keyring.h: a real gnome-keyring): the launch dialog shows the
// environment's secret variables by name and adds --secret-env style ones from the keychain's
// names; the run monitor worker shows nothing of a run with secrets until the window's keychain
// has given their values (asynchronously, RunSecretsReader), then only redacted lines.
#include "support/keyring.h"
#include "support/testenv.h"

#include "env/formats.h"
#include "run/rundirectory.h"
#include "run/runsecrets.h"
#include "secrets/secretstore.h"
#include "targets/targetfactory.h"
#include "ui/launch/launchdialog.h"
#include "ui/launch/secretvariablesbox.h"
#include "ui/session/runmonitorworker.h"
#include "ui/session/runsecretsreader.h"

#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QSettings>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>

using namespace Qt::StringLiterals;
using namespace ferry;

class TestLaunchSecrets : public QObject {
    Q_OBJECT

    QTemporaryDir m_ws;

    void write(const QString &name, const QByteArray &bytes)
    {
        QDir().mkpath(QFileInfo(m_ws.filePath(name)).absolutePath());
        QFile f(m_ws.filePath(name));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(bytes);
    }

private Q_SLOTS:
    void initTestCase()
    {
        write(u"train.py"_s, "print('hi')\n");
        write(u"environments/tokens.yml"_s, "ferry: 1\nname: tokens\npython:\n  interpreter: /usr/bin/python3\n"
                                            "  user_managed: true\nvariables:\n  PLAIN: x\n"
                                            "  HF_TOKEN: {secret: hf-token}\n");
    }

    void dialogShowsAndAddsSecretVariables()
    {
        QSettings settings(m_ws.filePath(u"settings.ini"_s), QSettings::IniFormat);
        ui::LaunchDialog dialog(settings, m_ws.path());
        dialog.setScript(m_ws.filePath(u"train.py"_s));
        dialog.setSecretNames({u"wandb-key"_s, u"hf-token"_s});
        auto *environment = dialog.findChildren<QComboBox *>().at(1);
        environment->setCurrentIndex(environment->findText(u"environments/tokens.yml"_s));
        ui::SecretVariablesBox *box = dialog.secretVariables();
        QCOMPARE(box->environmentLabel()->text(), u"From the environment: HF_TOKEN ← hf-token"_s);
        QVERIFY(!box->environmentLabel()->text().contains(u"PLAIN"_s));
        box->addVariable(); // the first known secret, its variable named after it
        QCOMPARE(box->table()->item(0, 0)->text(), u"WANDB_KEY"_s);
        box->addVariable(u"EXTRA"_s, u"hf-token"_s);
        run::RunSpec spec = dialog.spec();
        QCOMPARE(spec.secretVariables,
                 (QList<std::pair<QString, QString>>{{u"WANDB_KEY"_s, u"wandb-key"_s}, {u"EXTRA"_s, u"hf-token"_s}}));
        // At launch the environment's come first; one given for the run wins over the file's.
        spec.secretVariables << std::pair{u"HF_TOKEN"_s, u"wandb-key"_s};
        run::addEnvironmentSecrets(spec, env::readEnvironment(spec.environmentFile).environment);
        QCOMPARE(spec.secretVariables,
                 (QList<std::pair<QString, QString>>{
                     {u"WANDB_KEY"_s, u"wandb-key"_s}, {u"EXTRA"_s, u"hf-token"_s}, {u"HF_TOKEN"_s, u"wandb-key"_s}}));
        environment->setCurrentIndex(0);
        QCOMPARE(box->environmentLabel()->text(), u"The environment has no secret variables."_s);
    }

    void monitorWaitsForTheKeychainThenRedacts()
    {
        QSettings settings(m_ws.filePath(u"settings.ini"_s), QSettings::IniFormat);
        secrets::SecretStore store(settings);
        QVERIFY(store.writeNow(u"hf-token"_s, u"tok-9f8e7d"_s));
        // A run whose log (written here, unredacted) prints the value.
        QVERIFY(QDir().mkpath(m_ws.filePath(u".ferry/runs"_s)));
        auto runStore = run::RunStore::open(m_ws.filePath(u".ferry/runs.sqlite"_s));
        QVERIFY(runStore);
        run::RunSpec spec;
        spec.script = u"train.py"_s;
        spec.sourceDir = m_ws.path();
        spec.id = run::newRunId(spec.script);
        spec.secretVariables = {{u"HF_TOKEN"_s, u"hf-token"_s}, {u"GONE"_s, u"not-stored"_s}};
        const run::RunDirectory dir(m_ws.filePath(u".ferry/runs/"_s + spec.id));
        QVERIFY(QDir().mkpath(dir.path()));
        QVERIFY(dir.writeSpec(spec));
        QFile log(dir.logFile());
        QVERIFY(log.open(QIODevice::WriteOnly));
        log.write("token tok-9f8e7d\n");
        log.close();
        QVERIFY(dir.writeExit(run::ExitRecord{0, 0, run::nowMs(), false, {}}));
        run::RunRecord record = run::newRunRecord(spec);
        record.status = run::RunStatus::Running;
        (*runStore)->createRun(record);
        (*runStore)->flush();

        ui::RunMonitorWorker worker(**runStore, m_ws.filePath(u".ferry/runs"_s), [](const run::TargetSpec &target) {
            return targets::makeTarget(target, ferry::test::ferryBinary());
        });
        ui::RunSecretsReader reader(&store);
        connect(&worker, &ui::RunMonitorWorker::secretsNeeded, &reader, &ui::RunSecretsReader::read);
        connect(&reader, &ui::RunSecretsReader::valuesRead, &worker, &ui::RunMonitorWorker::setRunSecrets);
        QSignalSpy needed(&worker, &ui::RunMonitorWorker::secretsNeeded);
        QSignalSpy read(&reader, &ui::RunSecretsReader::valuesRead);
        QList<QByteArray> shown;
        connect(&worker, &ui::RunMonitorWorker::logLines, this,
                [&shown](const QString &, const QList<QByteArray> &lines) { shown += lines; });
        worker.poll();
        QCOMPARE(needed.size(), 1);
        QCOMPARE(needed.first().at(1).toStringList(), (QStringList{u"hf-token"_s, u"not-stored"_s}));
        QVERIFY(shown.isEmpty());  // nothing before the values
        QVERIFY(read.wait(30000)); // the keychain answered, asynchronously; the missing one is left out
        QCOMPARE(read.first().at(1).toStringList(), QStringList{u"tok-9f8e7d"_s});
        QVERIFY(QTest::qWaitFor([&] { return !shown.isEmpty(); }, 10000));
        QVERIFY2(shown.join('\n').contains("token ***"), shown.join('\n').constData());
        QVERIFY(!shown.join('\n').contains("tok-9f8e7d"));
        QVERIFY(store.removeNow(u"hf-token"_s));
    }
};

FERRY_KEYRING_TEST_MAIN_APP(QApplication, TestLaunchSecrets)

#include "tst_launchsecrets.moc"
