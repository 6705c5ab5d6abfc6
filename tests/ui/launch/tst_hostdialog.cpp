// The GUI for remote targets: the launch dialog's SSH and Slurm fields become the target's
// host and options (and are remembered per script), and a host's page asks before trusting an
// unknown host key, then shows what the host offers (against the real test sshd).
#include "run/distribution.h"
#include "ui/launch/hostdialog.h"
#include "ui/launch/launchdialog.h"
#include "ui/launch/remotetargetfields.h"

#include "support/remote.h"
#include "support/testmain.h"

#include <QComboBox>
#include <QJsonArray>
#include <QJsonObject>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using ferry::ui::HostDialog;
using ferry::ui::LaunchDialog;

class TestHostDialog : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void launchDialogGivesTheRemoteTarget()
    {
        QTemporaryDir ws;
        QFile script(ws.filePath(u"train.py"_s));
        QVERIFY(script.open(QIODevice::WriteOnly));
        script.write("print('hi')\n");
        script.close();
        QSettings settings(ws.filePath(u"settings.ini"_s), QSettings::IniFormat);
        LaunchDialog dialog(settings, ws.path());
        auto *fields = dialog.remoteFields();
        QVERIFY(!fields->isVisibleTo(&dialog)); // local by default
        dialog.targetBox()->setCurrentIndex(dialog.targetBox()->findData(u"ssh"_s));
        QVERIFY(fields->isVisibleTo(&dialog));
        QVERIFY(!fields->partitionEdit()->isVisibleTo(&dialog));
        QVERIFY(dialog.problem().contains(u"host"_s));
        fields->hostEdit()->setText(u"gpu-box"_s);
        fields->gpusBox()->setValue(2);
        QVERIFY(dialog.problem().isEmpty());
        ferry::run::RunSpec spec = dialog.spec();
        QCOMPARE(spec.target.toString(), u"ssh:gpu-box"_s);
        QCOMPARE(spec.target.options[u"gpus"_s].toInt(), 2);
        QVERIFY(!spec.target.options.contains(u"remoteDir"_s));
        // Where runs go there, what stays home, data already there.
        fields->remoteDirEdit()->setText(u"/scratch/me/runs"_s);
        fields->excludeEdit()->setText(u"*.ckpt  data/raw"_s);
        fields->remoteDataEdit()->setText(u"imagenet"_s);
        QVERIFY2(dialog.problem().contains(u"NAME=/absolute"_s), qPrintable(dialog.problem()));
        fields->remoteDataEdit()->setText(u"imagenet=/data/imagenet; text = /data/my text"_s);
        QVERIFY2(dialog.problem().isEmpty(), qPrintable(dialog.problem()));
        spec = dialog.spec();
        QCOMPARE(spec.target.options[u"remoteDir"_s].toString(), u"/scratch/me/runs"_s);
        QCOMPARE(spec.target.options[u"exclude"_s].toArray(), (QJsonArray{u"*.ckpt"_s, u"data/raw"_s}));
        QCOMPARE(spec.target.options[u"remoteChannels"_s].toObject(),
                 (QJsonObject{{u"imagenet"_s, u"/data/imagenet"_s}, {u"text"_s, u"/data/my text"_s}}));

        dialog.targetBox()->setCurrentIndex(dialog.targetBox()->findData(u"slurm"_s));
        QVERIFY(fields->partitionEdit()->isVisibleTo(&dialog));
        fields->partitionEdit()->setText(u"debug"_s);
        spec = dialog.spec();
        QCOMPARE(spec.target.toString(), u"slurm:gpu-box"_s);
        QCOMPARE(spec.target.options[u"partition"_s].toString(), u"debug"_s);
        QCOMPARE(spec.target.options[u"gpus"_s].toInt(), 2);
        QVERIFY(!spec.target.options.contains(u"nodes"_s)); // one node, one task: today's run

        // A run across nodes: the GPUs asked are each node's.
        QVERIFY(fields->nodesBox()->isVisibleTo(&dialog));
        fields->nodesBox()->setValue(2);
        fields->tasksPerNodeBox()->setValue(2);
        spec = dialog.spec();
        QCOMPARE(spec.target.options[u"nodes"_s].toInt(), 2);
        QCOMPARE(spec.target.options[u"tasksPerNode"_s].toInt(), 2);
        QCOMPARE(spec.target.options[u"gpusPerNode"_s].toInt(), 2);
        QVERIFY(!spec.target.options.contains(u"gpus"_s));
        const auto distribution = ferry::run::Distribution::of(spec.target);
        QVERIFY(distribution && distribution->worldSize() == 4);
        dialog.targetBox()->setCurrentIndex(dialog.targetBox()->findData(u"ssh"_s));
        QVERIFY(!fields->nodesBox()->isVisibleTo(&dialog)); // a Slurm field only
        QVERIFY(!dialog.spec().target.options.contains(u"nodes"_s));
        dialog.targetBox()->setCurrentIndex(dialog.targetBox()->findData(u"slurm"_s));

        dialog.remember();
        LaunchDialog again(settings, ws.path());
        QCOMPARE(again.spec().target.toString(), u"slurm:gpu-box"_s);
        QCOMPARE(again.spec().target.options[u"partition"_s].toString(), u"debug"_s);
        QCOMPARE(again.spec().target.options[u"remoteDir"_s].toString(), u"/scratch/me/runs"_s);
        QCOMPARE(again.remoteFields()->remoteDataEdit()->text(), fields->remoteDataEdit()->text());
        QCOMPARE(again.spec().target.options[u"nodes"_s].toInt(), 2);
    }

    void unknownKeyIsTrustedOnlyWhenAsked()
    {
        const ferry::test::SshSandbox sandbox(false);
        HostDialog dialog(ferry::test::kHost, sandbox.options());
        QSignalSpy checked(&dialog, &HostDialog::checked);
        dialog.check();
        QVERIFY(checked.wait(60000));
        const QString fingerprint = ferry::test::hostFingerprint();
        QVERIFY2(dialog.statusText().contains(u"unknown"_s), qPrintable(dialog.statusText()));
        QVERIFY2(dialog.detailsText().contains(fingerprint), qPrintable(dialog.detailsText()));
        QVERIFY(dialog.trustButton()->isVisibleTo(&dialog));
        QVERIFY(dialog.trustButton()->text().contains(fingerprint));
        QVERIFY(!QFile::exists(sandbox.knownHosts()));

        dialog.trustButton()->click();
        QVERIFY(checked.wait(60000));
        QVERIFY2(dialog.statusText().contains(u"ready"_s), qPrintable(dialog.statusText()));
        QVERIFY2(dialog.detailsText().contains(u"Python: 3."_s), qPrintable(dialog.detailsText()));
        QVERIFY(!dialog.trustButton()->isVisibleTo(&dialog));
        QVERIFY(QFile::exists(sandbox.knownHosts()));
    }
};

FERRY_TEST_MAIN(TestHostDialog)
#include "tst_hostdialog.moc"
