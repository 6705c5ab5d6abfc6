#include "targets/containerbudget.h"

#include "run/budgetclock.h"
#include "run/rundirectory.h"
#include "targets/containertarget.h"
#include "targets/shellquote.h"

#include <QFileInfo>
#include <QProcess>
#include <QThread>

#include <algorithm>
#include <csignal>
#include <cstdio>

using namespace Qt::StringLiterals;

namespace ferry::targets {

namespace {

constexpr int kTickMs = 250;                       // how often the clock and exit.json are looked at
const QString kWatcherPid = u"budgetWatcherPid"_s; // in container.json
const QString kWatcherTicks = u"budgetWatcherTicks"_s;

void say(const QString &line)
{
    std::fprintf(stdout, "ferry: %s\n", qPrintable(line)); // stdout is the run's log
    std::fflush(stdout);
}

} // namespace

Expected<void> startContainerBudgetWatcher(const QString &runDir, const QString &ferryProgram, const QString &engine,
                                           QJsonObject &record)
{
    const run::RunDirectory dir(runDir);
    QProcess process;
    process.setProgram(ferryProgram);
    process.setArguments({kContainerBudgetCommand, dir.path(), engine});
    process.setWorkingDirectory(dir.path());
    process.setStandardInputFile(QProcess::nullDevice());
    process.setStandardOutputFile(dir.logFile(), QIODevice::Append);
    process.setStandardErrorFile(dir.logFile(), QIODevice::Append);
    qint64 pid = 0;
    if (!process.startDetached(&pid))
        return Error{
            u"cannot start the watcher of the run's budget '%1': %2"_s.arg(ferryProgram, process.errorString()),
            {},
            0,
            0,
            u"reinstall Ferry, or start the run without --max-cost and --max-time"_s};
    record[kWatcherPid] = static_cast<double>(pid);
    record[kWatcherTicks] = static_cast<double>(run::processState(pid).value_or(run::ProcessState{}).startTicks);
    return {};
}

bool hasContainerBudgetWatcher(const QJsonObject &record)
{
    return record.contains(kWatcherPid);
}

bool containerBudgetWatcherAlive(const QJsonObject &record)
{
    const auto pid = static_cast<qint64>(record.value(kWatcherPid).toDouble());
    const auto ticks = static_cast<quint64>(record.value(kWatcherTicks).toDouble());
    return pid > 0 && run::isSameLiveProcess(pid, ticks);
}

qint64 containerBackstopSeconds(const run::RunBudget &budget)
{
    const qint64 cap = budget.limitSeconds();
    return cap > 0 ? cap + std::max(0, budget.graceSeconds) + kContainerBackstopSlackSeconds : 0;
}

Expected<QString> containerBackstopShell(const run::RunBudget &budget, const QString &log)
{
    const qint64 wait = containerBackstopSeconds(budget);
    if (wait <= 0)
        return QString();
    const int grace = std::max(0, budget.graceSeconds);
    const auto stopping = shellQuote(u"ferry: %1: its watcher did not stop it, the container stops itself (SIGTERM "
                                     u"now, SIGKILL in %2 s)"_s.arg(budget.reachedText(), QString::number(grace)));
    const auto killing = shellQuote(u"ferry: "_s + run::BudgetClock(budget, {}).logLine(run::BudgetClock::Step::Kill));
    const auto target = shellQuote(log);
    if (!stopping || !killing || !target)
        return Error{u"the run's budget cannot be written on a command line"_s, {}, 0, 0, {}};
    // $$ is the shell that becomes the script (exec): the process the engine's stop signals too.
    return u"( sleep %1; echo %2 >>%4; kill -TERM $$; sleep %5; kill -0 $$ && echo %3 >>%4 && kill -KILL $$ ) "
           u">/dev/null 2>&1 &\n"_s.arg(QString::number(wait), *stopping, *killing, *target, QString::number(grace));
}

bool endedByContainerBackstop(const run::RunBudget &budget, qint64 startedMs, qint64 finishedMs)
{
    const qint64 wait = containerBackstopSeconds(budget);
    return wait > 0 && startedMs > 0 && finishedMs - startedMs >= wait * 1000;
}

int holdContainerBudget(const QString &runDir, const QString &engine, const run::SupervisorHooks &hooks)
{
    const run::RunDirectory dir(runDir);
    const auto spec = dir.readSpec();
    if (!spec) {
        say(u"the budget's watcher cannot read the run: "_s + spec.error().toString());
        return 1;
    }
    if (const auto left = run::leaveStartersSession(); !left)
        say(u"the budget's watcher stays in Ferry's session: "_s + left.error().toString());
    ContainerTarget target(engine);
    run::BudgetClock budget(spec->budget, spec->id, runDir);
    // The script's time since its container started, as the engine says (a watcher started again
    // by a probe, containertarget.h, keeps the cap where it was); else since this watcher started,
    // just after the container.
    const auto started = target.scriptStartedMs(runDir);
    const qint64 origin = started ? *started : run::nowMs();
    const auto elapsed = [origin] { return run::nowMs() - origin; };
    qint64 nextProbe = run::nowMs() + kContainerBudgetProbeMs;
    while (budget.holds()) {
        if (QFileInfo::exists(dir.exitFile()) || !QFileInfo::exists(dir.specFile()))
            return 0; // ended, cancelled, or stopped by whoever came first; or the run was deleted
        if (run::nowMs() >= nextProbe) {
            nextProbe = run::nowMs() + kContainerBudgetProbeMs;
            // The container's own end is recorded by the probe (its archives packed too).
            if (const auto probed = target.probe(runDir); probed && probed->state != RunState::Running)
                return 0;
        }
        for (auto step = budget.next(elapsed()); step != run::BudgetClock::Step::None; step = budget.next(elapsed())) {
            say(budget.logLine(step));
            if (const QString title = budget.title(step); !title.isEmpty() && hooks.notify)
                hooks.notify(title, budget.body(step));
            if (step != run::BudgetClock::Step::Stop)
                continue; // the word at 80 %; the grace after the stop is the engine's (below)
            const QString reason = spec->budget.reachedText();
            const auto stopped =
                target.stop(runDir, spec->budget.graceSeconds * 1000, run::ExitRecord{-1, SIGTERM, 0, true, reason},
                            budget.logLine(run::BudgetClock::Step::Kill));
            if (!stopped) {
                say(u"the budget could not stop the run: "_s + stopped.error().toString());
                return 1;
            }
            return 0;
        }
        QThread::msleep(kTickMs);
    }
    return 0;
}

} // namespace ferry::targets
