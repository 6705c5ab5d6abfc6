#include "targets/containerbudget.h"

#include "run/budgetclock.h"
#include "run/rundirectory.h"
#include "targets/containertarget.h"

#include <QElapsedTimer>
#include <QFileInfo>
#include <QThread>

#include <csignal>
#include <cstdio>

using namespace Qt::StringLiterals;

namespace ferry::targets {

namespace {

constexpr int kTickMs = 250; // how often the clock and exit.json are looked at

void say(const QString &line)
{
    std::fprintf(stdout, "ferry: %s\n", qPrintable(line)); // stdout is the run's log
    std::fflush(stdout);
}

} // namespace

int holdContainerBudget(const QString &runDir, const QString &engine, const run::SupervisorHooks &hooks)
{
    QElapsedTimer clock; // the probes' pace
    clock.start();
    const run::RunDirectory dir(runDir);
    const auto spec = dir.readSpec();
    if (!spec) {
        say(u"the budget's watcher cannot read the run: "_s + spec.error().toString());
        return 1;
    }
    if (const auto left = run::leaveStartersSession(); !left)
        say(u"the budget's watcher stays in Ferry's session: "_s + left.error().toString());
    ContainerTarget target(engine);
    run::BudgetClock budget(spec->budget, spec->id);
    // The script's time since its container started, as the engine says (a watcher started again
    // by a probe, containertarget.h, keeps the cap where it was); else since this watcher started,
    // just after the container.
    const auto started = target.scriptStartedMs(runDir);
    const qint64 origin = started ? *started : run::nowMs();
    const auto elapsed = [origin] { return run::nowMs() - origin; };
    qint64 nextProbe = kContainerBudgetProbeMs;
    while (budget.holds()) {
        if (QFileInfo::exists(dir.exitFile()) || !QFileInfo::exists(dir.specFile()))
            return 0; // ended, cancelled, or stopped by whoever came first; or the run was deleted
        if (clock.elapsed() >= nextProbe) {
            nextProbe = clock.elapsed() + kContainerBudgetProbeMs;
            // The container's own end is recorded by the probe (its archives packed too).
            if (const auto probed = target.probe(runDir); probed && probed->state != RunState::Running)
                return 0;
        }
        for (auto step = budget.next(elapsed()); step != run::BudgetClock::Step::None; step = budget.next(elapsed())) {
            if (step == run::BudgetClock::Step::Kill)
                continue; // the engine's stop holds the grace (below)
            say(budget.logLine(step));
            if (const QString title = budget.title(step); !title.isEmpty() && hooks.notify)
                hooks.notify(title, budget.body(step));
            if (step != run::BudgetClock::Step::Stop)
                continue;
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
