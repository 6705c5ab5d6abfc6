// The launch dialog's fields for an SSH host or Slurm cluster, the same options as `ferry run
// --target ssh:|slurm:`.
#pragma once

#include "run/runspec.h"

#include <QJsonObject>
#include <QWidget>

class QCheckBox;
class QFormLayout;
class QLineEdit;
class QSpinBox;

namespace ferry::ui {

// The launch dialog's fields for an SSH host or a Slurm cluster: the host (an entry of
// ~/.ssh/config, user@name, or `local` for this machine's Slurm), GPUs, and the Slurm job's
// partition, time limit, CPUs, memory and requeue (shown for Slurm only), and for both where
// run folders go on the host, what the upload leaves out and data channels already there —
// the same as `ferry run --target ssh:HOST|slurm:HOST --gpus ... --remote-dir --exclude
// --remote-data`. "Check host…" opens the host's page (probe, host key).
class RemoteTargetFields : public QWidget {
    Q_OBJECT
public:
    explicit RemoteTargetFields(QWidget *parent = nullptr);

    // Shows the fields of `kind` (hidden for local and container targets).
    void setKind(run::TargetKind kind);
    // Host and options into `target`; the first problem (no host, a bad value) if any.
    QString apply(run::TargetSpec &target) const;
    QJsonObject saved() const;
    void restore(const QJsonObject &saved);
    // The hosts of the settings' Hosts page, offered as the host field is typed.
    void setKnownHosts(const QStringList &hosts);

    QLineEdit *hostEdit() const { return m_host; }
    QSpinBox *gpusBox() const { return m_gpus; }
    QLineEdit *partitionEdit() const { return m_partition; }
    QLineEdit *remoteDirEdit() const { return m_remoteDir; }
    QLineEdit *excludeEdit() const { return m_exclude; }
    QLineEdit *remoteDataEdit() const { return m_remoteData; }
    QSpinBox *nodesBox() const { return m_nodes; }
    QSpinBox *tasksPerNodeBox() const { return m_tasksPerNode; }

Q_SIGNALS:
    void changed(); // any field edited (the dialog checks again and estimates again)

private:
    void checkHost();

    run::TargetKind m_kind = run::TargetKind::Local;
    QLineEdit *m_host;
    QSpinBox *m_gpus;
    QLineEdit *m_partition;
    QLineEdit *m_time;
    QSpinBox *m_cpus;
    QLineEdit *m_memory;
    QCheckBox *m_requeue;
    QCheckBox *m_hostPython;
    QLineEdit *m_remoteDir;
    QLineEdit *m_exclude;    // patterns separated by spaces
    QLineEdit *m_remoteData; // NAME=/path entries separated by ';'
    QSpinBox *m_nodes;       // a run across nodes (Slurm)
    QSpinBox *m_tasksPerNode;
    QFormLayout *m_form;
};

} // namespace ferry::ui
