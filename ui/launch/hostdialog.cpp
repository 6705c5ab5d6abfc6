#include "ui/launch/hostdialog.h"

#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

using namespace Qt::StringLiterals;

namespace ferry::ui {

HostDialog::HostDialog(QString host, targets::SshOptions options, QWidget *parent)
    : QDialog(parent), m_host(std::move(host)), m_options(std::move(options)), m_status(new QLabel(this)),
      m_details(new QPlainTextEdit(this)), m_trust(new QPushButton(this)),
      m_recheck(new QPushButton(tr("Check again"), this))
{
    setWindowTitle(tr("Host %1").arg(m_host));
    setObjectName(u"hostDialog"_s);
    resize(560, 380);
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_details->setReadOnly(true);
    m_trust->setVisible(false);
    connect(m_trust, &QPushButton::clicked, this, &HostDialog::trust);
    connect(m_recheck, &QPushButton::clicked, this, &HostDialog::check);
    connect(&m_watcher, &QFutureWatcher<Outcome>::finished, this, [this] { show(m_watcher.result()); });
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *row = new QHBoxLayout;
    row->addWidget(m_trust);
    row->addStretch(1);
    row->addWidget(m_recheck);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_status);
    layout->addWidget(m_details, 1);
    layout->addLayout(row);
    layout->addWidget(buttons);
}

void HostDialog::check()
{
    if (m_watcher.isRunning())
        return;
    m_status->setText(tr("Looking at %1 …").arg(m_host));
    m_trust->setVisible(false);
    m_recheck->setEnabled(false);
    const QString host = m_host;
    const targets::SshOptions options = m_options;
    m_watcher.setFuture(QtConcurrent::run([host, options] { return look(host, options); }));
}

HostDialog::Outcome HostDialog::look(const QString &host, const targets::SshOptions &options)
{
    Outcome outcome;
    targets::SshShell shell(host, options);
    const targets::ShellResult contact = shell.run({u"true"_s});
    if (contact.hostKeyRefused) {
        outcome.status = contact.failure;
        if (!contact.failure.contains(u"CHANGED"_s)) {
            const auto keys = shell.scanHostKeys();
            if (keys) {
                QStringList lines;
                for (const targets::HostKey &key : *keys) {
                    lines << key.type + u"  "_s + key.fingerprint;
                    if (outcome.offeredFingerprint.isEmpty() || key.type == u"ED25519"_s)
                        outcome.offeredFingerprint = key.fingerprint;
                }
                outcome.details = QObject::tr("The host offers these keys:\n%1\n\nCompare the fingerprint with the one "
                                              "its administrator gives you before you trust it.")
                                      .arg(lines.join(u'\n'));
            }
        }
        return outcome;
    }
    if (!contact.reached) {
        outcome.status = contact.failure;
        return outcome;
    }
    const auto info = targets::probeHost(shell);
    if (!info) {
        outcome.status = info.error().toString();
        return outcome;
    }
    outcome.status = QObject::tr("%1 is ready for runs.").arg(host);
    QStringList lines;
    const auto line = [&lines](const QString &label, const QString &value) {
        lines << label + u": "_s + (value.isEmpty() ? QObject::tr("none") : value);
    };
    line(QObject::tr("System"), info->os + u" ("_s + info->kernel + u')');
    line(QObject::tr("Python"), info->python);
    line(QObject::tr("Docker"), info->docker);
    line(QObject::tr("Slurm"), info->slurm);
    line(QObject::tr("CPUs"), QString::number(info->cpus));
    line(QObject::tr("Free disk in the home folder"),
         info->diskFreeKiB < 0 ? QString() : QLocale().formattedDataSize(info->diskFreeKiB * 1024));
    QStringList gpus;
    for (const targets::GpuInfo &gpu : info->gpus)
        gpus << QObject::tr("%1, %2 MiB (driver %3)").arg(gpu.name).arg(gpu.memoryMiB).arg(gpu.driverVersion);
    line(QObject::tr("GPUs"), gpus.isEmpty() ? info->gpuProblem : gpus.join(u"; "_s));
    outcome.details = lines.join(u'\n');
    return outcome;
}

void HostDialog::show(const Outcome &outcome)
{
    m_status->setText(outcome.status);
    m_details->setPlainText(outcome.details);
    m_fingerprint = outcome.offeredFingerprint;
    m_trust->setText(tr("Trust key %1").arg(m_fingerprint));
    m_trust->setVisible(!m_fingerprint.isEmpty());
    m_recheck->setEnabled(true);
    Q_EMIT checked();
}

void HostDialog::trust()
{
    const auto accepted = targets::SshShell(m_host, m_options).acceptHostKey(m_fingerprint);
    if (!accepted) {
        m_status->setText(accepted.error().toString());
        m_trust->setVisible(false);
        return;
    }
    check();
}

QString HostDialog::statusText() const
{
    return m_status->text();
}

QString HostDialog::detailsText() const
{
    return m_details->toPlainText();
}

} // namespace ferry::ui
