#include "ui/runs/exportrundialog.h"

#include "cloud/handoffscale.h"
#include "cost/budget.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSaveFile>
#include <QSpinBox>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace ferry::ui {

ExportRunDialog::ExportRunDialog(run::RunSpec spec, std::optional<env::Environment> environment, QWidget *parent)
    : QDialog(parent), m_spec(std::move(spec)), m_environment(std::move(environment)), m_service(new QComboBox(this)),
      m_compute(new QLineEdit(this)), m_experiment(new QLineEdit(this)), m_registered(new QLineEdit(this)),
      m_instanceType(new QLineEdit(this)), m_output(new QLineEdit(this)), m_maxTime(new QLineEdit(this)),
      m_instances(new QSpinBox(this)), m_previewView(new QPlainTextEdit(this)), m_status(new QLabel(this))
{
    setWindowTitle(tr("Export Run %1").arg(m_spec.id));
    m_service->addItem(tr("AzureML command job (az ml job create)"));
    m_service->addItem(tr("SageMaker launcher (Python SDK)"));
    m_service->setObjectName(u"service"_s);
    m_compute->setPlaceholderText(tr("compute cluster, e.g. gpu-cluster"));
    m_compute->setObjectName(u"compute"_s);
    m_experiment->setPlaceholderText(QFileInfo(m_spec.sourceDir).fileName());
    m_registered->setPlaceholderText(m_environment ? tr("none: the run's environment, inline")
                                                   : tr("azureml:NAME@latest (the run has no environment file)"));
    m_registered->setObjectName(u"registeredEnvironment"_s);
    m_instanceType->setPlaceholderText(
        m_environment && m_environment->docker.gpu == env::GpuMode::On ? u"ml.g5.xlarge"_s : u"ml.m5.xlarge"_s);
    m_instanceType->setObjectName(u"instanceType"_s);
    m_instances->setRange(1, 256);
    m_instances->setValue(run::handoffScale(m_spec, {}).instances); // a run across nodes: its nodes
    m_output->setObjectName(u"output"_s);
    // The job's max_run: the run's caps (a money cap at the instances' catalog price), or a time here.
    m_maxTime->setObjectName(u"maxTime"_s);
    m_maxTime->setPlaceholderText(m_spec.budget.any() ? tr("the run's caps: %1").arg(m_spec.budget.capText())
                                                      : tr("none (H:MM:SS to cap the job's time)"));
    m_maxTime->setToolTip(tr("SageMaker's max_run: a time here replaces the run's caps in the job"));
    m_previewView->setReadOnly(true);
    m_previewView->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_previewView->setObjectName(u"preview"_s);
    m_status->setWordWrap(true);

    auto *browse = new QPushButton(tr("Browse…"), this);
    auto *outputRow = new QHBoxLayout;
    outputRow->addWidget(m_output, 1);
    outputRow->addWidget(browse);
    auto *form = new QFormLayout;
    form->addRow(tr("For"), m_service);
    form->addRow(tr("Compute"), m_compute);
    form->addRow(tr("Experiment"), m_experiment);
    form->addRow(tr("Registered environment"), m_registered);
    form->addRow(tr("Instance type"), m_instanceType);
    form->addRow(tr("Instances"), m_instances);
    form->addRow(tr("Max time"), m_maxTime);
    form->addRow(tr("Write to"), outputRow);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Cancel, this);
    m_save = buttons->button(QDialogButtonBox::Save);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_previewView, 1);
    layout->addWidget(m_status);
    layout->addWidget(buttons);
    resize(760, 620);

    connect(m_service, &QComboBox::currentIndexChanged, this, [this] {
        const bool azure = service() == Service::AzureMl;
        m_compute->setEnabled(azure);
        m_experiment->setEnabled(azure);
        m_registered->setEnabled(azure);
        m_instanceType->setEnabled(!azure);
        m_maxTime->setEnabled(!azure);
        const QString dir = QFileInfo(outputPath()).absolutePath();
        m_output->setText(QDir(dir).filePath(azure ? u"azureml-job.yml"_s : u"launch_sagemaker.py"_s));
        regenerate();
    });
    for (QLineEdit *edit : {m_compute, m_experiment, m_registered, m_instanceType, m_output, m_maxTime})
        connect(edit, &QLineEdit::textChanged, this, &ExportRunDialog::regenerate);
    connect(m_instances, &QSpinBox::valueChanged, this, &ExportRunDialog::regenerate);
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export Run"), outputPath());
        if (!path.isEmpty())
            m_output->setText(path);
    });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_save, &QPushButton::clicked, this, [this] {
        if (save())
            accept();
    });
    m_output->setText(QDir(m_spec.sourceDir).filePath(u"azureml-job.yml"_s));
    Q_EMIT m_service->currentIndexChanged(0);
}

