#include "ui/alerts/runalerts.h"

#include "kernelhost/kernelhost.h"
#include "notify/alertnotification.h"
#include "ui/alerts/alertrulesedit.h"
#include "ui/session/runmonitorworker.h"
#include "ui/session/workspacesession.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QFutureWatcher>
#include <QLabel>
#include <QPushButton>
#include <QSettings>
#include <QThread>
#include <QTimer>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace ferry::ui {

namespace {

constexpr auto kRunRulesGroup = "alerts/runs";    // a run's own rules, by run id
constexpr qsizetype kMostNotificationsAtOnce = 5; // in one round; the rest said in one more
const QString kRunKey = u"run:"_s;
const QString kSweepKey = u"sweep:"_s;
const QString kKernelKey = u"kernel:"_s;

// The idle-GPU rule's duration as the settings give it; nullopt when off.
std::optional<qint64> idleGpuMs(const QSettings &settings)
{
    const int minutes = kIdleGpuMinutesSetting.get(settings);
    if (minutes <= 0)
        return std::nullopt;
    return std::clamp<qint64>(qint64(minutes) * 60000, run::kLeastStallMs, run::kMostStallMs);
}

QList<run::AlertRule> rulesIn(const QString &text)
{
    const auto rules = run::parseAlertRules(text);
    return rules ? *rules : QList<run::AlertRule>{};
}

// Whether the window says this alert: every rule's; a run's end as the settings ask.
bool worthSaying(const run::Alert &alert, bool runEnds)
{
    if (alert.kind != run::Alert::Kind::Ended)
        return true;
    return runEnds && alert.sweepId.isEmpty() && alert.status != run::RunStatus::Cancelled;
}

// What a round of checkKernels hands back to the GUI thread: plain values.
struct KernelsRound {
    kernels::KernelIdleWatch watch;
    QList<kernels::IdleKernelGpu> idle;
};

} // namespace

RunAlerts::RunAlerts(QSettings &settings, std::unique_ptr<notify::DesktopNotifier> notifier, QObject *parent)
    : QObject(parent), m_settings(settings),
      m_notifier(notifier ? std::move(notifier) : std::make_unique<notify::DesktopNotifier>()),
      m_kernelTimer(new QTimer(this))
{
    m_kernelTimer->setInterval(kKernelPollMs);
    connect(m_kernelTimer, &QTimer::timeout, this, &RunAlerts::checkKernels);
    connect(m_notifier.get(), &notify::DesktopNotifier::activated, this, &RunAlerts::activated);
    connect(m_notifier.get(), &notify::DesktopNotifier::failed, this, &RunAlerts::problem);
}

RunAlerts::~RunAlerts() = default;

void RunAlerts::attach(WorkspaceSession *session)
{
    RunMonitorWorker *monitor = session->monitor();
    m_monitor = monitor;
    connect(monitor, &RunMonitorWorker::alerted, this, &RunAlerts::show);
    connect(monitor, &RunMonitorWorker::sweepsEnded, this, &RunAlerts::showSweepsEnded);
    applySettings();
    m_settings.beginGroup(QString::fromLatin1(kRunRulesGroup));
    const QStringList runs = m_settings.childKeys();
    m_settings.endGroup();
    for (const QString &runId : runs)
        pushRunRules(runId, rulesIn(runRules(runId)));
}

void RunAlerts::detach()
{
    if (m_monitor)
        disconnect(m_monitor, nullptr, this, nullptr);
    m_monitor = nullptr;
}

QList<run::AlertRule> RunAlerts::everyRunRules(const QSettings &settings)
{
    QList<run::AlertRule> rules = rulesIn(kAlertRulesSetting.get(settings));
    if (const auto idleMs = idleGpuMs(settings)) {
        run::AlertRule idle;
        idle.kind = run::AlertRule::Kind::GpuIdle;
        idle.stallMs = *idleMs;
        rules << idle;
    }
    return rules;
}

void RunAlerts::applySettings()
{
    if (auto *monitor = qobject_cast<RunMonitorWorker *>(m_monitor.data())) {
        QMetaObject::invokeMethod(monitor,
                                  [monitor, rules = everyRunRules(m_settings)] { monitor->setAlertRules(rules); });
    }
}

