#include "targets/slurmjob.h"

#include <QHash>
#include <QRegularExpression>

using namespace Qt::StringLiterals;

namespace ferry::targets {

namespace {

void readExitCode(const QString &text, SlurmJob &job)
{
    const QStringList parts = text.split(u':');
    job.exitCode = parts.value(0).toInt();
    job.signal = parts.value(1).toInt();
}

} // namespace

SlurmJob parseScontrolJob(const QString &line)
{
    SlurmJob job;
    if (!line.contains(u"JobState="_s))
        return job;
    // Key=Value fields separated by spaces; values of the keys we read hold no spaces.
    static const QRegularExpression field(u"(?:^|\\s)([A-Za-z:]+)=(\\S*)"_s);
    QHash<QString, QString> fields;
    auto it = field.globalMatch(line);
    while (it.hasNext()) {
        const auto m = it.next();
        if (!fields.contains(m.captured(1)))
            fields.insert(m.captured(1), m.captured(2));
    }
    job.known = true;
    job.state = fields.value(u"JobState"_s);
    job.reason = fields.value(u"Reason"_s);
    job.restarts = fields.value(u"Restarts"_s).toInt();
    readExitCode(fields.value(u"ExitCode"_s), job);
    return job;
}

SlurmJob parseSacctLine(const QString &line)
{
    SlurmJob job;
    const QStringList parts = line.trimmed().split(u'|');
    if (parts.size() < 2 || parts.first().isEmpty())
        return job;
    job.known = true;
    job.state = parts.first().section(u' ', 0, 0);
    readExitCode(parts.at(1), job);
    return job;
}

SlurmVerdict judgeSlurmJob(const SlurmJob &job, int queuePosition, bool requeue)
{
    SlurmVerdict v;
    const QString &s = job.state;
    const QString attempt = job.restarts > 0 ? u"attempt %1"_s.arg(job.restarts + 1) : QString();
    const auto withAttempt = [&](const QString &detail) {
        if (attempt.isEmpty())
            return detail;
        return detail.isEmpty() ? attempt : detail + u", "_s + attempt;
    };
    const QString reason = job.reason.isEmpty() || job.reason == u"None"_s ? QString() : job.reason;
    if (s == u"PENDING"_s || s == u"CONFIGURING"_s || s == u"REQUEUED"_s || s == u"REQUEUE_HOLD"_s ||
        s == u"REQUEUE_FED"_s || s == u"RESV_DEL_HOLD"_s) {
        v.pending = true;
        v.detail = u"pending"_s;
        if (queuePosition > 0)
            v.detail += u", position %1 in the queue"_s.arg(queuePosition);
        if (!reason.isEmpty())
            v.detail += u", waiting for: "_s + reason;
        if (s.startsWith(u"REQUEUE"_s))
            v.detail = u"requeued; "_s + v.detail;
        v.detail = withAttempt(v.detail);
        return v;
    }
    if (s == u"RUNNING"_s || s == u"COMPLETING"_s || s == u"SIGNALING"_s || s == u"STAGE_OUT"_s || s == u"RESIZING"_s ||
        s == u"STOPPED"_s || s == u"SUSPENDED"_s) {
        v.detail = withAttempt(s == u"RUNNING"_s ? QString() : s.toLower());
        return v;
    }
    if (s == u"PREEMPTED"_s && requeue) {
        v.detail = withAttempt(u"preempted; Slurm requeues it"_s);
        return v;
    }
    v.ended = true;
    if (s == u"COMPLETED"_s) {
        v.state = RunState::Succeeded;
        return v;
    }
    if (s == u"CANCELLED"_s) {
        v.state = RunState::Cancelled;
        v.detail = u"the job was cancelled"_s;
        return v;
    }
    v.state = RunState::Failed;
    static const QHash<QString, QString> why{
        {u"FAILED"_s, u"the job failed (exit code %1)"_s},
        {u"TIMEOUT"_s, u"the job reached its time limit (--time)"_s},
        {u"OUT_OF_MEMORY"_s, u"the job ran out of memory (--mem)"_s},
        {u"NODE_FAIL"_s, u"the job's node failed"_s},
        {u"PREEMPTED"_s, u"the job was preempted (start it with --requeue to have it requeued)"_s},
        {u"BOOT_FAIL"_s, u"the job's node failed to boot"_s},
        {u"DEADLINE"_s, u"the job missed its deadline"_s},
    };
    static const QHash<QString, QString> causes{{u"TIMEOUT"_s, u"time-limit"_s},
                                                {u"OUT_OF_MEMORY"_s, u"out-of-memory"_s},
                                                {u"NODE_FAIL"_s, u"node-failure"_s},
                                                {u"BOOT_FAIL"_s, u"node-failure"_s},
                                                {u"PREEMPTED"_s, u"preempted"_s}};
    v.cause = causes.value(s);
    v.detail = why.value(s, u"Slurm ended the job in state %1"_s.arg(s));
    if (v.detail.contains(u"%1"_s))
        v.detail = v.detail.arg(job.exitCode);
    return v;
}

} // namespace ferry::targets
