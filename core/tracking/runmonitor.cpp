#include "tracking/runmonitor.h"

#include <QDateTime>
#include <QDir>

#include <utility>

namespace ferry::run {

struct RunMonitor::Followed {
    std::unique_ptr<targets::Target> target;
    std::unique_ptr<RunFollower> follower;
    RunStatus lastStatus = RunStatus::Created;
    QString lastDetail;
    bool waitingForSecrets = false;
    std::unique_ptr<AlertWatch> alerts;
    double lastFraction = -1; // the progress last listed; -1: none
};

RunMonitor::RunMonitor(RunStore &store, QString runsDir, TargetFactory factory)
    : m_store(store), m_runsDir(std::move(runsDir)), m_factory(std::move(factory))
{
}

RunMonitor::~RunMonitor() = default;

QList<RunMonitor::Change> RunMonitor::poll()
{
    QList<Change> changes;
    // Runs not over yet, and not waiting to be started (Created: its launcher is at work).
    for (const RunRecord &record : m_store.runs()) {
        if (isFinished(record.status) || record.status == RunStatus::Created || m_followers.contains(record.id))
            continue;
        const auto spec = RunSpec::fromJson(record.spec);
        if (!spec)
            continue;
        auto followed = std::make_shared<Followed>();
        followed->target = m_factory(spec->target);
        if (!followed->target)
            continue; // a target this Ferry cannot drive: left as it is
        const QString runDir = QDir(m_runsDir).filePath(record.id);
        followed->follower = std::make_unique<RunFollower>(m_store, *followed->target, runDir, record);
        followed->lastStatus = record.status;
        followed->alerts =
            std::make_unique<AlertWatch>(m_store, record.id, m_alertRules + m_runAlertRules.value(record.id));
        followed->alerts->setRunDir(runDir);
        if (!spec->secretVariables.isEmpty()) {
            followed->waitingForSecrets = true;
            QStringList names;
            for (const auto &entry : spec->secretVariables)
                names << entry.second;
            m_secretRequests.append({record.id, names});
        }
        m_followers.insert(record.id, followed);
    }
    for (auto it = m_followers.begin(); it != m_followers.end();) {
        Followed &f = **it;
        if (f.waitingForSecrets) {
            ++it;
            continue;
        }
        const auto step = f.follower->poll();
        Change change;
        change.runId = it.key();
        if (step) {
            change.status = f.follower->record().status;
            change.newPoints = step->points;
            change.lines = step->lines;
            change.finished = step->finished;
            change.replaced = !step->replaced.isEmpty();
            const QString detail = step->finished ? QString() : step->probe.detail;
            if (detail != f.lastDetail) {
                change.detail = detail;
                f.lastDetail = detail;
            }
            // The points another follower stored come as lines here: read from the store either way.
            const bool newData = step->points > 0 || !step->lines.isEmpty() || change.replaced;
            const qint64 now = QDateTime::currentMSecsSinceEpoch();
            change.alerts = f.alerts->observe(f.follower->record(), now, newData, step->probe.queued);
            if (!step->finished)
                change.progress = f.follower->progress(now);
        } else {
            change.status = f.lastStatus; // the folder is unreadable now: tried again next round
        }
        const bool changed = change.newPoints > 0 || !change.lines.isEmpty() || change.finished || change.replaced ||
                             change.status != f.lastStatus || change.detail.has_value() || !change.alerts.isEmpty();
        const double fraction = change.progress ? change.progress->fraction : -1;
        change.onlyProgress = !changed && fraction != f.lastFraction;
        f.lastFraction = fraction;
        f.lastStatus = change.status;
        if (changed || change.onlyProgress)
            changes << change;
        if (change.finished) {
            m_runAlertRules.remove(it.key());
            it = m_followers.erase(it);
        } else
            ++it;
    }
    return changes;
}

} // namespace ferry::run

namespace ferry::run {

QList<std::pair<QString, QStringList>> RunMonitor::takeSecretRequests()
{
    return std::exchange(m_secretRequests, {});
}

void RunMonitor::setAlertRules(const QList<AlertRule> &everyRun)
{
    m_alertRules = everyRun;
    for (auto it = m_followers.begin(); it != m_followers.end(); ++it)
        (*it)->alerts->setRules(m_alertRules + m_runAlertRules.value(it.key()));
}

void RunMonitor::setRunAlertRules(const QString &runId, const QList<AlertRule> &rules)
{
    if (rules.isEmpty())
        m_runAlertRules.remove(runId);
    else
        m_runAlertRules.insert(runId, rules);
    if (const auto it = m_followers.find(runId); it != m_followers.end())
        (*it)->alerts->setRules(m_alertRules + rules);
}

void RunMonitor::setRunSecrets(const QString &runId, const QStringList &values)
{
    const auto it = m_followers.find(runId);
    if (it == m_followers.end())
        return;
    (*it)->follower->setRedactor(secrets::Redactor(values));
    (*it)->waitingForSecrets = false;
}

} // namespace ferry::run
