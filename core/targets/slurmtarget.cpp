#include "targets/slurmtarget.h"

#include "run/distribution.h"
#include "run/supervisor.h"
#include "targets/shellquote.h"
#include "targets/slurmarray.h"
#include "targets/slurmjob.h"

#include <QDeadlineTimer>
#include <QFileInfo>
#include <QJsonObject>
#include <QRegularExpression>
#include <QThread>

#include <algorithm>
#include <csignal>

using namespace Qt::StringLiterals;

namespace ferry::targets {

namespace {

constexpr int kCancelWaitMs = 120000; // Slurm's KillWait plus the time it takes to clean up
constexpr int kCancelCallMs = 60000;

// A running job's cancel (SlurmTarget::cancel): told to the run's folder (the runner records the
// end as cancelled), then `scancel`. With a grace ($3 seconds, a run across nodes), SIGTERM to the
// job's steps first (every rank, not the batch script nor the srun in it) and the job that long to
// end; a job not running yet cannot be signalled and is cancelled at once.
const QByteArray kCancelScript = R"BASH(touch "$1/cancel-requested"
if [ "$3" -gt 0 ] && scancel --signal=TERM "$2" 2>/dev/null; then
  i=0
  while [ "$i" -lt $(($3 * 5)) ] && squeue -h -j "$2" -o %i 2>/dev/null | grep -q .; do sleep 0.2; i=$((i + 1)); done
  squeue -h -j "$2" -o %i 2>/dev/null | grep -q . || exit 0
fi
scancel "$2"
)BASH";

std::unique_ptr<RemoteShell> shellFor(const QString &host, SshOptions options)
{
    if (host == u"local"_s)
        return std::make_unique<LocalShell>();
    return std::make_unique<SshShell>(host, std::move(options));
}

Expected<QString> option(const QJsonObject &options, const QString &name, const QRegularExpression &valid,
                         const QString &example)
{
    const QJsonValue v = options.value(name);
    const QString text = v.isDouble() ? QString::number(v.toInt()) : v.toString();
    if (!text.isEmpty() && !valid.match(text).hasMatch())
        return Error{u"--%1 '%2' is not valid for Slurm"_s.arg(name, text), {}, 0, 0, u"write e.g. "_s + example};
    return text;
}

// Slurm's --time in seconds: "M", "M:S", "H:M:S", "D-H", "D-H:M", "D-H:M:S" (sbatch(1)); the
// form is checked before (the `time` pattern above).
qint64 slurmTimeSeconds(const QString &text)
{
    const qsizetype dash = text.indexOf(u'-');
    const qint64 days = dash >= 0 ? text.left(dash).toLongLong() : 0;
    const QStringList parts = text.mid(dash + 1).split(u':');
    qint64 h = 0;
    qint64 m = 0;
    qint64 sec = 0;
    if (dash >= 0) { // D-H[:M[:S]]
        h = parts.value(0).toLongLong();
        m = parts.value(1).toLongLong();
        sec = parts.value(2).toLongLong();
    } else if (parts.size() == 3) {
        h = parts[0].toLongLong();
        m = parts[1].toLongLong();
        sec = parts[2].toLongLong();
    } else {
        m = parts.value(0).toLongLong();
        sec = parts.value(1).toLongLong();
    }
    return ((days * 24 + h) * 60 + m) * 60 + sec;
}

} // namespace

QString SlurmTarget::budgetTimeLimit(const run::RunBudget &budget)
{
    const qint64 limit = budget.limitSeconds();
    if (limit <= 0)
        return {};
    const qint64 minutes = (limit + budget.graceSeconds + 59) / 60; // rounded up: never before the cap and grace
    return u"%1:%2:00"_s.arg(minutes / 60).arg(minutes % 60, 2, 10, QChar(u'0'));
}

SlurmTarget::SlurmTarget(const QString &host, SshOptions options)
    : RemoteTarget(shellFor(host, std::move(options)), run::TargetKind::Slurm,
                   host == u"local"_s ? u"this machine's Slurm"_s : u"the Slurm cluster at '%1'"_s.arg(host))
{
}

