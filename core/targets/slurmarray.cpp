#include "targets/slurmarray.h"

#include "targets/remoterun.h"
#include "targets/shellquote.h"
#include "targets/slurmtarget.h"

#include <QDeadlineTimer>
#include <QJsonObject>
#include <QRegularExpression>
#include <QThread>

using namespace Qt::StringLiterals;

namespace ferry::targets {

namespace {

// Each task, started by Slurm: says it waits (with its own job id), then runs its trial's
// runner once the controller has placed it; ends without one when the sweep has no more
// trials (done) or was cancelled.
constexpr char kTaskBody[] = R"BASH(
T=$SLURM_ARRAY_TASK_ID
cd -- "$ARRAY" || exit 1
echo "${SLURM_JOB_ID:-}" > "tasks/$T.waiting.tmp" && mv -f "tasks/$T.waiting.tmp" "tasks/$T.waiting"
while :; do
  [ -e cancelled ] && exit 0
  if [ -s "tasks/$T.run" ]; then
    RUN=$(head -n 1 "tasks/$T.run")
    [ -f "$RUN/runner.sh" ] || { echo "ferry: task $T: no runner in $RUN"; exit 1; }
    exec bash "$RUN/runner.sh"
  fi
  [ -e done ] && exit 0
  sleep 0.2
done
)BASH";

ShellResult touchAll(RemoteShell &shell, const SlurmArrayJob &job, const QStringList &runFolders, const char *marker)
{
    QStringList args{job.dir, QString::fromLatin1(marker)};
    args << runFolders;
    return shell.runScript("cd -- \"$1\" || exit 1\ntouch -- \"$2\"\nshift 2\n"
                           "for r in \"$@\"; do [ -d \"$r\" ] && touch -- \"$r/cancel-requested\"; done\nexit 0\n",
                           args);
}

} // namespace

std::optional<SlurmArrayTask> SlurmArrayTask::of(const run::RunSpec &spec)
{
    const QJsonObject o = spec.target.options.value(u"arrayTask"_s).toObject();
    if (o.isEmpty())
        return std::nullopt;
    return SlurmArrayTask{{o.value(u"job"_s).toString(), o.value(u"dir"_s).toString()}, o.value(u"task"_s).toInt()};
}

void SlurmArrayTask::addTo(run::RunSpec &spec) const
{
    spec.target.options.insert(u"arrayTask"_s,
                               QJsonObject{{u"job"_s, job.jobId}, {u"dir"_s, job.dir}, {u"task"_s, task}});
}

Expected<QByteArray> SlurmArray::script(const run::RunSpec &trialTemplate, const QString &dir, const QString &sweepId,
                                        int tasks, int parallel)
{
    auto lines = SlurmTarget::sbatchOptions(trialTemplate, dir);
    if (!lines)
        return lines.error();
    const auto quotedDir = shellQuote(dir);
    if (!quotedDir)
        return quotedDir.error();
    QStringList options{u"--job-name=ferry-sweep-%1"_s.arg(sweepId.left(90)),
                        u"--array=0-%1%%2"_s.arg(tasks - 1).arg(std::max(1, parallel)),
                        u"--output=%1/task-%a.out"_s.arg(dir), u"--chdir=%1"_s.arg(dir)};
    for (const QString &line : *lines) {
        if (!line.startsWith(u"--job-name="_s) && !line.startsWith(u"--output="_s) && !line.startsWith(u"--chdir="_s))
            options << line;
    }
    QByteArray text = "#!/bin/bash\n";
    for (const QString &line : options)
        text += "#SBATCH " + line.toUtf8() + '\n';
    text +=
        "# Ferry sweep " + sweepId.toUtf8() + ": one task per trial (written by Ferry: core/targets/slurmarray.cpp)\n";
    text += "ARRAY=" + quotedDir->toUtf8() + '\n';
    text += kTaskBody;
    return text;
}

Expected<QString> SlurmArray::makeFolder(const run::RunSpec &trialTemplate, const QString &sweepId)
{
    const QString root = trialTemplate.target.options.value(u"remoteDir"_s).toString(u".ferry/runs"_s);
    RemoteRun run(m_shell, {});
    const QString name = u"sweep-"_s + sweepId;
    auto made = run.createRemoteDir(root, name);
    if (!made) { // made before: the same folder (its name is the sweep's)
        const QString from = root == u"~"_s ? u"."_s : root.startsWith(u"~/"_s) ? root.mid(2) : root;
        const ShellResult r = m_shell.runScript("cd -- \"$1\" && cd -- \"$2\" && pwd\n", {from, name});
        if (!r.ok())
            return made.error();
        made = QString::fromUtf8(r.out).trimmed();
    }
    const ShellResult tasks = m_shell.runScript("mkdir -p -- \"$1/tasks\"\n", {*made});
    if (!tasks.ok())
        return Error{u"cannot make the sweep's folder %1 on %2: %3"_s.arg(*made, m_shell.place(), tasks.errorText()),
                     {},
                     0,
                     0,
                     u"check free disk space and permissions there"_s};
    return *made;
}