void ExportRunDialog::setService(Service service)
{
    m_service->setCurrentIndex(service == Service::AzureMl ? 0 : 1);
}

ExportRunDialog::Service ExportRunDialog::service() const
{
    return m_service->currentIndex() == 0 ? Service::AzureMl : Service::SageMaker;
}

void ExportRunDialog::setOutputPath(const QString &path)
{
    m_output->setText(path);
}

QString ExportRunDialog::outputPath() const
{
    return m_output->text();
}

Expected<run::HandoffOptions> ExportRunDialog::options() const
{
    run::HandoffOptions o;
    if (const QString maxTime = m_maxTime->text().trimmed(); service() == Service::SageMaker && !maxTime.isEmpty()) {
        const auto seconds = cost::parseMaxTime(maxTime);
        if (!seconds)
            return seconds.error();
        run::RunBudget caps;
        caps.maxSeconds = *seconds;
        caps.graceSeconds = m_spec.budget.graceSeconds;
        o.budget = caps;
    }
    o.outputPath = outputPath();
    o.compute = m_compute->text().trimmed();
    o.experiment = m_experiment->text().trimmed();
    o.environmentReference = m_registered->text().trimmed();
    o.instanceType = m_instanceType->text().trimmed();
    o.instanceCount = m_instances->value();
    return o;
}

void ExportRunDialog::regenerate()
{
    const auto o = options();
    const Expected<QString> text = !o ? Expected<QString>(o.error())
                                   : service() == Service::AzureMl
                                       ? run::writeAzureMlCommandJob(m_spec, m_environment, *o)
                                       : run::writeSageMakerLauncher(m_spec, m_environment, *o);
    m_text = text ? *text : QString();
    m_problem = text ? QString() : text.error().toString();
    m_previewView->setPlainText(m_text);
    if (outputPath().trimmed().isEmpty() && m_problem.isEmpty())
        m_problem = tr("choose where to write the file");
    m_status->setText(m_problem.isEmpty() ? (service() == Service::AzureMl
                                                 ? tr("Submit it with: az ml job create --file %1").arg(outputPath())
                                                 : tr("Submit it with: python3 %1").arg(outputPath()))
                                          : m_problem);
    m_status->setStyleSheet(m_problem.isEmpty() ? QString() : u"color: #c62828;"_s);
    m_save->setEnabled(m_problem.isEmpty());
}

bool ExportRunDialog::save()
{
    if (!m_problem.isEmpty()) {
        m_error = m_problem;
        return false;
    }
    QSaveFile file(outputPath());
    if (!file.open(QIODevice::WriteOnly) || file.write(m_text.toUtf8()) < 0 || !file.commit()) {
        m_error = tr("%1: %2").arg(outputPath(), file.errorString());
        m_status->setText(m_error);
        return false;
    }
    if (service() == Service::SageMaker)
        QFile::setPermissions(outputPath(), QFile::permissions(outputPath()) | QFile::ExeOwner);
    return true;
}

} // namespace ferry::ui