void RunAlerts::pushRunRules(const QString &runId, const QList<run::AlertRule> &rules)
{
    if (auto *monitor = qobject_cast<RunMonitorWorker *>(m_monitor.data()))
        QMetaObject::invokeMethod(monitor, [monitor, runId, rules] { monitor->setRunAlertRules(runId, rules); });
}

QString RunAlerts::runRules(const QString &runId) const
{
    return m_settings.value(QString::fromLatin1(kRunRulesGroup) + u'/' + runId).toString();
}

Expected<void> RunAlerts::setRunRules(const QString &runId, const QString &text)
{
    const auto rules = run::parseAlertRules(text);
    if (!rules)
        return rules.error();
    const QString key = QString::fromLatin1(kRunRulesGroup) + u'/' + runId;
    if (rules->isEmpty())
        m_settings.remove(key);
    else
        m_settings.setValue(key, run::alertRulesText(*rules));
    pushRunRules(runId, *rules);
    return {};
}

void RunAlerts::editRunRules(const QString &runId, QWidget *parent)
{
    QDialog dialog(parent);
    dialog.setObjectName(u"runAlertsDialog"_s);
    dialog.setWindowTitle(tr("Alerts for %1").arg(runId));
    auto *about = new QLabel(tr("A notification when a rule comes true while the run goes, besides the rules for "
                                "every run (Settings > Alerts). Separate rules with commas: a metric above or "
                                "below a value (val_loss > 2.5), not a number (loss:nan), no new point for a "
                                "while (stalled:10m)."),
                             &dialog);
    about->setWordWrap(true);
    auto *edit = new AlertRulesEdit(&dialog);
    edit->setText(runRules(runId));
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
    connect(edit, &AlertRulesEdit::validityChanged, buttons->button(QDialogButtonBox::Ok), &QPushButton::setEnabled);
    connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    auto *layout = new QVBoxLayout(&dialog);
    layout->addWidget(about);
    layout->addWidget(edit);
    layout->addWidget(buttons);
    dialog.resize(520, dialog.sizeHint().height());
    if (dialog.exec() != QDialog::Accepted)
        return;
    if (const auto set = setRunRules(runId, edit->text()); !set)
        Q_EMIT problem(set.error());
}

void RunAlerts::show(const QList<run::Alert> &alerts)
{
    const bool runEnds = kNotifyRunEndsSetting.get(m_settings);
    const bool stopIdle = kStopIdleRunsSetting.get(m_settings);
    QList<run::Alert> said;
    for (run::Alert alert : alerts) {
        if (alert.kind == run::Alert::Kind::Ended)
            (void)setRunRules(alert.runId, {}); // its rules are done with
        if (alert.kind == run::Alert::Kind::GpuIdle && stopIdle) {
            alert.detail += tr("; stopped, as Settings > Alerts asks");
            Q_EMIT stopRequested(alert.runId);
        }
        if (worthSaying(alert, runEnds))
            said << alert;
    }
    // Many at once (runs that ended while the window was closed): the first few, and a count.
    const qsizetype each = said.size() <= kMostNotificationsAtOnce ? said.size() : kMostNotificationsAtOnce - 1;
    for (qsizetype i = 0; i < each; ++i) {
        notify::Notification n = notify::alertNotification(said[i], true);
        n.key = kRunKey + said[i].runId;
        m_notifier->send(n);
    }
    if (each < said.size()) {
        notify::Notification more;
        more.title = tr("%n more run alert(s)", nullptr, int(said.size() - each));
        more.body = tr("See the runs table in Ferry");
        m_notifier->send(more);
    }
}

void RunAlerts::showSweepsEnded(const QList<sweep::SweepState> &sweeps)
{
    if (!kNotifySweepEndsSetting.get(m_settings))
        return;
    for (const sweep::SweepState &sweep : sweeps)
        m_notifier->send(notify::sweepNotification(sweep, kSweepKey + sweep.id));
}

