#include "ui/launch/remotetargetfields.h"

#include "ui/launch/hostdialog.h"

#include <QCheckBox>
#include <QCompleter>
#include <QCoreApplication>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>

using namespace Qt::StringLiterals;

namespace ferry::ui {

RemoteTargetFields::RemoteTargetFields(QWidget *parent)
    : QWidget(parent), m_host(new QLineEdit(this)), m_gpus(new QSpinBox(this)), m_partition(new QLineEdit(this)),
      m_time(new QLineEdit(this)), m_cpus(new QSpinBox(this)), m_memory(new QLineEdit(this)),
      m_requeue(new QCheckBox(tr("Requeue on preemption or node failure"), this)),
      m_hostPython(new QCheckBox(tr("Run in the host's Python, not in the environment's image"), this)),
      m_slurmOnly(new QWidget(this))
{
    setObjectName(u"remoteTargetFields"_s);
    m_host->setObjectName(u"remoteHost"_s);
    m_host->setPlaceholderText(tr("a host from ~/.ssh/config, or user@name"));
    m_gpus->setObjectName(u"remoteGpus"_s);
    m_gpus->setRange(0, 64);
    m_gpus->setSpecialValueText(tr("default"));
    m_partition->setObjectName(u"slurmPartition"_s);
    m_partition->setPlaceholderText(tr("the cluster's default"));
    m_time->setPlaceholderText(tr("HH:MM:SS"));
    m_cpus->setRange(0, 1024);
    m_cpus->setSpecialValueText(tr("default"));
    m_memory->setPlaceholderText(tr("e.g. 16G"));
    auto *check = new QPushButton(tr("Check host…"), this);
    connect(check, &QPushButton::clicked, this, &RemoteTargetFields::checkHost);

    auto *hostRow = new QHBoxLayout;
    hostRow->setContentsMargins(0, 0, 0, 0);
    hostRow->addWidget(m_host, 1);
    hostRow->addWidget(check);
    auto *slurm = new QFormLayout(m_slurmOnly);
    slurm->setContentsMargins(0, 0, 0, 0);
    slurm->addRow(tr("Partition"), m_partition);
    slurm->addRow(tr("Time limit"), m_time);
    slurm->addRow(tr("CPUs per task"), m_cpus);
    slurm->addRow(tr("Memory"), m_memory);
    slurm->addRow(QString(), m_requeue);
    auto *form = new QFormLayout(this);
    form->setContentsMargins(0, 0, 0, 0);
    form->addRow(tr("Host"), hostRow);
    form->addRow(tr("GPUs"), m_gpus);
    form->addRow(QString(), m_hostPython);
    form->addRow(m_slurmOnly);
    setKind(run::TargetKind::Local);
}

void RemoteTargetFields::setKind(run::TargetKind kind)
{
    m_kind = kind;
    const bool slurm = kind == run::TargetKind::Slurm;
    setVisible(kind == run::TargetKind::Ssh || slurm);
    m_slurmOnly->setVisible(slurm);
    m_hostPython->setVisible(kind == run::TargetKind::Ssh);
    m_host->setPlaceholderText(slurm ? tr("the login node (~/.ssh/config), or 'local' for this machine")
                                     : tr("a host from ~/.ssh/config, or user@name"));
}

QString RemoteTargetFields::apply(run::TargetSpec &target) const
{
    if (m_kind != run::TargetKind::Ssh && m_kind != run::TargetKind::Slurm)
        return {};
    const QString host = m_host->text().trimmed();
    if (host.isEmpty())
        return tr("Name the host to run on");
    if (host.contains(u' ') || host.startsWith(u'-'))
        return tr("'%1' is not a host name").arg(host);
    target.kind = m_kind;
    target.host = host;
    if (m_gpus->value() > 0)
        target.options[u"gpus"_s] = m_gpus->value();
    if (m_kind == run::TargetKind::Ssh) {
        if (m_hostPython->isChecked())
            target.options[u"hostPython"_s] = true;
        return {};
    }
    if (!m_partition->text().trimmed().isEmpty())
        target.options[u"partition"_s] = m_partition->text().trimmed();
    if (!m_time->text().trimmed().isEmpty())
        target.options[u"time"_s] = m_time->text().trimmed();
    if (m_cpus->value() > 0)
        target.options[u"cpus"_s] = m_cpus->value();
    if (!m_memory->text().trimmed().isEmpty())
        target.options[u"mem"_s] = m_memory->text().trimmed();
    if (m_requeue->isChecked())
        target.options[u"requeue"_s] = true;
    return {};
}

QJsonObject RemoteTargetFields::saved() const
{
    return QJsonObject{{u"host"_s, m_host->text()},
                       {u"gpus"_s, m_gpus->value()},
                       {u"partition"_s, m_partition->text()},
                       {u"time"_s, m_time->text()},
                       {u"cpus"_s, m_cpus->value()},
                       {u"mem"_s, m_memory->text()},
                       {u"requeue"_s, m_requeue->isChecked()},
                       {u"hostPython"_s, m_hostPython->isChecked()}};
}

void RemoteTargetFields::restore(const QJsonObject &saved)
{
    m_host->setText(saved[u"host"_s].toString());
    m_gpus->setValue(saved[u"gpus"_s].toInt());
    m_partition->setText(saved[u"partition"_s].toString());
    m_time->setText(saved[u"time"_s].toString());
    m_cpus->setValue(saved[u"cpus"_s].toInt());
    m_memory->setText(saved[u"mem"_s].toString());
    m_requeue->setChecked(saved[u"requeue"_s].toBool());
    m_hostPython->setChecked(saved[u"hostPython"_s].toBool());
}

void RemoteTargetFields::setKnownHosts(const QStringList &hosts)
{
    auto *completer = new QCompleter(hosts, m_host);
    completer->setCaseSensitivity(Qt::CaseInsensitive);
    m_host->setCompleter(completer);
}

void RemoteTargetFields::checkHost()
{
    const QString host = m_host->text().trimmed();
    if (host.isEmpty() || host == u"local"_s)
        return;
    HostDialog dialog(host, targets::SshOptions::forHost(host, {}, QCoreApplication::applicationFilePath()), this);
    dialog.check();
    dialog.exec();
}

} // namespace ferry::ui