Expected<QStringList> SlurmTarget::sbatchOptions(const run::RunSpec &spec, const QString &remoteDir)
{
    const QJsonObject &o = spec.target.options;
    static const QRegularExpression count(u"^[1-9][0-9]{0,4}$"_s);
    static const QRegularExpression name(u"^[A-Za-z0-9_.,-]+$"_s);
    static const QRegularExpression time(u"^([0-9]+-)?[0-9]{1,3}(:[0-9]{2}){0,2}$"_s);
    static const QRegularExpression mem(u"^[0-9]+[KMGT]?$"_s);
    const auto gpus = option(o, u"gpus"_s, count, u"--gpus 1"_s);
    const auto partition = option(o, u"partition"_s, name, u"--partition gpu"_s);
    const auto limit = option(o, u"time"_s, time, u"--time 02:00:00"_s);
    const auto cpus = option(o, u"cpus"_s, count, u"--cpus 8"_s);
    const auto memory = option(o, u"mem"_s, mem, u"--mem 16G"_s);
    for (const auto *checked : {&gpus, &partition, &limit, &cpus, &memory}) {
        if (!*checked)
            return checked->error();
    }
    const auto distribution = run::Distribution::of(spec.target);
    if (!distribution)
        return distribution.error();
    QStringList lines{u"--job-name=ferry-%1"_s.arg(spec.id.left(100)), u"--output=%1/slurm-%j.out"_s.arg(remoteDir),
                      u"--chdir=%1"_s.arg(remoteDir)};
    if (distribution->isDistributed()) // one batch script; its srun starts the ranks (scripts::ranks)
        lines << u"--nodes=%1"_s.arg(distribution->nodes) << u"--ntasks-per-node=%1"_s.arg(distribution->tasksPerNode);
    if (distribution->gpusPerNode > 0) // Slurm's --gres is per node
        lines << u"--gres=gpu:%1"_s.arg(distribution->gpusPerNode);
    else if (!gpus->isEmpty() && distribution->gpusPerNode < 0)
        lines << u"--gres=gpu:"_s + *gpus;
    if (!partition->isEmpty())
        lines << u"--partition="_s + *partition;
    // A run's budget is its time limit too (cap and grace, rounded up to minutes), unless --time is
    // shorter: Slurm itself ends it there, whether Ferry is running or not.
    const QString capped = budgetTimeLimit(spec.budget);
    if (!capped.isEmpty() && (limit->isEmpty() || slurmTimeSeconds(*limit) > slurmTimeSeconds(capped)))
        lines << u"--time="_s + capped;
    else if (!limit->isEmpty())
        lines << u"--time="_s + *limit;
    if (!cpus->isEmpty())
        lines << u"--cpus-per-task="_s + *cpus;
    if (!memory->isEmpty())
        lines << u"--mem="_s + *memory;
    lines << (o.value(u"requeue"_s).toBool() ? u"--requeue"_s : u"--no-requeue"_s);
    for (const QString &line : lines) {
        if (line.contains(u'\n') || line.contains(u' '))
            return Error{u"the Slurm option '%1' cannot be written in a batch script"_s.arg(line),
                         {},
                         0,
                         0,
                         u"use a run folder path without spaces (target option remoteDir)"_s};
    }
    return lines;
}