Expected<SlurmArrayJob> SlurmArray::submit(const run::RunSpec &trialTemplate, const QString &dir,
                                           const QString &sweepId, int tasks, int parallel)
{
    const auto text = script(trialTemplate, dir, sweepId, tasks, parallel);
    if (!text)
        return text.error();
    // Once: a folder that holds a job id was submitted (the controller died before saving it).
    const QByteArray submit = "cd -- \"$1\" || exit 1\n"
                              "if [ -s job ]; then cat job; exit 0; fi\n"
                              "cat > array.sh <<'FERRY_ARRAY_SCRIPT'\n" +
                              *text +
                              "FERRY_ARRAY_SCRIPT\n"
                              "j=$(sbatch --parsable --export=ALL array.sh) || exit 1\n"
                              "echo \"${j%%;*}\" > job.tmp && mv -f job.tmp job && cat job\n";
    const ShellResult r = m_shell.runScript(submit, {dir});
    const QString jobId = QString::fromUtf8(r.out).trimmed();
    static const QRegularExpression number(u"^[0-9]+$"_s);
    if (!r.ok() || !number.match(jobId).hasMatch())
        return Error{u"sbatch on %1 refused the sweep's job array: %2"_s.arg(m_shell.place(), r.errorText()),
                     {},
                     0,
                     0,
                     u"check the partition, time and resources asked for, and the cluster's MaxArraySize"_s};
    return SlurmArrayJob{jobId, dir};
}

Expected<QList<int>> SlurmArray::waitingTasks(const SlurmArrayJob &job)
{
    const ShellResult r =
        m_shell.runScript("cd -- \"$1/tasks\" 2>/dev/null || exit 0\n"
                          "for f in *.waiting; do t=${f%.waiting}; [ -e \"$t.run\" ] || echo \"$t\"; done\n",
                          {job.dir});
    if (!r.ok())
        return Error{
            u"cannot read the sweep's tasks on %1: %2"_s.arg(m_shell.place(), r.errorText()), job.dir, 0, 0, {}};
    QList<int> waiting;
    for (const QByteArray &line : r.out.split('\n')) {
        bool ok = false;
        const int task = line.trimmed().toInt(&ok);
        if (ok && task >= 0)
            waiting << task;
    }
    std::sort(waiting.begin(), waiting.end());
    return waiting;
}

Expected<void> SlurmArray::closeRest(const SlurmArrayJob &job)
{
    const ShellResult r = touchAll(m_shell, job, {}, "done");
    if (!r.ok())
        return Error{
            u"cannot close the sweep's job array on %1: %2"_s.arg(m_shell.place(), r.errorText()), job.dir, 0, 0, {}};
    return {};
}

Expected<bool> SlurmArray::placed(const SlurmArrayJob &job, int task)
{
    const ShellResult r = m_shell.runScript("if [ -s \"$1/tasks/$2.run\" ]; then echo yes; else echo no; fi\n",
                                            {job.dir, QString::number(task)});
    if (!r.ok())
        return Error{
            u"cannot read the sweep's tasks on %1: %2"_s.arg(m_shell.place(), r.errorText()), job.dir, 0, 0, {}};
    return r.out.trimmed() == "yes";
}

Expected<void> SlurmArray::cancelTask(const SlurmArrayJob &job, int task)
{
    const QString id = u"%1_%2"_s.arg(job.jobId).arg(task);
    const ShellResult r = m_shell.run({u"scancel"_s, id});
    if (!r.ok())
        return Error{u"scancel %1 on %2 failed: %3"_s.arg(id, m_shell.place(), r.errorText()), {}, 0, 0, {}};
    return {};
}

Expected<QStringList> SlurmArray::queued(const SlurmArrayJob &job)
{
    const ShellResult r = m_shell.run({u"squeue"_s, u"-h"_s, u"-j"_s, job.jobId, u"-o"_s, u"%i"_s});
    if (!r.reached)
        return Error{
            u"cannot ask %1's Slurm about job %2: %3"_s.arg(m_shell.place(), job.jobId, r.failure), {}, 0, 0, {}};
    // A job Slurm forgot already is no longer queued.
    return QString::fromUtf8(r.out).split(u'\n', Qt::SkipEmptyParts);
}

Expected<void> SlurmArray::cancel(const SlurmArrayJob &job, const QStringList &runFolders, int waitMs)
{
    if (const ShellResult told = touchAll(m_shell, job, runFolders, "cancelled"); !told.ok())
        return Error{
            u"cannot tell the sweep's tasks on %1 they are cancelled: %2"_s.arg(m_shell.place(), told.errorText()),
            job.dir,
            0,
            0,
            {}};
    const ShellResult cancelled = m_shell.run({u"scancel"_s, job.jobId});
    if (!cancelled.ok())
        return Error{u"scancel %1 on %2 failed: %3"_s.arg(job.jobId, m_shell.place(), cancelled.errorText()),
                     {},
                     0,
                     0,
                     u"try again once the cluster answers"_s};
    const QDeadlineTimer deadline(waitMs);
    while (true) {
        const auto left = queued(job);
        if (left && left->isEmpty())
            return {};
        if (deadline.hasExpired())
            return Error{u"Slurm job array %1 on %2 is still there %3 s after scancel"_s.arg(job.jobId, m_shell.place())
                             .arg(waitMs / 1000),
                         {},
                         0,
                         0,
                         u"check it with squeue -j %1"_s.arg(job.jobId)};
        QThread::msleep(250);
    }
}

} // namespace ferry::targets
