#include "cli/runsupport.h"
#include "common/leftovers.h"

#include "metrics/terminaltext.h"
#include "secrets/secretstore.h"
#include "store/metricexport.h"
#include "targets/targetfactory.h"
#include "tracking/runfollower.h"
#include "tracking/runlabels.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QSettings>
#include <QThread>

#include <atomic>
#include <csignal>

using namespace Qt::StringLiterals;

namespace ferry::cli {

namespace {

std::atomic<bool> g_stopFollowing{false};

extern "C" void onInterrupt(int)
{
    g_stopFollowing = true;
}

} // namespace

std::optional<RunContext> openRunContext(const QString &dir, Io &io)
{
    const auto workspace = workspace::Workspace::open(dir.isEmpty() ? QDir::currentPath() : dir);
    if (!workspace) {
        io.err << "ferry: " << workspace.error().toString() << Qt::endl;
        return std::nullopt;
    }
    // A store of an older Ferry is converted first: that may take a while, and is said.
    auto store = run::RunStore::open(
        run::RunStore::pathInWorkspace(workspace->root()),
        run::conversionProgressPrinter([&io](const QString &line) { io.err << "ferry: " << line << Qt::endl; }));
    if (!store) {
        io.err << "ferry: " << store.error().toString() << Qt::endl;
        return std::nullopt;
    }
    (void)sweepRunFolderLeftovers(workspace->runsDir()); // a crash's temp files (common/leftovers.h)
    return RunContext{*workspace, std::move(*store)};
}

std::unique_ptr<targets::Target> makeTarget(const run::TargetSpec &spec, Io &io)
{
    if (auto target = targets::makeTarget(spec, QCoreApplication::applicationFilePath()))
        return target;
    io.err << "ferry: the " << spec.toString()
           << " target is not available in this version yet; use --target local or container" << Qt::endl;
    return nullptr;
}

QString runDirOf(const RunContext &context, const QString &runId)
{
    return context.workspace.runsDir() + u'/' + runId;
}

QString timeText(qint64 ms)
{
    return ms ? QDateTime::fromMSecsSinceEpoch(ms).toString(u"yyyy-MM-dd HH:mm:ss"_s) : u"-"_s;
}

QString durationText(qint64 startedMs, qint64 finishedMs)
{
    if (!startedMs)
        return u"-"_s;
    const qint64 end = finishedMs ? finishedMs : QDateTime::currentMSecsSinceEpoch();
    const qint64 s = std::max<qint64>(0, (end - startedMs) / 1000);
    return s >= 3600 ? u"%1h%2m"_s.arg(s / 3600).arg((s % 3600) / 60, 2, 10, QChar(u'0'))
                     : u"%1m%2s"_s.arg(s / 60).arg(s % 60, 2, 10, QChar(u'0'));
}

std::optional<run::RunRecord> findRun(const run::RunStore &store, const QString &idOrPart, Io &io)
{
    // Its id, its start, or its end (the short id a legend shows): one rule, run::resolveRun.
    auto found = run::resolveRun(store.runs(), idOrPart);
    if (found)
        return *found;
    io.err << "ferry: " << found.error().message << "; " << found.error().hint << Qt::endl;
    return std::nullopt;
}

QHash<QString, run::Progress> refreshUnfinishedRuns(RunContext &context, Io &io)
{
    QHash<QString, run::Progress> progress;
    for (const run::RunRecord &record : context.store->runs()) {
        if (run::isFinished(record.status) || record.status == run::RunStatus::Created)
            continue;
        const auto spec = run::RunSpec::fromJson(record.spec);
        if (!spec)
            continue;
        Io quiet{io.out, io.err};
        auto target = makeTarget(spec->target, quiet);
        if (!target)
            continue;
        run::RunFollower follower(*context.store, *target, runDirOf(context, record.id), record);
        follower.setReturnLines(false); // the store brought up to date, nothing shown
        const auto step = follower.poll();
        if (step && !step->finished) {
            if (const auto p = follower.progress(QDateTime::currentMSecsSinceEpoch()))
                progress.insert(record.id, *p);
        }
    }
    context.store->flush();
    return progress;
}

int followRun(RunContext &context, const run::RunRecord &record, Io &io)
{
    return followRunWith(context, record, io, {}).code;
}

FollowOutcome followRunWith(RunContext &context, const run::RunRecord &record, Io &io, const FollowOptions &options)
{
    FollowOutcome outcome;
    outcome.end = record;
    const auto spec = run::RunSpec::fromJson(record.spec);
    if (!spec) {
        io.err << "ferry: run " << record.id << ": " << spec.error().toString() << Qt::endl;
        outcome.code = kExitInternalError;
        return outcome;
    }
    auto target = makeTarget(spec->target, io);
    if (!target) {
        outcome.code = kExitUserError;
        return outcome;
    }
    run::RunFollower follower(*context.store, *target, runDirOf(context, record.id), record);
    // The run's secrets never show in what is printed, even if the script prints them.
    if (!spec->secretVariables.isEmpty()) {
        QSettings settings;
        secrets::SecretStore store(settings);
        secrets::Redactor redactor;
        for (const auto &[variable, secret] : spec->secretVariables) {
            if (const auto value = store.readNow(secret))
                redactor.addSecret(*value);
        }
        follower.setRedactor(std::move(redactor));
    }
    g_stopFollowing = false;
    const auto previous = std::signal(SIGINT, onInterrupt);
    QString detail; // what a remote target says while it runs: queue position, reconnecting
    while (true) {
        const auto step = follower.poll();
        if (!step) {
            io.err << "ferry: " << step.error().toString() << Qt::endl;
            outcome.code = kExitInternalError;
            break;
        }
        if (!step->finished && step->probe.detail != detail) {
            detail = step->probe.detail;
            if (!detail.isEmpty())
                io.err << "run " << record.id << ": " << detail << Qt::endl;
        }
        // L7: as the window shows them, so no control sequence a script prints reaches the terminal.
        if (options.printLog) {
            for (const QByteArray &line : step->lines)
                io.out << run::terminalText(line) << '\n';
            io.out.flush();
        }
        outcome.end = follower.record();
        if (options.afterStep)
            context.store->flush(); // what the step stored (a metric file's points too) is read there
        const bool stop =
            options.afterStep &&
            options.afterStep(outcome.end, !step->lines.isEmpty() || step->points > 0, step->probe.queued);
        if (step->finished) {
            const run::RunRecord &end = follower.record();
            io.err << "run " << end.id << ": " << run::runStatusLabel(end);
            if (end.exitCode)
                io.err << " (exit code " << *end.exitCode << ")";
            if (!end.error.isEmpty())
                io.err << ": " << end.error;
            io.err << Qt::endl;
            outcome.code = end.status == run::RunStatus::Succeeded ? kExitOk : kExitUserError;
            outcome.ended = true;
            break;
        }
        if (stop)
            break;
        if (g_stopFollowing) {
            io.err << "stopped following; run " << record.id << " goes on. Follow it again with 'ferry runs attach "
                   << record.id << "'" << Qt::endl;
            outcome.interrupted = true;
            break;
        }
        QThread::msleep(250);
        QCoreApplication::processEvents(); // answers from the session bus (notify/desktopnotifier.h)
    }
    std::signal(SIGINT, previous);
    context.store->flush();
    return outcome;
}

} // namespace ferry::cli