Expected<void> SlurmTarget::start(const QString &runDir, const run::RunSpec &spec)
{
    // The options are checked before anything is copied.
    if (const auto checked = sbatchOptions(spec, u"/"_s); !checked)
        return checked.error();
    const QJsonValue gpus = spec.target.options.value(u"gpus"_s);
    const run::Distribution distribution = run::Distribution::orSingle(spec.target);
    const int gpuCount = distribution.gpusPerNode >= 0 ? distribution.gpusPerNode
                         : gpus.isDouble()             ? gpus.toInt()
                                                       : gpus.toString().toInt();
    const auto shape = [&spec](const QString &remoteDir, const HostInfo &, run::Resources &) -> Expected<RunnerParts> {
        const auto lines = sbatchOptions(spec, remoteDir);
        if (!lines)
            return lines.error();
        return RunnerParts{*lines, {}, {}, {}};
    };
    const auto prepared = prepare(runDir, spec, shape, gpuCount);
    if (!prepared)
        return prepared.error();
    RemoteRecord record = prepared->record;
    progress(u"submitting the job to %1"_s.arg(m_place));
    // A cancel during the upload: no sbatch, and the secrets are sent only now (M1, M2).
    if (const auto ready = readyToLaunch(runDir, *prepared); !ready)
        return ready.error();
    // A cancel that reached the folder first (cancel-requested) stops the submission there. A
    // task of a sweep's job array is not submitted: it is placed (slurmarray.h), its task runs it.
    const auto task = SlurmArrayTask::of(spec);
    QByteArray launch = "FERRY_RUN_ID=\"$2\" sbatch --parsable --export=ALL runner.sh";
    static const QRegularExpression arrayJob(u"^[0-9]+$"_s);
    if (task && !arrayJob.match(task->job.jobId).hasMatch())
        return failStart(runDir, Error{u"'%1' is not a Slurm job id"_s.arg(task->job.jobId), {}, 0, 0, {}});
    if (task) {
        const auto placeFile = shellQuote(u"%1/tasks/%2.run"_s.arg(task->job.dir).arg(task->task));
        if (!placeFile)
            return failStart(runDir, placeFile.error());
        launch = "f=" + placeFile->toUtf8() +
                 "; printf '%s\\n' \"$1\" > \"$f.tmp\" && mv -f \"$f.tmp\" \"$f\" && echo " + task->job.jobId.toUtf8() +
                 '_' + QByteArray::number(task->task);
    }
    const ShellResult submitted = launchUnlessCancelled(record.dir, spec.id, launch);
    if (launchWasCancelled(submitted))
        return cancelledStart(runDir, record.dir);
    const QString jobId = QString::fromUtf8(submitted.out).trimmed().section(u';', 0, 0);
    static const QRegularExpression number(u"^[0-9]+(_[0-9]+)?$"_s);
    if (!submitted.ok() || !number.match(jobId).hasMatch())
        return failStart(
            runDir, Error{task ? u"cannot place the trial in the sweep's job array on %1: %2"_s.arg(
                                     m_shell->place(), submitted.errorText())
                               : u"sbatch on %1 refused the job: %2"_s.arg(m_shell->place(), submitted.errorText()),
                          {},
                          0,
                          0,
                          u"check the partition, time and resources asked for"_s});
    record.jobId = jobId;
    if (const auto written = record.write(runDir); !written) {
        (void)m_shell->run({u"scancel"_s, jobId}); // a job Ferry cannot name would run untracked
        return failStart(runDir, written.error());
    }
    // A cancel that raced sbatch saw no job id and wrote the exit record: the job it got goes.
    // (It writes the exit record, then reads remote.json; we wrote remote.json, now read the
    // exit record: one of us sees the other.)
    if (QFileInfo::exists(run::RunDirectory(runDir).exitFile())) {
        (void)m_shell->runScript("touch \"$1/cancel-requested\"; scancel \"$2\"\n", {record.dir, jobId});
        return cancelledStart(runDir, record.dir);
    }
    progress(task ? u"placed as task %1 of Slurm job array %2"_s.arg(task->task).arg(task->job.jobId)
                  : u"submitted as Slurm job %1"_s.arg(jobId));
    return {};
}

Expected<RunProbe> SlurmTarget::judge(const QString &runDir, RemoteRun &run, const RemoteRecord &record,
                                      const RemoteStatus &status)
{
    const auto spec = run::RunDirectory(runDir).readSpec();
    const bool requeue = spec && spec->target.options.value(u"requeue"_s).toBool();
    SlurmJob job = parseScontrolJob(status.job);
    if (!job.known && !status.accounting.isEmpty())
        job = parseSacctLine(status.accounting);
    RunProbe p;
    p.heartbeatMs = status.heartbeatMs;
    if (!job.known) {
        if (status.exit)
            return finish(runDir, run, record, *status.exit);
        p.state = RunState::Lost;
        p.detail =
            u"Slurm on %1 no longer knows job %2 and it left no exit record"_s.arg(m_shell->place(), record.jobId);
        return p;
    }
    const SlurmVerdict verdict = judgeSlurmJob(job, status.queuePosition, requeue);
    if (!verdict.ended) {
        p.state = RunState::Running;
        p.detail = verdict.detail;
        p.queued = verdict.pending;
        return p;
    }
    // The job's own record when it wrote one; else what Slurm says (time limit, memory, node).
    if (status.exit && verdict.state != RunState::Failed)
        return finish(runDir, run, record, *status.exit);
    if (status.exit && status.exit->exitCode != 0 && job.state == u"FAILED"_s)
        return finish(runDir, run, record, *status.exit);
    run::ExitRecord exit{job.signal == 0 ? job.exitCode : -1, job.signal, 0, verdict.state == RunState::Cancelled, {}};
    if (verdict.state == RunState::Failed) {
        exit.error = verdict.detail;
        exit.cause = verdict.cause;
        if (exit.exitCode == 0 && exit.signal == 0)
            exit.exitCode = 1; // TIMEOUT, NODE_FAIL...: Slurm may report 0:0 for those
    }
    return finish(runDir, run, record, exit);
}

