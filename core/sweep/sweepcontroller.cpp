#include "sweep/sweepcontroller.h"

#include "common/filelock.h"
#include "cost/budget.h"
#include "run/rundirectory.h"
#include "targets/remoterun.h"
#include "targets/slurmtarget.h"
#include "tracking/runfollower.h"
#include "tracking/runlauncher.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSet>
#include <QSettings>
#include <QThread>

#include <algorithm>
#include <cmath>

using namespace Qt::StringLiterals;

namespace ferry::sweep {

namespace {

// How long an adopted run whose start was never confirmed may go without a sign of it (its
// supervisor's record, its exit) before it is lost: as long as a start waits for one
// (targets/localtarget.h).
constexpr qint64 kUnconfirmedStartMs = 60000;

} // namespace

struct SweepController::Running {
    std::unique_ptr<run::RunFollower> follower;
    qsizetype judgedPoints = -1; // the curve's size when the rule last judged it
    // An adopted run whose start a killed controller never saw confirmed: until then (ms since
    // the epoch) a probe that finds nothing of it yet is waited out, not taken for its loss.
    qint64 unconfirmedUntilMs = 0;
};

SweepController::SweepController(run::RunStore &store, workspace::Workspace workspace, SweepDirectory dir,
                                 TargetFactory factory, ControllerOptions options)
    : m_store(store), m_workspace(std::move(workspace)), m_dir(std::move(dir)), m_factory(std::move(factory)),
      m_options(std::move(options))
{
}

SweepController::~SweepController() = default;

int SweepController::slots(const SweepSpec &spec, const ControllerOptions &options, QString *why)
{
    int slots = std::max(1, spec.maxParallel);
    const auto target = run::TargetSpec::parse(spec.target);
    const bool onThisMachine =
        target && (target->kind == run::TargetKind::Local || target->kind == run::TargetKind::Container);
    if (!onThisMachine)
        return slots; // the cluster or the host holds its own queue
    QStringList reasons;
    if (options.cores > 0 && options.cores < slots) {
        slots = options.cores;
        reasons << u"this machine has %1 cores"_s.arg(options.cores);
    }
    if (!options.gpus.isEmpty() && options.gpus.size() < slots) {
        slots = static_cast<int>(options.gpus.size());
        reasons << u"%1 GPUs, one per trial"_s.arg(options.gpus.size());
    }
    if (why)
        *why = reasons.join(u", "_s);
    return slots;
}

Expected<void> SweepController::save()
{
    return m_dir.writeState(m_state);
}

QString SweepController::takeGpu()
{
    if (m_options.gpus.isEmpty() || !m_onThisMachine)
        return {};
    QSet<QString> used;
    for (const auto &[number, running] : m_running)
        used.insert(m_state.trials[number].gpu);
    for (const QString &gpu : m_options.gpus) {
        if (!used.contains(gpu))
            return gpu;
    }
    return {};
}

Expected<void> SweepController::prepare()
{
    auto state = m_dir.readState();
    if (!state)
        return state.error();
    m_state = *state;
    m_state.status = SweepStatus::Running;
    m_state.error.clear();
    const SweepRead read = m_dir.readSpec();
    if (hasErrors(read.diagnostics)) {
        for (const Diagnostic &d : read.diagnostics) {
            if (d.isError())
                return d.where;
        }
    }
    m_spec = read.spec;
    m_sampler = std::make_unique<Sampler>(m_spec);
    auto base = trialTemplate(m_spec, m_state.sourceFile, m_workspace.root());
    if (!base)
        return base.error();
    m_base = *base;
    m_target = m_factory(m_base.target);
    if (!m_target)
        return Error{u"the %1 target is not available in this version"_s.arg(m_base.target.toString()),
                     m_state.sourceFile,
                     0,
                     0,
                     {}};
    m_onThisMachine = m_base.target.kind == run::TargetKind::Local || m_base.target.kind == run::TargetKind::Container;
    if (auto *slurm = dynamic_cast<targets::SlurmTarget *>(m_target.get()))
        m_array = std::make_unique<targets::SlurmArray>(slurm->shell());
    QString why;
    m_slots = slots(m_spec, m_options, &why);
    m_dir.log(why.isEmpty() ? u"controller started: %1 trials at a time"_s.arg(m_slots)
                            : u"controller started: %1 trials at a time (%2)"_s.arg(m_slots).arg(why));
    if (m_array) {
        if (const auto made = prepareArray(); !made)
            return made;
    }
    for (Trial &trial : m_state.trials) {
        if (isOver(trial.status)) {
            m_curves.insert(trial.number, trialCurve(m_store, trial.number, trial.runId, *m_sampler));
            continue;
        }
        if (const auto adopted = adopt(trial); !adopted)
            return adopted;
    }
    return save();
}

// The sweep's job array: its folder and its submission, each saved as soon as it is made, so a
// controller that dies in between finds them (the folder records its job id: never twice).
Expected<void> SweepController::prepareArray()
{
    if (m_state.arrayDir.isEmpty()) {
        const auto dir = m_array->makeFolder(m_base, m_state.id);
        if (!dir)
            return dir.error();
        m_state.arrayDir = *dir;
        if (const auto saved = save(); !saved)
            return saved;
    }
    if (m_state.arrayJob.isEmpty()) {
        const auto job =
            m_array->submit(m_base, m_state.arrayDir, m_state.id, m_spec.plannedTrials(), m_spec.maxParallel);
        if (!job)
            return job.error();
        m_state.arrayJob = job->jobId;
        m_dir.log(u"submitted as Slurm job array %1: %2 tasks, %3 at a time"_s.arg(job->jobId)
                      .arg(m_spec.plannedTrials())
                      .arg(m_spec.maxParallel));
    }
    m_arrayJob = targets::SlurmArrayJob{m_state.arrayJob, m_state.arrayDir};
    return {};
}

// The array's tasks that started and wait: each gets its trial (the same number), sampled now
// from the trials over so far. A task that starts before a lower one (Slurm may) has the lower
// trials made first: trial n is always trials[n].
Expected<void> SweepController::placeWaiting()
{
    const auto waiting = m_array->waitingTasks(m_arrayJob);
    if (!waiting) {
        m_dir.log(waiting.error().toString());
        return {};
    }
    for (const int task : *waiting) {
        while (!m_exhausted && task >= m_state.trials.size()) {
            const auto added = addTrial();
            if (!added)
                return added.error();
        }
        if (m_exhausted && task >= m_state.trials.size())
            break;
    }
    // Nothing runs and no task waits (the next one may wait in the queue for hours): the next
    // trial is judged against the budget now, as it would be when its task starts (nothing
    // changes meanwhile), so a spent budget ends the sweep at once and closes the array's rest.
    if (!m_exhausted && m_running.empty() && waiting->isEmpty() && m_spec.budget.any()) {
        const auto next = nextTrial();
        if (!next)
            return next.error();
    }
    if (m_exhausted && !m_arrayClosed)
        m_arrayClosed = m_array->closeRest(m_arrayJob).hasValue();
    return {};
}

// A trial a previous controller left not over: followed again when its run exists, launched
// (under the same run id) when it never got as far as its folder.
Expected<void> SweepController::adopt(Trial &trial)
{
    const QString runDir = m_workspace.runsDir() + u'/' + trial.runId;
    std::optional<run::RunRecord> record = m_store.run(trial.runId);
    // Every target claims the run's folder (writes its spec.json) before it starts anything of
    // the run, and launchRun stores the record before that: a controller killed in between
    // leaves a record, perhaps an empty folder, and nothing that runs. Followed, such a run
    // would never end (there is no run folder to probe): its record goes, and it is launched
    // again under the same run id, so it runs once.
    if (!QFileInfo::exists(run::RunDirectory(runDir).specFile())) {
        if (record) {
            m_store.deleteRun(trial.runId);
            m_store.flush();
        }
        m_dir.log(u"trial %1 never started: starting it"_s.arg(trial.number));
        return launch(trial);
    }
    // launchRun stores the run as running once its target's start returned: before that, the
    // controller was killed inside the start, and what it started may not have reported yet.
    const bool unconfirmed =
        !record || record->status == run::RunStatus::Created || record->status == run::RunStatus::Building;
    if (!record) {
        const auto spec = run::RunDirectory(runDir).readSpec();
        if (!spec) {
            m_dir.log(u"trial %1 never started: starting it"_s.arg(trial.number));
            return launch(trial);
        }
        // Its folder was claimed, but the controller died before the store had the record.
        run::RunRecord made = run::newRunRecord(*spec);
        m_store.createRun(made);
        m_store.setParams(spec->id, spec->hyperparameters);
        m_store.setStatus(spec->id, run::RunStatus::Running);
        m_store.flush();
        record = m_store.run(trial.runId);
        if (!record)
            return Error{u"cannot store trial %1's run"_s.arg(trial.number), runDir, 0, 0, {}};
    }
    if (m_array) { // a Slurm trial: placed in its task, or never
        const auto placed = adoptArrayTrial(trial, runDir);
        if (!placed)
            return placed.error();
        if (!*placed)
            return launch(trial);
        record = m_store.run(trial.runId);
    }
    m_dir.log(u"trial %1 (run %2): followed again%3"_s.arg(trial.number)
                  .arg(trial.runId, unconfirmed ? u" (its start was never confirmed)"_s : QString()));
    auto running = std::make_unique<Running>();
    running->follower = std::make_unique<run::RunFollower>(m_store, *m_target, runDir, *record);
    if (unconfirmed)
        running->unconfirmedUntilMs = QDateTime::currentMSecsSinceEpoch() + kUnconfirmedStartMs;
    m_running.emplace(trial.number, std::move(running));
    trial.status = TrialStatus::Running;
    return {};
}

// A Slurm trial a dead controller left: placed in its task (the task runs it; its run's job id
// written now if the controller died before it did), or not placed, when nothing of it ran: its
// run goes, here and on the host, and the trial is launched again under the same run id.
Expected<bool> SweepController::adoptArrayTrial(const Trial &trial, const QString &runDir)
{
    const auto record = targets::RemoteRecord::read(runDir);
    if (record && record->has_value() && !(*record)->jobId.isEmpty())
        return true;
    const auto placed = m_array->placed(m_arrayJob, trial.number);
    if (!placed)
        return placed.error();
    if (*placed) {
        targets::RemoteRecord made = record && record->has_value() ? **record : targets::RemoteRecord{};
        made.jobId = u"%1_%2"_s.arg(m_arrayJob.jobId).arg(trial.number);
        if (const auto written = made.write(runDir); !written)
            return written.error();
        return true;
    }
    m_dir.log(
        u"trial %1 (run %2) was never placed in its task: starting it again"_s.arg(trial.number).arg(trial.runId));
    if (auto *remote = dynamic_cast<targets::RemoteTarget *>(m_target.get()))
        (void)remote->removeRemoteFolder(runDir);
    m_store.deleteRun(trial.runId);
    m_store.flush();
    QDir(runDir).removeRecursively();
    return false;
}

Expected<void> SweepController::launch(Trial &trial)
{
    trial.status = TrialStatus::Starting;
    if (const auto saved = save(); !saved) // before the run exists: a resume finds it by its id
        return saved;
    run::RunSpec spec = trialSpec(m_base, m_state.id, trial);
    if (m_array)
        targets::SlurmArrayTask{m_arrayJob, trial.number}.addTo(spec);
    const auto record = run::launchRun(m_store, *m_target, m_workspace.runsDir(), spec);
    if (!record) {
        trial.status = TrialStatus::Failed;
        trial.detail = record.error().toString();
        trial.finishedMs = QDateTime::currentMSecsSinceEpoch();
        m_dir.log(u"trial %1 could not start: %2"_s.arg(trial.number).arg(trial.detail));
        if (m_array) // its task would wait for it
            (void)m_array->cancelTask(m_arrayJob, trial.number);
        return save();
    }
    trial.status = TrialStatus::Running;
    trial.startedMs = record->startedMs;
    QStringList hp;
    for (const run::Hyperparameter &h : trial.hyperparameters)
        hp << u"--%1 %2"_s.arg(h.name, h.value);
    m_dir.log(u"trial %1 started (run %2): %3%4"_s.arg(trial.number)
                  .arg(trial.runId, hp.join(u' '), trial.gpu.isEmpty() ? QString() : u", GPU "_s + trial.gpu));
    auto running = std::make_unique<Running>();
    running->follower =
        std::make_unique<run::RunFollower>(m_store, *m_target, m_workspace.runsDir() + u'/' + trial.runId, *record);
    m_running.emplace(trial.number, std::move(running));
    return save();
}

// The next trial, when a slot is free and the plan has one: sampled (TPE from the trials over
// so far) and launched. False when nothing was started.
Expected<bool> SweepController::startNext()
{
    if (m_exhausted || static_cast<int>(m_running.size()) >= m_slots)
        return false;
    return addTrial();
}

// Trial number trials.size(), when the plan has it: sampled and launched. False (and the plan
// exhausted) when it has no more, or the budget allows no more.
Expected<bool> SweepController::addTrial()
{
    auto next = nextTrial();
    if (!next)
        return next.error();
    if (!*next)
        return false;
    Trial trial = std::move(**next);
    const int number = trial.number;
    trial.gpu = takeGpu();
    m_state.trials << trial;
    if (const auto launched = launch(m_state.trials.last()); !launched)
        return launched.error();
    if (number + 1 >= m_spec.plannedTrials())
        m_exhausted = true;
    return true;
}

// Trial number trials.size() as it would start now (sampled from the trials over: the same
// sample whenever it is drawn), not added; nullopt, the plan exhausted, when it has no more or
// the sweep's budget allows no more (the reason saved in the state).
Expected<std::optional<Trial>> SweepController::nextTrial()
{
    const int number = static_cast<int>(m_state.trials.size());
    if (number >= m_spec.plannedTrials()) {
        m_exhausted = true;
        return std::optional<Trial>{};
    }
    std::vector<Observation> finished;
    for (const Trial &t : m_state.trials) {
        if (!isOver(t.status))
            continue;
        const double objective =
            t.objective ? m_sampler->minimized(*t.objective) : std::numeric_limits<double>::quiet_NaN();
        finished.push_back(Observation{t.point, objective});
    }
    const auto point = m_sampler->sample(number, finished);
    if (!point) {
        m_exhausted = true;
        return std::optional<Trial>{};
    }
    Trial trial;
    trial.number = number;
    trial.runId = run::newRunId(m_base.script);
    trial.point = *point;
    trial.hyperparameters = m_sampler->hyperparameters(*point);
    if (const QString why = budgetStop(trial); !why.isEmpty()) {
        m_exhausted = true; // the trials running finish; no other starts
        m_state.stopReason = why;
        m_dir.log(u"no more trials: "_s + why);
        if (const auto saved = save(); !saved)
            return saved.error();
        return std::optional<Trial>{};
    }
    return std::optional<Trial>{std::move(trial)};
}

// Why `trial` must not start: the sweep's budget (cost/budget.h, sweepBudgetStop); empty when it fits.
QString SweepController::budgetStop(const Trial &trial) const
{
    if (!m_spec.budget.any())
        return {};
    QList<run::RunRecord> trials;
    for (const Trial &t : m_state.trials) {
        if (auto record = m_store.run(t.runId))
            trials << *record;
    }
    const cost::RatesRead rates = cost::readRates(QSettings());
    return cost::sweepBudgetStop(m_spec.budget.maxCost, m_spec.budget.maxSeconds, trials,
                                 trialSpec(m_base, m_state.id, trial), m_store.runs(), rates.rates,
                                 QDateTime::currentMSecsSinceEpoch());
}

void SweepController::finishTrial(Trial &trial, const run::RunRecord &record)
{
    trial.status = trialStatusOf(record);
    if (!isOver(trial.status))
        trial.status = TrialStatus::Lost;
    trial.objective = trialObjective(m_store, trial.runId, m_spec);
    trial.finishedMs = record.finishedMs > 0 ? record.finishedMs : QDateTime::currentMSecsSinceEpoch();
    if (!record.error.isEmpty())
        trial.detail = record.error;
    m_curves.insert(trial.number, trialCurve(m_store, trial.number, trial.runId, *m_sampler));
    const bool why =
        (trial.status == TrialStatus::Lost || trial.status == TrialStatus::Failed) && !trial.detail.isEmpty();
    m_dir.log(u"trial %1 %2%3%4"_s.arg(trial.number)
                  .arg(trialStatusText(trial.status),
                       trial.objective ? u", %1 = %2"_s.arg(m_spec.metric).arg(*trial.objective) : QString(),
                       why ? u": "_s + trial.detail : QString()));
}

Expected<void> SweepController::followAll()
{
    bool changed = false;
    for (auto it = m_running.begin(); it != m_running.end();) {
        Trial &trial = m_state.trials[it->first];
        if (it->second->unconfirmedUntilMs > 0) {
            // Nothing of it yet (no supervisor's record, no exit): its start may still come.
            const auto probe = m_target->probe(m_workspace.runsDir() + u'/' + trial.runId);
            if (probe && probe->state == targets::RunState::Lost &&
                QDateTime::currentMSecsSinceEpoch() < it->second->unconfirmedUntilMs) {
                ++it;
                continue;
            }
            it->second->unconfirmedUntilMs = 0; // seen, or waited for long enough: followed as it is
        }
        const auto step = it->second->follower->poll();
        if (!step) {
            m_dir.log(u"trial %1: %2"_s.arg(trial.number).arg(step.error().toString()));
            // A run whose folder is gone (deleted meanwhile) never ends: the trial is lost, not
            // followed forever. Other errors (a host out of reach) are tried again next round.
            const QString runDir = m_workspace.runsDir() + u'/' + trial.runId;
            if (!QFileInfo::exists(run::RunDirectory(runDir).specFile())) {
                trial.status = TrialStatus::Lost;
                trial.detail = u"its run folder is gone: "_s + step.error().toString();
                trial.finishedMs = QDateTime::currentMSecsSinceEpoch();
                if (m_store.run(trial.runId))
                    m_store.setStatus(trial.runId, run::RunStatus::Lost, std::nullopt, trial.detail);
                m_dir.log(u"trial %1 lost: %2"_s.arg(trial.number).arg(trial.detail));
                it = m_running.erase(it);
                changed = true;
                continue;
            }
            ++it;
            continue;
        }
        if (step->points > 0 || step->finished)
            m_curves.insert(trial.number, trialCurve(m_store, trial.number, trial.runId, *m_sampler));
        if (step->finished) {
            finishTrial(trial, it->second->follower->record());
            it = m_running.erase(it);
            changed = true;
            continue;
        }
        ++it;
    }
    return changed ? save() : Expected<void>{};
}

// Early stopping: each running trial whose curve grew, against every other trial's curve.
void SweepController::judgeAll()
{
    if (m_spec.earlyStopping.rule == StoppingRule::None)
        return;
    QList<int> stop;
    QHash<int, QString> reasons;
    for (auto it = m_running.begin(); it != m_running.end(); ++it) {
        const TrialCurve curve = m_curves.value(it->first, TrialCurve{it->first, {}});
        const auto size = static_cast<qsizetype>(curve.points.size());
        if (size == it->second->judgedPoints)
            continue;
        it->second->judgedPoints = size;
        std::vector<TrialCurve> others;
        for (auto c = m_curves.cbegin(); c != m_curves.cend(); ++c) {
            if (c.key() != it->first)
                others.push_back(c.value());
        }
        const StoppingDecision decision = shouldStop(m_spec.earlyStopping, curve, others);
        if (decision.stop) {
            stop << it->first;
            reasons.insert(it->first, decision.reason);
        }
    }
    for (const int number : stop) {
        Trial &trial = m_state.trials[number];
        const QString runDir = m_workspace.runsDir() + u'/' + trial.runId;
        m_dir.log(u"trial %1 stops early: %2"_s.arg(number).arg(reasons.value(number)));
        (void)run::RunDirectory(runDir).writeStopReason(reasons.value(number));
        if (const auto cancelled = m_target->cancel(runDir, m_options.cancelGraceMs); !cancelled)
            m_dir.log(u"trial %1: %2"_s.arg(number).arg(cancelled.error().toString()));
    }
}

Expected<void> SweepController::cancelAll()
{
    m_dir.log(u"cancelling: %1 trials running"_s.arg(m_running.size()));
    if (m_array) { // one scancel of the array: its running and its waiting tasks
        QStringList folders;
        for (auto it = m_running.begin(); it != m_running.end(); ++it) {
            const auto record =
                targets::RemoteRecord::read(m_workspace.runsDir() + u'/' + m_state.trials[it->first].runId);
            if (record && record->has_value())
                folders << (*record)->dir;
        }
        if (const auto cancelled = m_array->cancel(m_arrayJob, folders); !cancelled)
            m_dir.log(cancelled.error().toString());
    } else {
        for (auto it = m_running.begin(); it != m_running.end(); ++it) {
            const Trial &trial = m_state.trials[it->first];
            const QString runDir = m_workspace.runsDir() + u'/' + trial.runId;
            if (const auto cancelled = m_target->cancel(runDir, m_options.cancelGraceMs); !cancelled)
                m_dir.log(u"trial %1: %2"_s.arg(trial.number).arg(cancelled.error().toString()));
        }
    }
    // Until each run's end is stored (a cancelled run's archives are packed first).
    for (int round = 0; !m_running.empty() && round < 600; ++round) {
        if (const auto followed = followAll(); !followed)
            return followed;
        if (!m_running.empty())
            QThread::msleep(100);
    }
    for (auto it = m_running.cbegin(); it != m_running.cend(); ++it)
        m_state.trials[it->first].status = TrialStatus::Cancelled;
    m_running.clear();
    return {};
}

Expected<SweepState> SweepController::run()
{
    const auto lock = FileLock::tryLock(m_dir.lockFile());
    if (!lock)
        return lock.error();
    if (!lock->has_value())
        return Error{u"another controller drives this sweep"_s, m_dir.path(), 0, 0, {}};
    const auto end = [this](SweepStatus status, const QString &error = {}) -> Expected<SweepState> {
        m_state.status = status;
        m_state.error = error;
        m_state.finishedMs = QDateTime::currentMSecsSinceEpoch();
        m_dir.log(error.isEmpty() ? u"sweep %1"_s.arg(sweepStatusText(status))
                                  : u"sweep %1: %2"_s.arg(sweepStatusText(status), error));
        if (const auto saved = save(); !saved)
            return saved.error();
        m_store.flush();
        return m_state;
    };
    if (const auto prepared = prepare(); !prepared) {
        if (m_state.id.isEmpty())
            return prepared.error(); // no state to record the failure in
        return end(SweepStatus::Failed, prepared.error().toString());
    }
    while (true) {
        if (m_dir.cancelRequested()) {
            if (const auto cancelled = cancelAll(); !cancelled)
                return cancelled.error();
            (void)QFile::remove(m_dir.cancelFile());
            return end(SweepStatus::Cancelled);
        }
        if (m_options.stop && m_options.stop()) {
            m_dir.log(u"controller stopped; 'ferry sweep resume %1' goes on"_s.arg(m_state.id));
            m_store.flush();
            return m_state;
        }
        if (const auto followed = followAll(); !followed)
            return followed.error();
        judgeAll();
        if (m_array) {
            if (const auto placed = placeWaiting(); !placed)
                return placed.error();
        }
        while (!m_array) {
            const auto started = startNext();
            if (!started)
                return started.error();
            if (!*started)
                break;
        }
        if (m_running.empty() && (m_exhausted || m_state.trials.size() >= m_spec.plannedTrials())) {
            if (m_array) // nothing of the array is left in the queue
                (void)m_array->cancel(m_arrayJob, {});
            return end(SweepStatus::Finished);
        }
        QThread::msleep(static_cast<unsigned long>(m_onThisMachine ? std::min(m_options.pollMs, m_options.localPollMs)
                                                                   : m_options.pollMs));
    }
}

} // namespace ferry::sweep
