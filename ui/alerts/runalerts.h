// RunAlerts: the window's alerts: rules handed to the run monitor, what fires (and a sweep's end)
// shown as a desktop notification, a click on one opening its run.
#pragma once

#include "common/error.h"
#include "common/setting.h"
#include "kernelhost/kernelidle.h"
#include "notify/desktopnotifier.h"
#include "sweep/sweepstate.h"
#include "tracking/alertwatch.h"

#include <QObject>
#include <QPointer>
#include <QString>

#include <memory>
#include <optional>

class QSettings;
class QTimer;
class QWidget;

namespace ferry::ui {

class WorkspaceSession;

// Edit > Settings > Alerts: rules for every run the window follows, and whether an end is said.
inline const Setting<QString> kAlertRulesSetting{"alerts/rules"};
inline const Setting<bool> kNotifyRunEndsSetting{"alerts/runEnds", true};
inline const Setting<bool> kNotifySweepEndsSetting{"alerts/sweepEnds", true};
// Idle hardware (docs/cost.md): a GPU of a run or a kernel at 0 % for this many minutes is said (0:
// never), and the run stopped the way Cancel stops it (the kernel as `ferry kernel stop` does) when
// the second asks.
inline const Setting<int> kIdleGpuMinutesSetting{"alerts/idleGpuMinutes", 15};
inline const Setting<bool> kStopIdleRunsSetting{"alerts/stopIdleRuns", false};

// The window's side of alerts (the rules and what fires are core's: tracking/alertwatch.h, run by
// the session's run monitor on its thread). The rules for every run (Settings) and a run's own
// (its Alerts… in the runs table, kept in the settings until the run ends) go to the monitor;
// the alerts it reports go to the desktop's notification service (notify/desktopnotifier.h),
// with the run's end when the settings ask for it: a failed or lost run, and one that succeeded,
// not one cancelled (by the person, or by its sweep) nor a sweep's trial (its sweep's end is said
// instead). A click on a notification asks for its run (runRequested), sweep or kernel.
class RunAlerts : public QObject {
    Q_OBJECT
public:
    // `notifier`: the session bus's notification service unless a test gives its own.
    explicit RunAlerts(QSettings &settings, std::unique_ptr<notify::DesktopNotifier> notifier = {},
                       QObject *parent = nullptr);
    ~RunAlerts() override;

    // The session's monitor gets the rules (before its first round: call before start()) and its
    // alerts come here.
    void attach(WorkspaceSession *session);
    void detach();
    // The rules for every run read again from the settings and handed to the monitor, with the
    // idle GPU's (gpu_idle:Nm) when its minutes are not 0.
    void applySettings();
    // The rules for every run as the settings give them.
    static QList<run::AlertRule> everyRunRules(const QSettings &settings);

    // A run's own rules, as text ("" when none).
    QString runRules(const QString &runId) const;
    // Sets them (an empty text: none); an error when they do not parse (nothing changes then).
    Expected<void> setRunRules(const QString &runId, const QString &text);
    // A run's Alerts… dialog: its rules, checked as they are typed; set on OK.
    void editRunRules(const QString &runId, QWidget *parent);

    notify::DesktopNotifier *notifier() const { return m_notifier.get(); }

    // The workspace's kernels (its .ferry/kernels; empty: none) watched for an idle GPU, every
    // kKernelPollMs: the idle-GPU rule over each live kernel's samples (kernelhost/kernelidle.h).
    // A round still going for the kernels folder watched before is dropped when it ends.
    static constexpr int kKernelPollMs = 30000;
    void watchKernels(const QString &kernelsDir, const QString &ferryBinary);
    // One round of that: the samples read and the rule applied on a worker thread (a kernel that
    // has run for days has megabytes of them), so it returns at once; when the round ends, a
    // notification per idle stretch, the kernel stopped when the settings ask, and kernelsChecked.
    // Nothing while a round is still going (the next one reads on where it ended).
    void checkKernels();
    bool checkingKernels() const { return m_checkingKernels; }

public Q_SLOTS:
    void show(const QList<ferry::run::Alert> &alerts);
    void showSweepsEnded(const QList<ferry::sweep::SweepState> &sweeps);

Q_SIGNALS:
    void runRequested(const QString &runId); // a click on a run's notification
    // A run whose GPU was idle, to be stopped as Cancel stops it (kStopIdleRunsSetting).
    void stopRequested(const QString &runId);
    // A kernel whose GPU was idle, stopped as `ferry kernel stop` stops it; emitted once it is.
    void kernelStopped(const QString &kernelId, const QString &problem);
    void sweepRequested(const QString &sweepId); // a click on a sweep's
    // A click on a kernel's (its idle GPU): the kernel's id and its folder in the watched kernels.
    void kernelRequested(const QString &kernelId, const QString &folder);
    void problem(const ferry::Error &error);
    // A round of checkKernels is over: what it found said, or dropped (the kernels folder, or the
    // idle-GPU minutes, changed while it read).
    void kernelsChecked();

private:
    void activated(const QString &key);
    void pushRunRules(const QString &runId, const QList<run::AlertRule> &rules);
    // A round's end, on the GUI thread: the watch it read with (its place in each file) and what
    // it found, in the kernels folder watched when m_kernelsFolders was `folders`.
    void kernelsRead(quint64 folders, kernels::KernelIdleWatch watch, const QList<kernels::IdleKernelGpu> &found);

    QSettings &m_settings;
    std::unique_ptr<notify::DesktopNotifier> m_notifier;
    QPointer<QObject> m_monitor; // the attached session's RunMonitorWorker (lives on its thread)
    QString m_kernelsDir;
    QString m_ferryBinary;
    // For the settings' minutes; empty while a round has it on its worker.
    std::optional<kernels::KernelIdleWatch> m_kernelIdle;
    QTimer *m_kernelTimer;
    bool m_checkingKernels = false;
    quint64 m_kernelsFolders = 0; // counts watchKernels: a round for a former folder is dropped
};

} // namespace ferry::ui
