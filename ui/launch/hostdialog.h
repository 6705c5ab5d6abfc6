// HostDialog: what an SSH host offers a run, and trusting its host key on first contact.
#pragma once

#include "targets/hostprobe.h"
#include "targets/sshshell.h"

#include <QDialog>
#include <QFutureWatcher>

class QLabel;
class QPushButton;
class QPlainTextEdit;

namespace ferry::ui {

// One SSH host's page: what it offers a run (OS, Python, Docker, Slurm, CPUs, disk, GPUs), and
// on first contact its host key's fingerprint with a button to trust it (into Ferry's own
// known_hosts; never StrictHostKeyChecking=no). A changed key is shown as refused, with what
// to do. The checks run off the GUI thread.
class HostDialog : public QDialog {
    Q_OBJECT
public:
    HostDialog(QString host, targets::SshOptions options, QWidget *parent = nullptr);

    // Looks at the host again; `checked` when done.
    void check();
    QString statusText() const;
    QString detailsText() const;
    // Shown while an unknown key waits for a decision.
    QPushButton *trustButton() const { return m_trust; }

Q_SIGNALS:
    void checked();

private:
    struct Outcome {
        QString status;
        QString details;
        QString offeredFingerprint; // an unknown key the user may trust
    };
    static Outcome look(const QString &host, const targets::SshOptions &options);
    void show(const Outcome &outcome);
    void trust();

    QString m_host;
    targets::SshOptions m_options;
    QLabel *m_status;
    QPlainTextEdit *m_details;
    QPushButton *m_trust;
    QPushButton *m_recheck;
    QString m_fingerprint;
    QFutureWatcher<Outcome> m_watcher;
};

} // namespace ferry::ui
