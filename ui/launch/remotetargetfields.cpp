#include "ui/launch/remotetargetfields.h"

#include "run/distribution.h"
#include "ui/launch/hostdialog.h"

#include <QCheckBox>
#include <QCompleter>
#include <QCoreApplication>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QJsonArray>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace ferry::ui {

RemoteTargetFields::RemoteTargetFields(QWidget *parent)
    : QWidget(parent), m_host(new QLineEdit(this)), m_gpus(new QSpinBox(this)), m_partition(new QLineEdit(this)),
      m_time(new QLineEdit(this)), m_cpus(new QSpinBox(this)), m_memory(new QLineEdit(this)),
      m_requeue(new QCheckBox(tr("Requeue on preemption or node failure"), this)),
      m_hostPython(new QCheckBox(tr("Run in the host's Python, not in the environment's image"), this)),
      m_remoteDir(new QLineEdit(this)), m_exclude(new QLineEdit(this)), m_remoteData(new QLineEdit(this)),
      m_nodes(new QSpinBox(this)), m_tasksPerNode(new QSpinBox(this)), m_form(nullptr)
{
    // A run across nodes (run/distribution.h): one job, a rank per task; the GPUs are per node.
    m_nodes->setObjectName(u"slurmNodes"_s);
    m_nodes->setRange(1, 10000);
    m_nodes->setToolTip(tr("One run across this many nodes: each rank gets RANK, WORLD_SIZE, MASTER_ADDR, SM_HOSTS …"));
    m_tasksPerNode->setObjectName(u"slurmTasksPerNode"_s);
    m_tasksPerNode->setRange(1, 10000);
    m_tasksPerNode->setToolTip(tr("Ranks on each node (e.g. one per GPU)"));
    m_remoteDir->setObjectName(u"remoteDir"_s);
    m_remoteDir->setPlaceholderText(tr("~/.ferry/runs (relative to the login's home)"));
    m_exclude->setObjectName(u"remoteExclude"_s);
    m_exclude->setPlaceholderText(tr("patterns, separated by spaces (.git and .ferry always): *.ckpt data/raw"));
    m_remoteData->setObjectName(u"remoteData"_s);
    m_remoteData->setPlaceholderText(tr("NAME=/path/on/host; …: channels already there, not uploaded"));
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
    // One form, so every label lines up; the rows of the other kind are hidden.
    m_form = new QFormLayout(this);
    m_form->setContentsMargins(0, 0, 0, 0);
    m_form->addRow(tr("Host"), hostRow);
    m_form->addRow(tr("GPUs"), m_gpus);
    m_form->addRow(QString(), m_hostPython);
    m_form->addRow(tr("Run folders on the host"), m_remoteDir);
    m_form->addRow(tr("Leave out of the upload"), m_exclude);
    m_form->addRow(tr("Data on the host"), m_remoteData);
    m_form->addRow(tr("Partition"), m_partition);
    m_form->addRow(tr("Time limit"), m_time);
    m_form->addRow(tr("CPUs per task"), m_cpus);
    m_form->addRow(tr("Memory"), m_memory);
    m_form->addRow(QString(), m_requeue);
    m_form->addRow(tr("Nodes"), m_nodes);
    m_form->addRow(tr("Tasks per node"), m_tasksPerNode);
    for (QLineEdit *edit : {m_host, m_partition, m_time, m_memory, m_remoteDir, m_exclude, m_remoteData})
        connect(edit, &QLineEdit::textChanged, this, &RemoteTargetFields::changed);
    for (QSpinBox *box : {m_gpus, m_cpus, m_nodes, m_tasksPerNode})
        connect(box, &QSpinBox::valueChanged, this, &RemoteTargetFields::changed);
    for (QCheckBox *box : {m_requeue, m_hostPython})
        connect(box, &QCheckBox::toggled, this, &RemoteTargetFields::changed);
    setKind(run::TargetKind::Local);
}

void RemoteTargetFields::setKind(run::TargetKind kind)
{
    m_kind = kind;
    const bool slurm = kind == run::TargetKind::Slurm;
    setVisible(kind == run::TargetKind::Ssh || slurm);
    for (QWidget *field :
         {static_cast<QWidget *>(m_partition), static_cast<QWidget *>(m_time), static_cast<QWidget *>(m_cpus),
          static_cast<QWidget *>(m_memory), static_cast<QWidget *>(m_requeue), static_cast<QWidget *>(m_nodes),
          static_cast<QWidget *>(m_tasksPerNode)})
        m_form->setRowVisible(field, slurm);
    m_form->setRowVisible(m_hostPython, kind == run::TargetKind::Ssh);
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
    if (!m_remoteDir->text().trimmed().isEmpty())
        target.options[u"remoteDir"_s] = m_remoteDir->text().trimmed();
    const QStringList excludes = m_exclude->text().split(u' ', Qt::SkipEmptyParts);
    if (!excludes.isEmpty())
        target.options[u"exclude"_s] = QJsonArray::fromStringList(excludes);
    QJsonObject channels;
    for (const QString &entry : m_remoteData->text().split(u';', Qt::SkipEmptyParts)) {
        const QString item = entry.trimmed();
        const qsizetype eq = item.indexOf(u'=');
        if (item.isEmpty())
            continue;
        if (eq <= 0 || !item.mid(eq + 1).trimmed().startsWith(u'/'))
            return tr("Data on the host: '%1' should be NAME=/absolute/path/on/the/host").arg(item);
        channels[item.left(eq).trimmed()] = item.mid(eq + 1).trimmed();
    }
    if (!channels.isEmpty())
        target.options[u"remoteChannels"_s] = channels;
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
    run::Distribution distribution;
    distribution.nodes = m_nodes->value();
    distribution.tasksPerNode = m_tasksPerNode->value();
    if (distribution.isDistributed() && m_gpus->value() > 0) { // --gres is per node
        distribution.gpusPerNode = m_gpus->value();
        target.options.remove(u"gpus"_s);
    }
    distribution.writeTo(target.options);
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
                       {u"nodes"_s, m_nodes->value()},
                       {u"tasksPerNode"_s, m_tasksPerNode->value()},
                       {u"hostPython"_s, m_hostPython->isChecked()},
                       {u"remoteDir"_s, m_remoteDir->text()},
                       {u"exclude"_s, m_exclude->text()},
                       {u"remoteData"_s, m_remoteData->text()}};
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
    m_nodes->setValue(std::max(1, saved[u"nodes"_s].toInt()));
    m_tasksPerNode->setValue(std::max(1, saved[u"tasksPerNode"_s].toInt()));
    m_hostPython->setChecked(saved[u"hostPython"_s].toBool());
    m_remoteDir->setText(saved[u"remoteDir"_s].toString());
    m_exclude->setText(saved[u"exclude"_s].toString());
    m_remoteData->setText(saved[u"remoteData"_s].toString());
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