Expected<RunProbe> SlurmTarget::cancel(const QString &runDir, int graceMs)
{
    // One node: scancel, and Slurm's KillWait decides how long the job has after SIGTERM. Across
    // nodes srun would make Slurm's SIGTERM a SIGKILL for every rank, so every rank gets its
    // SIGTERM through Slurm first (the job's steps, scripts::ranks), the job `graceMs` to end.
    const run::RunDirectory dir(runDir);
    const auto spec = dir.readSpec();
    const bool ranks = spec && run::Distribution::orSingle(spec->target).isDistributed();
    const QString grace = QString::number(ranks ? (std::max(0, graceMs) + 999) / 1000 : 0);
    const auto start = cancelStart<RemoteRecord>(dir, [&] { return RemoteRecord::read(runDir); });
    if (!start)
        return start.error();
    if (start->ended)
        return probe(runDir);
    const std::optional<RemoteRecord> &record = start->record;
    if (!record || record->jobId.isEmpty()) {
        // Told to the run folder there first (the submission checks it), then recorded here;
        // then remote.json read again: a job that sbatch gave meanwhile is cancelled (M1).
        if (record)
            (void)m_shell->runScript("touch \"$1/cancel-requested\" 2>/dev/null; rm -rf -- \"$1/secrets\"\n",
                                     {record->dir});
        dir.recordEnd(run::ExitRecord{-1, 0, 0, true, u"cancelled before it was submitted"_s});
        const auto now = RemoteRecord::read(runDir);
        if (now && now->has_value() && !(*now)->jobId.isEmpty())
            (void)m_shell->runScript("touch \"$1/cancel-requested\"; scancel \"$2\"\n", {(*now)->dir, (*now)->jobId});
        return probe(runDir);
    }
    const RemoteRecord &r = *record;
    const ShellResult cancelled = m_shell->runScript(kCancelScript, {r.dir, r.jobId, grace}, kCancelCallMs + graceMs);
    if (!cancelled.ok())
        return Error{u"scancel %1 on %2 failed: %3"_s.arg(r.jobId, m_shell->place(), cancelled.errorText()),
                     {},
                     0,
                     0,
                     u"try again once the cluster answers"_s};
    RemoteRun run(*m_shell, runDir);
    const QDeadlineTimer deadline(kCancelWaitMs);
    for (;;) {
        const auto status = run.status(r);
        if (status) {
            const SlurmJob job = parseScontrolJob(status->job);
            const bool gone = !job.known || judgeSlurmJob(job, 0, false).ended;
            // Gone from the queue as well: squeue lists a job until its processes are cleaned up.
            const ShellResult queued = m_shell->run({u"squeue"_s, u"-h"_s, u"-j"_s, r.jobId, u"-o"_s, u"%i"_s});
            if (gone && queued.reached && QString::fromUtf8(queued.out).trimmed().isEmpty()) {
                run::ExitRecord exit{-1, SIGTERM, 0, true, {}};
                if (status->exit) {
                    exit = *status->exit;
                    exit.cancelled = true;
                }
                return finish(runDir, run, r, exit);
            }
        }
        if (deadline.hasExpired())
            return Error{u"Slurm job %1 on %2 is still there %3 s after scancel"_s.arg(r.jobId, m_shell->place())
                             .arg(kCancelWaitMs / 1000),
                         {},
                         0,
                         0,
                         u"check it with squeue -j %1"_s.arg(r.jobId)};
        QThread::msleep(250);
    }
}

} // namespace ferry::targets