void RunAlerts::watchKernels(const QString &kernelsDir, const QString &ferryBinary)
{
    m_kernelsDir = kernelsDir;
    m_ferryBinary = ferryBinary;
    m_kernelIdle.reset();
    ++m_kernelsFolders; // a round still going reads a former folder
    if (kernelsDir.isEmpty())
        m_kernelTimer->stop();
    else
        m_kernelTimer->start();
}

void RunAlerts::checkKernels()
{
    if (m_checkingKernels) // the last round still reads: this one skipped
        return;
    const auto idleMs = idleGpuMs(m_settings);
    if (m_kernelsDir.isEmpty() || !idleMs) {
        m_kernelIdle.reset();
        return;
    }
    if (!m_kernelIdle || m_kernelIdle->idleMs() != *idleMs) // the settings changed: the stretches anew
        m_kernelIdle.emplace(*idleMs);
    // The watch goes to the worker and comes back with the round: one thread at a time has it.
    m_checkingKernels = true;
    auto *watcher = new QFutureWatcher<KernelsRound>(this); // gone with this: a late round is dropped
    connect(watcher, &QFutureWatcher<KernelsRound>::finished, this, [this, watcher, folders = m_kernelsFolders] {
        watcher->deleteLater();
        KernelsRound round = watcher->future().takeResult();
        kernelsRead(folders, std::move(round.watch), round.idle);
    });
    watcher->setFuture(QtConcurrent::run(
        [dir = m_kernelsDir](kernels::KernelIdleWatch watch) {
            QList<kernels::IdleKernelGpu> idle = watch.poll(dir);
            return KernelsRound{std::move(watch), std::move(idle)};
        },
        std::move(*m_kernelIdle)));
    m_kernelIdle.reset();
}

void RunAlerts::kernelsRead(quint64 folders, kernels::KernelIdleWatch watch, const QList<kernels::IdleKernelGpu> &found)
{
    m_checkingKernels = false;
    const auto idleMs = idleGpuMs(m_settings);
    // Another folder watched meanwhile, or other minutes asked: what it read is not this one's.
    if (folders != m_kernelsFolders || !idleMs || *idleMs != watch.idleMs()) {
        Q_EMIT kernelsChecked();
        return;
    }
    m_kernelIdle = std::move(watch);
    const bool stopIdle = kStopIdleRunsSetting.get(m_settings);
    for (const kernels::IdleKernelGpu &idle : found) {
        notify::Notification n;
        n.title = tr("kernel %1: GPU %2 idle for %3 min").arg(idle.kernelId).arg(idle.gpu).arg(*idleMs / 60000);
        n.body =
            tr("at 0 % since %1").arg(QDateTime::fromMSecsSinceEpoch(idle.sinceMs).toString(u"yyyy-MM-dd HH:mm:ss"_s));
        n.key = kKernelKey + idle.kernelId;
        if (stopIdle) {
            n.body += tr("; stopped, as Settings > Alerts asks");
            const QString folder = idle.folder, ferry = m_ferryBinary, id = idle.kernelId;
            QPointer<RunAlerts> self(this);
            QThread *thread = QThread::create([self, folder, ferry, id] {
                const auto stopped = kernels::stopKernel(folder, ferry);
                const QString problem = stopped ? QString() : stopped.error().message;
                QMetaObject::invokeMethod(qApp, [self, id, problem] {
                    if (self)
                        Q_EMIT self->kernelStopped(id, problem);
                });
            });
            connect(thread, &QThread::finished, thread, &QObject::deleteLater);
            thread->start();
        }
        m_notifier->send(n);
    }
    Q_EMIT kernelsChecked();
}

void RunAlerts::activated(const QString &key)
{
    if (key.startsWith(kRunKey))
        Q_EMIT runRequested(key.mid(kRunKey.size()));
    else if (key.startsWith(kSweepKey))
        Q_EMIT sweepRequested(key.mid(kSweepKey.size()));
    else if (const QString id = key.mid(kKernelKey.size()); key.startsWith(kKernelKey) && !id.isEmpty() &&
                                                            !id.startsWith(u'.') && !id.contains(u'/') &&
                                                            !m_kernelsDir.isEmpty())
        Q_EMIT kernelRequested(id, QDir(m_kernelsDir).filePath(id));
}

} // namespace ferry::ui
