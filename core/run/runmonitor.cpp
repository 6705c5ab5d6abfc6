#include "run/runmonitor.h"

#include <QDir>

namespace ferry::run {

struct RunMonitor::Followed {
    std::unique_ptr<targets::Target> target;
    std::unique_ptr<RunFollower> follower;
    RunStatus lastStatus = RunStatus::Created;
    QString lastDetail;
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
        followed->follower =
            std::make_unique<RunFollower>(m_store, *followed->target, QDir(m_runsDir).filePath(record.id), record);
        followed->lastStatus = record.status;
        m_followers.insert(record.id, followed);
    }
    for (auto it = m_followers.begin(); it != m_followers.end();) {
        Followed &f = **it;
        const auto step = f.follower->poll();
        Change change;
        change.runId = it.key();
        if (step) {
            change.status = f.follower->record().status;
            change.newPoints = step->points.size();
            change.lines = step->lines;
            change.finished = step->finished;
            const QString detail = step->finished ? QString() : step->probe.detail;
            if (detail != f.lastDetail) {
                change.detail = detail;
                f.lastDetail = detail;
            }
        } else {
            change.status = f.lastStatus; // the folder is unreadable now: tried again next round
        }
        const bool changed = change.newPoints > 0 || !change.lines.isEmpty() || change.finished ||
                             change.status != f.lastStatus || change.detail.has_value();
        f.lastStatus = change.status;
        if (changed)
            changes << change;
        if (change.finished)
            it = m_followers.erase(it);
        else
            ++it;
    }
    return changes;
}

} // namespace ferry::run
