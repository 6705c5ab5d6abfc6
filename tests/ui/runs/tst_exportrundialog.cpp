// The export dialog: the AzureML job or SageMaker launcher shown as it will be written, kept
// up to date as settings change, refused while a needed setting is missing, and saved.
#include "env/environmentfile.h"
#include "support/testmain.h"
#include "ui/runs/exportrundialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFile>
#include <QLineEdit>
#include <QPushButton>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace ferry;

class TestExportRunDialog : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

    run::RunSpec spec() const
    {
        run::RunSpec s;
        s.id = u"20261130-120000-train-ab12"_s;
        s.script = u"train.py"_s;
        s.sourceDir = m_dir.path();
        s.hyperparameters = {{u"epochs"_s, u"3"_s}};
        return s;
    }
    static env::Environment environment()
    {
        return env::parseEnvironmentYaml(
                   u"ferry: 1\nname: e\ndocker:\n  base_image: python:3.11-slim\n  gpu: \"on\"\n"_s, u"e.yml"_s)
            .environment;
    }

private Q_SLOTS:
    void previewFollowsTheSettingsAndSaves()
    {
        ui::ExportRunDialog dialog(spec(), environment());
        QPushButton *save = dialog.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Save);
        // AzureML first: without a compute target there is nothing to write.
        QVERIFY(dialog.preview().isEmpty());
        QVERIFY(dialog.problem().contains(u"--compute"_s));
        QVERIFY(!save->isEnabled());
        QVERIFY(dialog.outputPath().endsWith(u"/azureml-job.yml"_s));

        QTest::keyClicks(dialog.computeEdit(), u"gpu-cluster"_s);
        QVERIFY2(dialog.preview().contains(u"compute: azureml:gpu-cluster"_s), qPrintable(dialog.preview()));
        QVERIFY(dialog.preview().contains(u"image: python:3.11-slim"_s));
        QVERIFY(save->isEnabled());

        dialog.findChild<QComboBox *>(u"service"_s)->setCurrentIndex(1);
        QCOMPARE(dialog.service(), ui::ExportRunDialog::Service::SageMaker);
        QVERIFY(dialog.outputPath().endsWith(u"/launch_sagemaker.py"_s));
        QVERIFY(!dialog.computeEdit()->isEnabled());
        QVERIFY(dialog.preview().contains(u"instance_type=\"ml.g5.xlarge\""_s)); // the environment wants a GPU
        dialog.instanceTypeEdit()->setText(u"g5"_s);
        QVERIFY(dialog.problem().contains(u"'g5' is not a SageMaker instance type"_s));
        QVERIFY(!save->isEnabled());
        dialog.instanceTypeEdit()->setText(u"ml.p3.2xlarge"_s);
        QVERIFY(dialog.preview().contains(u"instance_type=\"ml.p3.2xlarge\""_s));

        save->click();
        QCOMPARE(dialog.result(), int(QDialog::Accepted));
        QFile written(dialog.outputPath());
        QVERIFY(written.open(QIODevice::ReadOnly));
        QCOMPARE(QString::fromUtf8(written.readAll()), dialog.preview());
        QVERIFY(written.permissions() & QFile::ExeOwner);
    }

    // A run's money cap is priced at the SageMaker instance's catalog price; one the catalog does not
    // price is said in the dialog and Save waits, until a max time replaces the run's caps.
    void aMoneyCapIsPricedAtTheInstanceOrReplacedByATime()
    {
        run::RunSpec capped = spec();
        capped.budget.maxCost = 1;
        ui::ExportRunDialog dialog(capped, environment());
        QPushButton *save = dialog.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Save);
        dialog.setService(ui::ExportRunDialog::Service::SageMaker);
        QVERIFY2(dialog.preview().contains(u"max_run=2557,"_s), qPrintable(dialog.problem())); // 1 / 1.408 USD/h
        QVERIFY(dialog.preview().contains(u"catalog of 2026-12-07"_s));
        dialog.instanceTypeEdit()->setText(u"ml.m5.xlarge"_s);
        QVERIFY2(dialog.problem().contains(u"no sagemaker instance 'ml.m5.xlarge'"_s), qPrintable(dialog.problem()));
        QVERIFY(!save->isEnabled());
        QTest::keyClicks(dialog.maxTimeEdit(), u"soon"_s);
        QVERIFY(dialog.problem().contains(u"--max-time 'soon'"_s));
        dialog.maxTimeEdit()->setText(u"1:00:00"_s);
        QVERIFY2(
            dialog.preview().contains(u"max_run=3600,  # StoppingCondition.MaxRuntimeInSeconds: max-time 1:00:00"_s),
            qPrintable(dialog.problem()));
        QVERIFY(save->isEnabled());
    }

    // A run without an environment file names a registered AzureML environment instead.
    void aRegisteredEnvironmentStandsInForAMissingFile()
    {
        ui::ExportRunDialog dialog(spec(), std::nullopt);
        dialog.computeEdit()->setText(u"gpu"_s);
        QVERIFY(dialog.problem().contains(u"has no environment file"_s));
        dialog.registeredEnvironmentEdit()->setText(u"azureml:my-env@latest"_s);
        QVERIFY(dialog.problem().isEmpty());
        QVERIFY(dialog.preview().contains(u"environment: azureml:my-env@latest"_s));
    }

    void unwritablePlaceIsReported()
    {
        ui::ExportRunDialog dialog(spec(), environment());
        dialog.setService(ui::ExportRunDialog::Service::SageMaker);
        dialog.setOutputPath(m_dir.filePath(u"no/such/folder/launch.py"_s));
        QVERIFY(!dialog.save());
        QVERIFY(dialog.errorString().startsWith(m_dir.filePath(u"no/such/folder/launch.py"_s)));
    }
};

FERRY_TEST_MAIN(TestExportRunDialog)
#include "tst_exportrundialog.moc"
