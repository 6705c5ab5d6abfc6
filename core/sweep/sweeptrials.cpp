// The parts of sweepcontroller.h a controller shares with those who start or cancel a sweep:
// a trial's run spec, its objective and curve, the machine's GPUs, starting the controller.
#include "sweep/sweepcontroller.h"

#include "common/filelock.h"
#include "run/rundirectory.h"
#include "run/runenvironment.h"
#include "run/runsecrets.h"
#include "targets/containerengine.h"
#include "targets/slurmtarget.h"
#include "tracking/runfollower.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QProcess>
#include <QProcessEnvironment>

#include <algorithm>
#include <cmath>

using namespace Qt::StringLiterals;

namespace ferry::sweep {

Expected<run::RunSpec> trialTemplate(const SweepSpec &spec, const QString &sweepFile, const QString &workspaceRoot)
{
    const QDir root(workspaceRoot);
    run::RunSpec base;
    const QString script = QDir::cleanPath(root.absoluteFilePath(spec.script));
    if (!QFileInfo(script).isFile())
        return Error{u"the script '%1' is not in the workspace (%2)"_s.arg(spec.script, script), sweepFile, 0, 0,
                     u"script: is relative to the workspace's folder"_s};
    run::placeScript(base, workspaceRoot, script);
    const auto target = run::TargetSpec::parse(spec.target);
    if (!target)
        return withContext(sweepFile, target.error());
    if (target->kind == run::TargetKind::Embedded)
        return Error{u"a sweep runs a script: the embedded trainer is no target for one"_s, sweepFile, 0, 0,
                     u"use local, container, ssh:HOST or slurm:HOST"_s};
    base.target = *target;
    for (auto it = spec.targetOptions.begin(); it != spec.targetOptions.end(); ++it)
        base.target.options.insert(it.key(), it.value());
    if (base.target.kind == run::TargetKind::Slurm) { // the array's resources, checked before it is made
        if (const auto checked = targets::SlurmTarget::sbatchOptions(base, u"/"_s); !checked)
            return withContext(sweepFile, checked.error());
    }
    base.arguments = spec.arguments;
    base.hyperparameters = spec.fixed;
    for (const run::DataChannel &c : spec.data)
        base.channels << run::DataChannel{c.name, QDir::cleanPath(root.absoluteFilePath(c.path))};
    if (!spec.environment.isEmpty()) {
        const QString file = QDir::cleanPath(root.absoluteFilePath(spec.environment));
        const Diagnostics diagnostics = run::applyEnvironmentFile(base, file);
        for (const Diagnostic &d : diagnostics) {
            if (d.isError())
                return d.where;
        }
        if (const auto secrets = run::checkRunSecrets(base); !secrets)
            return withContext(file, secrets.error());
    }
    base.id = run::newRunId(base.script); // only to check the spec as launchRun will
    if (const QList<Error> problems = run::validateRunSpec(base); !problems.isEmpty())
        return withContext(sweepFile, problems.first());
    base.id.clear();
    return base;
}

run::RunSpec trialSpec(const run::RunSpec &base, const QString &sweepId, const Trial &trial)
{
    run::RunSpec spec = base;
    spec.id = trial.runId;
    spec.hyperparameters << trial.hyperparameters;
    spec.sweep = sweepId;
    spec.trial = trial.number;
    if (!trial.gpu.isEmpty()) {
        spec.variables.removeIf([](const auto &v) { return v.first == u"CUDA_VISIBLE_DEVICES"_s; });
        spec.variables.append({u"CUDA_VISIBLE_DEVICES"_s, trial.gpu});
    }
    return spec;
}

std::optional<double> trialObjective(const run::RunStore &store, const QString &runId, const SweepSpec &spec)
{
    if (spec.summary == Summary::Last) {
        const QMap<QString, double> last = store.lastValues(runId);
        const auto found = last.constFind(spec.metric);
        if (found == last.constEnd() || !std::isfinite(*found))
            return std::nullopt;
        return *found;
    }
    std::optional<double> best;
    for (const run::SeriesPoint &p : store.series(runId, spec.metric)) {
        if (!std::isfinite(p.value))
            continue;
        if (!best || (spec.goal == Goal::Minimize ? p.value < *best : p.value > *best))
            best = p.value;
    }
    return best;
}

TrialCurve trialCurve(const run::RunStore &store, int trial, const QString &runId, const Sampler &sampler)
{
    std::vector<run::SeriesPoint> points = store.series(runId, sampler.spec().metric);
    for (std::size_t i = 0; i < points.size(); ++i) {
        if (!std::isfinite(points[i].step))
            points[i].step = static_cast<double>(i);
    }
    run::orderByStep(points);
    TrialCurve curve{trial, {}};
    curve.points.reserve(points.size());
    for (const run::SeriesPoint &p : points) {
        if (std::isfinite(p.value))
            curve.points.emplace_back(p.step, sampler.minimized(p.value));
    }
    return curve;
}

QStringList machineGpus()
{
    const QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    if (environment.contains(u"FERRY_GPUS"_s)) {
        QStringList gpus;
        for (const QString &g : environment.value(u"FERRY_GPUS"_s).split(u',', Qt::SkipEmptyParts))
            gpus << g.trimmed();
        return gpus;
    }
    QStringList gpus;
    for (int i = 0; i < targets::hostGpuCount(); ++i)
        gpus << QString::number(i);
    return gpus;
}

Expected<void> startController(const workspace::Workspace &workspace, const SweepDirectory &dir,
                               const QString &ferryProgram)
{
    if (dir.controllerRunning())
        return Error{u"the sweep's controller is running already"_s, dir.path(), 0, 0, {}};
    QProcess process;
    process.setProgram(ferryProgram);
    process.setArguments({u"__sweep"_s, dir.path(), u"--workspace"_s, workspace.root()});
    process.setWorkingDirectory(dir.path());
    process.setStandardInputFile(QProcess::nullDevice());
    process.setStandardOutputFile(dir.logFile(), QIODevice::Append);
    process.setStandardErrorFile(dir.logFile(), QIODevice::Append);
    if (!process.startDetached())
        return Error{u"cannot start the sweep's controller '%1': %2"_s.arg(ferryProgram, process.errorString()),
                     {},
                     0,
                     0,
                     u"reinstall Ferry"_s};
    return {};
}

Expected<SweepState> startSweep(const workspace::Workspace &workspace, const QString &path, const QByteArray &text,
                                const SweepSpec &spec, const QString &ferryProgram)
{
    if (const auto checked = trialTemplate(spec, path, workspace.root()); !checked)
        return checked.error();
    SweepState state;
    state.name = QFileInfo(path).completeBaseName();
    state.id = run::newRunId(state.name);
    state.sourceFile = QFileInfo(path).absoluteFilePath();
    state.createdMs = QDateTime::currentMSecsSinceEpoch();
    const SweepDirectory dir(workspace.sweepsDir() + u'/' + state.id);
    if (const auto created = dir.create(text, state); !created)
        return created.error();
    dir.log(u"sweep %1 of %2: %3 trials, %4 at a time"_s.arg(state.id, state.sourceFile)
                .arg(spec.plannedTrials())
                .arg(spec.maxParallel));
    if (const auto started = startController(workspace, dir, ferryProgram); !started)
        return started.error();
    return state;
}

TrialStatus trialStatusOf(const run::RunRecord &record)
{
    switch (record.status) {
    case run::RunStatus::Created:
    case run::RunStatus::Building:
        return TrialStatus::Starting;
    case run::RunStatus::Running:
        return TrialStatus::Running;
    case run::RunStatus::Succeeded:
        return TrialStatus::Succeeded;
    case run::RunStatus::Failed:
        return TrialStatus::Failed;
    case run::RunStatus::Cancelled:
        return run::isStoppedEarly(record) ? TrialStatus::StoppedEarly : TrialStatus::Cancelled;
    case run::RunStatus::Lost:
        break;
    }
    return TrialStatus::Lost;
}

Expected<SweepState> cancelOrphanedSweep(run::RunStore &store, const QString &runsDir, const SweepDirectory &dir,
                                         const SweepController::TargetFactory &factory, int graceMs)
{
    const auto lock = FileLock::tryLock(dir.lockFile());
    if (!lock)
        return lock.error();
    if (!lock->has_value())
        return Error{u"the sweep's controller is running: it cancels the sweep itself"_s, dir.path(), 0, 0, {}};
    auto state = dir.readState();
    if (!state)
        return state.error();
    QStringList problems;
    if (!state->arrayJob.isEmpty()) { // a Slurm sweep: its tasks not started yet go with the array
        const auto target = run::TargetSpec::parse(dir.readSpec().spec.target);
        auto made = target ? factory(*target) : nullptr;
        auto *slurm = dynamic_cast<targets::SlurmTarget *>(made.get());
        if (!slurm)
            problems << u"cannot reach the Slurm cluster of job array %1"_s.arg(state->arrayJob);
        else if (const auto cancelled = targets::SlurmArray(slurm->shell())
                                            .cancel(targets::SlurmArrayJob{state->arrayJob, state->arrayDir}, {});
                 !cancelled)
            problems << cancelled.error().toString();
    }
    for (Trial &trial : state->trials) {
        if (isOver(trial.status))
            continue;
        const QString runDir = runsDir + u'/' + trial.runId;
        const auto spec = run::RunDirectory(runDir).readSpec();
        if (spec) { // it got as far as its folder: stop what runs of it
            auto target = factory(spec->target);
            if (target) {
                if (const auto cancelled = target->cancel(runDir, graceMs); !cancelled)
                    problems << cancelled.error().toString();
                if (const auto record = store.run(trial.runId)) {
                    run::RunFollower follower(store, *target, runDir, *record);
                    (void)follower.poll();
                }
            }
        }
        store.flush();
        const auto record = store.run(trial.runId);
        trial.status = record && run::isFinished(record->status) ? trialStatusOf(*record) : TrialStatus::Cancelled;
        trial.finishedMs = QDateTime::currentMSecsSinceEpoch();
    }
    if (state->status == SweepStatus::Running) {
        state->status = SweepStatus::Cancelled;
        state->finishedMs = QDateTime::currentMSecsSinceEpoch();
    }
    if (const auto written = dir.writeState(*state); !written)
        return written.error();
    (void)QFile::remove(dir.cancelFile());
    dir.log(u"cancelled (its controller was gone)"_s);
    if (!problems.isEmpty())
        return Error{problems.join(u"; "_s), dir.path(), 0, 0, u"see 'ferry runs list'"_s};
    return state;
}

} // namespace ferry::sweep
