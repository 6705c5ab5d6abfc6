#include "tracking/runlauncher.h"

#include "cost/budget.h"
#include "run/hostfacts.h"
#include "run/rundirectory.h"

#include <ferry/version.h>

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QSettings>

using namespace Qt::StringLiterals;

namespace ferry::run {

Expected<RunRecord> launchRun(RunStore &store, targets::Target &target, const QString &runsDir, RunSpec spec)
{
    const QList<Error> problems = validateRunSpec(spec);
    if (!problems.isEmpty()) {
        QStringList lines;
        for (const Error &e : problems)
            lines << e.toString();
        return Error{lines.join(u'\n'), {}, 0, 0, {}};
    }
    if (spec.id.isEmpty())
        spec.id = newRunId(spec.script);
    spec.ferryVersion = QString::fromLatin1(kVersion);
    // The rate in force now, and the caps at it; refused when the workspace's month is spent.
    const QString kernelsDir = QFileInfo(runsDir).dir().filePath(u"kernels"_s); // beside runs/ (workspace.h)
    if (const auto prepared =
            cost::prepareLaunch(spec, store, kernelsDir, QSettings(), QDateTime::currentMSecsSinceEpoch());
        !prepared)
        return prepared.error();
    // What it runs, kept before it starts (a rerun brings its own).
    if (!spec.snapshot && spec.target.kind != TargetKind::Embedded && !spec.sourceDir.isEmpty()) {
        const auto taken =
            snapshot::takeSnapshot(snapshot::objectsDirFor(runsDir), spec.sourceDir, sourceExcludes(spec));
        spec.snapshot = taken ? *taken : snapshot::Snapshot{};
        if (!taken)
            spec.snapshot->error = taken.error().toString();
    }
    spec.data = fingerprintChannels(spec.channels); // the data as it is now, a rerun's too
    target.recordIn(spec.target);                   // e.g. the container engine, so the run is cancelled with it later
    RunRecord record = newRunRecord(spec);
    store.createRun(record);
    store.setParams(spec.id, spec.hyperparameters);

    const QString runDir = QDir(runsDir).filePath(spec.id);
    const auto started = target.start(runDir, spec);
    if (!started) {
        // Cancelled while it was being started (an upload, an image build): it is that, not a failure.
        const auto exit = RunDirectory(runDir).readExit();
        if (exit && exit->has_value() && (*exit)->cancelled) {
            store.setStatus(spec.id, RunStatus::Cancelled, std::nullopt, (*exit)->error);
            store.flush();
            return started.error();
        }
        // A start not confirmed in time may still come (M4): while the target finds any of the
        // run alive, it is running, with the reason as its detail, followed and cancellable.
        const auto probe = target.probe(runDir);
        if (!probe || probe->finished()) {
            const RunStatus status =
                probe && probe->state == targets::RunState::Cancelled ? RunStatus::Cancelled : RunStatus::Failed;
            store.setStatus(spec.id, status, std::nullopt, started.error().toString());
            store.flush();
            return started.error();
        }
        record.error = started.error().toString() + u" (it is still starting: Ferry follows it)"_s;
    }
    // The host as the run sees it: this one for a local run; a container's entry, a remote
    // runner write their own (run/hostfacts.h).
    if (spec.target.kind == TargetKind::Local) {
        if (const auto facts = writeLocalHostFacts(runDir); !facts)
            qWarning("%s", qPrintable(facts.error().toString()));
    }
    store.setStatus(spec.id, RunStatus::Running, std::nullopt, record.error);
    store.flush();
    record.status = RunStatus::Running;
    record.startedMs = QDateTime::currentMSecsSinceEpoch();
    return record;
}

} // namespace ferry::run
