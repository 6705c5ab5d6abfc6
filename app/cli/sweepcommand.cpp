// `ferry sweep plan|start|list|show|cancel|resume|...`: sweeps (docs/sweep-format.md). `plan`
// reads a sweep file, reports every problem as file:line:column and prints the trials it plans
// (every one of a grid or a random search, the random start of a TPE search); `start` makes
// the sweep and starts its detached controller (`ferry __sweep`, sweep/sweepcontroller.h);
// the others read or steer a sweep by its id (or the start of it).
#include "cli/command.h"
#include "cli/runexport.h"
#include "cli/runsupport.h"

#include "common/durationtext.h"
#include "common/textfile.h"
#include "cost/estimate.h"
#include "cost/money.h"
#include "sweep/sampler.h"
#include "sweep/sweepcontroller.h"
#include "sweep/sweepestimate.h"
#include "sweep/sweepfile.h"
#include "targets/targetfactory.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDeadlineTimer>
#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSettings>
#include <QThread>

#include <cmath>

using namespace Qt::StringLiterals;

namespace ferry::cli {

namespace {

using namespace ferry::sweep;
QString describe(const SweepSpec &s)
{
    const QString method = s.method == Method::Grid     ? u"grid search"_s
                           : s.method == Method::Random ? u"random search"_s
                                                        : u"TPE (bayes) search"_s;
    QString text = u"%1 of %2 trials, %3 at a time, scored by %4 (%5, %6 value)"_s.arg(method)
                       .arg(s.plannedTrials())
                       .arg(s.maxParallel)
                       .arg(s.metric, s.goal == Goal::Minimize ? u"minimize"_s : u"maximize"_s,
                            s.summary == Summary::Last ? u"last"_s : u"best"_s);
    if (s.earlyStopping.rule != StoppingRule::None)
        text += u"; early stopping: %1 from step %2"_s.arg(stoppingRuleName(s.earlyStopping.rule))
                    .arg(s.earlyStopping.minSteps);
    return text;
}

class SweepCommand final : public Command {
public:
    QString name() const override { return u"sweep"_s; }
    QString summary() const override
    {
        return u"sweeps: many trials of one script (grid, random, TPE), stopped early"_s;
    }
    int maxPositionalArguments() const override { return 2; }

    void configure(QCommandLineParser &parser) const override
    {
        parser.setApplicationDescription(
            u"Sweeps: one script run many times, its hyperparameters drawn from a search space\n"
            u"(the sweep file: docs/sweep-format.md). Each trial is a normal run ('ferry runs').\n\n"
            u"  ferry sweep plan FILE [--json]   check the file (every problem as file:line:column;\n"
            u"                                   exit 1 on errors) and print the trials it plans, with\n"
            u"                                   their estimated time and cost (docs/cost.md)\n"
            u"  ferry sweep start FILE           start the sweep; its controller goes on without Ferry\n"
            u"  ferry sweep list [--json]        the workspace's sweeps, newest first\n"
            u"  ferry sweep show ID [--json]     its trials: parameters, status, objective, duration\n"
            u"  ferry sweep cancel ID            cancel every running trial and end the sweep\n"
            u"  ferry sweep resume ID            go on after the controller was killed or crashed\n"
            u"  ferry sweep export ID|FILE --to azureml|sagemaker [-o PATH]\n"
            u"                                   the same search as an AzureML sweep job or a SageMaker\n"
            u"                                   HyperparameterTuner launcher; what they drop is said\n\n"
            u"ID is a sweep's id, the start of one, or a sweep file's name (its newest sweep)."_s);
        parser.addPositionalArgument(u"action"_s, u"plan, start, list, show, cancel, resume or export"_s, u"ACTION"_s);
        parser.addPositionalArgument(u"what"_s, u"The sweep file (plan, start) or the sweep's id."_s, u"FILE|ID"_s);
        parser.addOption({u"json"_s, u"Print JSON (plan, list, show)."_s});
        parser.addOption({u"workspace"_s, u"The workspace folder (default: the current folder)."_s, u"DIR"_s});
        parser.addOption({u"wait"_s, u"start, resume, cancel: return once the sweep is over."_s});
        addExportOptions(parser, u"sweep"_s);
    }

    int run(const QCommandLineParser &parser, Io &io) override
    {
        const QStringList args = parser.positionalArguments();
        const QString action = args.value(0);
        static const QStringList kActions{u"plan"_s,   u"start"_s,  u"list"_s,  u"show"_s,
                                          u"cancel"_s, u"resume"_s, u"export"_s};
        if (!kActions.contains(action))
            return usageError(name(),
                              action.isEmpty() ? u"say what to do: %1"_s.arg(kActions.join(u", "_s))
                                               : u"unknown action '%1' (%2)"_s.arg(action, kActions.join(u", "_s)),
                              io);
        const bool takesOne = action != u"list"_s;
        if (takesOne != (args.size() == 2))
            return usageError(name(),
                              takesOne ? u"'ferry sweep %1' takes %2"_s.arg(
                                             action, action == u"plan"_s || action == u"start"_s ? u"one sweep file"_s
                                                                                                 : u"one sweep id"_s)
                                       : u"'ferry sweep list' takes no argument"_s,
                              io);
        if (action == u"plan"_s) {
            const SweepRead read = readSweepFile(args[1]);
            if (reportDiagnostics(read.diagnostics, io))
                return kExitUserError;
            return plan(read.spec, estimates(read.spec, args[1], parser.value(u"workspace"_s), io),
                        parser.isSet(u"json"_s), io);
        }
        auto context = openRunContext(parser.value(u"workspace"_s), io);
        if (!context)
            return kExitUserError;
        if (action == u"start"_s)
            return start(*context, args[1], parser.isSet(u"wait"_s), io);
        if (action == u"list"_s)
            return list(*context, parser.isSet(u"json"_s), io);
        if (action == u"export"_s && QFileInfo(args[1]).isFile())
            return exportFile(*context, parser, args[1], io);
        const auto dir = findSweep(*context, args[1], io);
        if (!dir)
            return kExitUserError;
        if (action == u"show"_s)
            return show(*context, *dir, parser.isSet(u"json"_s), io);
        if (action == u"cancel"_s)
            return cancel(*context, *dir, io);
        if (action == u"export"_s)
            return exportSaved(*context, parser, *dir, io);
        return resume(*context, *dir, parser.isSet(u"wait"_s), io);
    }

private:
    // Every planned trial's estimate (cost/estimate.h) from the workspace's history; trials that
    // TPE picks as it goes are estimated from the fixed parameters alone, unless it picks their
    // work (epochs, steps): then they have none.
    struct TrialEstimates {
        QList<cost::CostEstimate> trials; // one per planned trial
        QString why;                      // why there is none at all (no workspace, the template)
    };
    static TrialEstimates estimates(const SweepSpec &spec, const QString &file, const QString &workspaceDir, Io &io)
    {
        TrialEstimates out;
        const auto workspace = workspace::Workspace::open(workspaceDir.isEmpty() ? QDir::currentPath() : workspaceDir);
        if (!workspace) {
            out.why = workspace.error().toString().section(u'\n', 0, 0);
            return out;
        }
        const auto base = trialTemplate(spec, file, workspace->root());
        if (!base) {
            out.why = base.error().toString().section(u'\n', 0, 0);
            return out;
        }
        QList<run::RunRecord> history;
        if (const QString db = run::RunStore::pathInWorkspace(workspace->root()); QFileInfo::exists(db)) {
            if (auto store = run::RunStore::open(db))
                history = (*store)->runs();
            else
                io.err << "ferry sweep: " << store.error().toString() << Qt::endl;
        }
        const cost::RatesRead rates = cost::readRates(QSettings());
        out.trials = estimateTrials(spec, *base, history, rates.rates);
        return out;
    }

    static QJsonObject totalJson(const cost::TotalEstimate &t, int parallel)
    {
        const auto range = [](double low, double typical, double high) {
            return QJsonObject{{u"low"_s, low}, {u"typical"_s, typical}, {u"high"_s, high}};
        };
        QJsonObject json{{u"trials"_s, t.trials},
                         {u"withHistory"_s, t.withHistory},
                         {u"maxParallel"_s, parallel},
                         {u"currency"_s, QString(cost::kCurrency)}};
        json[u"seconds"_s] =
            t.complete() ? QJsonValue(range(t.lowSeconds, t.typicalSeconds, t.highSeconds)) : QJsonValue();
        json[u"wallSeconds"_s] =
            t.complete() ? QJsonValue(range(t.lowWallSeconds, t.typicalWallSeconds, t.highWallSeconds)) : QJsonValue();
        json[u"cost"_s] = t.typicalCost ? QJsonValue(range(*t.lowCost, *t.typicalCost, *t.highCost)) : QJsonValue();
        return json;
    }

    static void printTotal(const SweepSpec &spec, const TrialEstimates &estimates, Io &io)
    {
        if (estimates.trials.isEmpty()) {
            io.out << "estimate: none (" << estimates.why << ")" << Qt::endl;
            return;
        }
        io.out << sweepEstimateText(spec, estimates.trials) << Qt::endl;
    }

    static int plan(const SweepSpec &spec, const TrialEstimates &estimates, bool json, Io &io)
    {
        const Sampler sampler(spec);
        const int planned = spec.plannedTrials();
        const int ahead = spec.method == Method::Bayes ? std::min(planned, Sampler::kStartupTrials) : planned;
        const auto typical = [&](int n) {
            const cost::CostEstimate *e = n < estimates.trials.size() ? &estimates.trials[n] : nullptr;
            return e && e->duration.hasHistory()
                       ? ferry::durationText(qint64(std::llround(e->duration.typicalSeconds * 1000)))
                       : u"-"_s;
        };
        QJsonArray trials;
        if (!json) {
            io.out << describe(spec) << Qt::endl;
            QStringList header{u"trial"_s};
            for (const Parameter &p : spec.parameters)
                header << p.name;
            header << u"estimate"_s;
            io.out << header.join(u'\t') << Qt::endl;
        }
        for (int n = 0; n < ahead; ++n) {
            const auto point = sampler.sample(n, {});
            if (!point)
                break;
            const QList<run::Hyperparameter> hp = sampler.hyperparameters(*point);
            if (json) {
                QJsonObject values;
                for (const run::Hyperparameter &h : hp)
                    values[h.name] = h.value;
                QJsonObject trial{{u"trial"_s, n}, {u"hyperparameters"_s, values}};
                if (n < estimates.trials.size())
                    trial[u"estimate"_s] = cost::estimateJson(estimates.trials[n]);
                trials.append(trial);
                continue;
            }
            QStringList row{QString::number(n)};
            for (const run::Hyperparameter &h : hp)
                row << h.value;
            row << typical(n);
            io.out << row.join(u'\t') << Qt::endl;
        }
        if (json) {
            QJsonObject out{{u"method"_s, methodName(spec.method)},
                            {u"planned"_s, planned},
                            {u"maxParallel"_s, spec.maxParallel},
                            {u"metric"_s, spec.metric},
                            {u"trials"_s, trials}};
            out[u"estimate"_s] =
                estimates.trials.isEmpty()
                    ? QJsonValue()
                    : QJsonValue(totalJson(cost::totalEstimate(estimates.trials, spec.maxParallel), spec.maxParallel));
            io.out << QJsonDocument(out).toJson(QJsonDocument::Compact) << Qt::endl;
            return kExitOk;
        }
        if (ahead < planned)
            io.out << "trials " << ahead << " to " << planned - 1
                   << ": chosen by TPE from the trials finished before each starts" << Qt::endl;
        printTotal(spec, estimates, io);
        return kExitOk;
    }
    // A sweep file, or a sweep's own copy of its file, as a cloud's tuner runs it; the job is
    // named after the file or the sweep.
    static int exportSpec(const RunContext &context, const QCommandLineParser &parser, const SweepRead &read,
                          const QString &file, const QString &id, Io &io)
    {
        if (reportDiagnostics(read.diagnostics, io))
            return kExitUserError;
        auto trial = trialTemplate(read.spec, file, context.workspace.root());
        if (!trial) {
            io.err << "ferry sweep export: " << trial.error().toString() << Qt::endl;
            return kExitUserError;
        }
        trial->id = id;
        return exportSweep(parser, read.spec, *trial, io);
    }
    static int exportFile(const RunContext &context, const QCommandLineParser &parser, const QString &file, Io &io)
    {
        return exportSpec(context, parser, readSweepFile(file), file, QFileInfo(file).completeBaseName(), io);
    }
    static int exportSaved(const RunContext &context, const QCommandLineParser &parser, const SweepDirectory &dir,
                           Io &io)
    {
        const auto state = dir.readState();
        if (!state) {
            io.err << "ferry sweep export: " << state.error().toString() << Qt::endl;
            return kExitUserError;
        }
        return exportSpec(context, parser, dir.readSpec(), state->sourceFile, state->id, io);
    }

    static std::optional<SweepDirectory> findSweep(const RunContext &context, const QString &idOrPrefix, Io &io)
    {
        QStringList matches;
        QString newestOfName; // the sweeps are newest first
        for (const SweepState &state : listSweeps(context.workspace.sweepsDir())) {
            if (state.id == idOrPrefix)
                return SweepDirectory(context.workspace.sweepsDir() + u'/' + state.id);
            if (state.id.startsWith(idOrPrefix))
                matches << state.id;
            if (state.name == idOrPrefix && newestOfName.isEmpty())
                newestOfName = state.id;
        }
        if (matches.isEmpty() && !newestOfName.isEmpty())
            return SweepDirectory(context.workspace.sweepsDir() + u'/' + newestOfName);
        if (matches.size() == 1)
            return SweepDirectory(context.workspace.sweepsDir() + u'/' + matches.first());
        if (matches.isEmpty())
            io.err << "ferry sweep: no sweep '" << idOrPrefix << "' in this workspace; see 'ferry sweep list'"
                   << Qt::endl;
        else
            io.err << "ferry sweep: '" << idOrPrefix << "' matches " << matches.size()
                   << " sweeps; give more of the id (see 'ferry sweep list')" << Qt::endl;
        return std::nullopt;
    }

    static int start(RunContext &context, const QString &file, bool wait, Io &io)
    {
        const auto text = readTextFile(file);
        if (!text) {
            io.err << "ferry sweep: " << text.error().toString() << Qt::endl;
            return kExitUserError;
        }
        const SweepRead read = parseSweepYaml(*text, file);
        if (reportDiagnostics(read.diagnostics, io))
            return kExitUserError;
        const auto state =
            startSweep(context.workspace, file, text->toUtf8(), read.spec, QCoreApplication::applicationFilePath());
        if (!state) {
            io.err << "ferry sweep: " << state.error().toString() << Qt::endl;
            return kExitUserError;
        }
        io.out << state->id << Qt::endl;
        io.err << "started sweep " << state->id << ": " << describe(read.spec) << "; see 'ferry sweep show "
               << state->id << "'" << Qt::endl;
        const SweepDirectory dir(context.workspace.sweepsDir() + u'/' + state->id);
        return wait ? waitForEnd(dir, io) : kExitOk;
    }

    // Until the sweep is over and its controller gone (a controller that dies first is said).
    static int waitForEnd(const SweepDirectory &dir, Io &io)
    {
        const QDeadlineTimer grace(10000); // the controller's start
        while (true) {
            const auto state = dir.readState();
            if (!state) {
                io.err << "ferry sweep: " << state.error().toString() << Qt::endl;
                return kExitInternalError;
            }
            const bool running = dir.controllerRunning();
            if (state->status != SweepStatus::Running && !running) {
                io.err << "sweep " << state->id << ": " << sweepStatusText(state->status)
                       << (state->error.isEmpty() ? QString() : u": "_s + state->error) << Qt::endl;
                return state->status == SweepStatus::Failed ? kExitUserError : kExitOk;
            }
            if (!running && grace.hasExpired()) {
                io.err << "ferry sweep: the controller of " << state->id << " is gone; see " << dir.logFile()
                       << ", then 'ferry sweep resume " << state->id << "'" << Qt::endl;
                return kExitUserError;
            }
            QThread::msleep(200);
        }
    }

    // A state whose controller is gone while it says running: its trials as the store has them.
    static SweepState asNow(const RunContext &context, const SweepDirectory &dir, SweepState state, bool *orphaned)
    {
        *orphaned = state.status == SweepStatus::Running && !dir.controllerRunning();
        if (!*orphaned)
            return state;
        for (Trial &t : state.trials) {
            if (isOver(t.status))
                continue;
            if (const auto record = context.store->run(t.runId); record && run::isFinished(record->status))
                t.status = trialStatusOf(*record);
        }
        return state;
    }

    static QJsonObject toJson(const SweepState &s, const SweepSpec &spec, bool orphaned)
    {
        QJsonArray trials;
        for (const Trial &t : s.trials) {
            QJsonObject hp;
            for (const run::Hyperparameter &h : t.hyperparameters)
                hp[h.name] = h.value;
            QJsonObject o{
                {u"trial"_s, t.number},     {u"run"_s, t.runId},         {u"status"_s, trialStatusText(t.status)},
                {u"hyperparameters"_s, hp}, {u"started"_s, t.startedMs}, {u"finished"_s, t.finishedMs}};
            o[u"objective"_s] = t.objective ? QJsonValue(*t.objective) : QJsonValue();
            if (!t.gpu.isEmpty())
                o[u"gpu"_s] = t.gpu;
            if (!t.detail.isEmpty())
                o[u"detail"_s] = t.detail;
            trials.append(o);
        }
        const auto best = s.best(spec.goal);
        QJsonObject json{{u"id"_s, s.id},
                         {u"name"_s, s.name},
                         {u"file"_s, s.sourceFile},
                         {u"status"_s, sweepStatusText(s.status)},
                         {u"controllerGone"_s, orphaned},
                         {u"error"_s, s.error},
                         {u"stopReason"_s, s.stopReason},
                         {u"metric"_s, spec.metric},
                         {u"goal"_s, spec.goal == Goal::Minimize ? u"minimize"_s : u"maximize"_s},
                         {u"planned"_s, spec.plannedTrials()},
                         {u"maxParallel"_s, spec.maxParallel},
                         {u"best"_s, best ? QJsonValue(*best) : QJsonValue()},
                         {u"created"_s, s.createdMs},
                         {u"finished"_s, s.finishedMs},
                         {u"trials"_s, trials}};
        if (!s.arrayDir.isEmpty())
            json[u"slurmArray"_s] = QJsonObject{{u"job"_s, s.arrayJob}, {u"dir"_s, s.arrayDir}};
        return json;
    }

    static int list(const RunContext &context, bool json, Io &io)
    {
        QStringList problems;
        const QList<SweepState> sweeps = listSweeps(context.workspace.sweepsDir(), &problems);
        for (const QString &p : problems)
            io.err << "ferry sweep: " << p << Qt::endl;
        QJsonArray out;
        if (!json)
            io.out << u"%1  %2  %3  %4"_s.arg(u"ID"_s, -40).arg(u"STATUS"_s, -9).arg(u"TRIALS"_s, -11).arg(u"CREATED"_s)
                   << '\n';
        for (const SweepState &s : sweeps) {
            const SweepDirectory dir(context.workspace.sweepsDir() + u'/' + s.id);
            const SweepSpec spec = dir.readSpec().spec;
            bool orphaned = false;
            const SweepState now = asNow(context, dir, s, &orphaned);
            if (json) {
                out.append(toJson(now, spec, orphaned));
                continue;
            }
            const qsizetype over =
                std::count_if(now.trials.begin(), now.trials.end(), [](const Trial &t) { return isOver(t.status); });
            io.out << u"%1  %2  %3  %4"_s.arg(s.id, -40)
                          .arg(orphaned ? u"stopped"_s : sweepStatusText(s.status), -9)
                          .arg(u"%1/%2"_s.arg(over).arg(spec.plannedTrials()), -11)
                          .arg(timeText(s.createdMs))
                   << '\n';
        }
        if (json)
            io.out << QJsonDocument(out).toJson(QJsonDocument::Compact) << Qt::endl;
        io.out.flush();
        return kExitOk;
    }

    static int show(const RunContext &context, const SweepDirectory &dir, bool json, Io &io)
    {
        const auto read = dir.readState();
        if (!read) {
            io.err << "ferry sweep: " << read.error().toString() << Qt::endl;
            return kExitUserError;
        }
        const SweepSpec spec = dir.readSpec().spec;
        bool orphaned = false;
        const SweepState s = asNow(context, dir, *read, &orphaned);
        if (json) {
            io.out << QJsonDocument(toJson(s, spec, orphaned)).toJson(QJsonDocument::Compact) << Qt::endl;
            return kExitOk;
        }
        io.out << "sweep:     " << s.id << '\n'
               << "file:      " << s.sourceFile << '\n'
               << "plan:      " << describe(spec) << '\n'
               << "status:    " << sweepStatusText(s.status) << (s.error.isEmpty() ? QString() : u": "_s + s.error)
               << '\n';
        if (!s.stopReason.isEmpty())
            io.out << "stopped:   " << s.stopReason << '\n';
        if (orphaned)
            io.out << "           its controller is gone (killed or crashed): 'ferry sweep resume " << s.id
                   << "' goes on\n";
        if (!s.arrayJob.isEmpty())
            io.out << "slurm:     job array " << s.arrayJob << " (squeue -r -j " << s.arrayJob << ")\n";
        if (const auto best = s.best(spec.goal))
            io.out << "best:      trial " << *best << ", " << spec.metric << " = " << *s.trials[*best].objective
                   << " (run " << s.trials[*best].runId << ")\n";
        QStringList header{u"TRIAL"_s, u"STATUS"_s, spec.metric.toUpper(), u"TIME"_s};
        for (const Parameter &p : spec.parameters)
            header << p.name;
        header << u"RUN"_s;
        io.out << header.join(u'\t') << '\n';
        for (const Trial &t : s.trials) {
            QStringList row{QString::number(t.number), trialStatusText(t.status),
                            t.objective ? QString::number(*t.objective, 'g', 6) : u"-"_s,
                            durationText(t.startedMs, t.finishedMs)};
            for (const run::Hyperparameter &h : t.hyperparameters)
                row << h.value;
            row << t.runId;
            io.out << row.join(u'\t') << '\n';
        }
        io.out.flush();
        return kExitOk;
    }

    static SweepController::TargetFactory targetFactory()
    {
        return [ferry = QCoreApplication::applicationFilePath()](const run::TargetSpec &spec) {
            return targets::makeTarget(spec, ferry);
        };
    }

    // The controller cancels every trial and ends; one that does not answer in time (stopped,
    // gone) is ended here instead.
    static int cancel(RunContext &context, const SweepDirectory &dir, Io &io)
    {
        const auto state = dir.readState();
        if (!state) {
            io.err << "ferry sweep: " << state.error().toString() << Qt::endl;
            return kExitUserError;
        }
        if (state->status != SweepStatus::Running) {
            io.err << "sweep " << state->id << " is already over (" << sweepStatusText(state->status) << ")"
                   << Qt::endl;
            return kExitOk;
        }
        if (const auto asked = dir.requestCancel(); !asked) {
            io.err << "ferry sweep: " << asked.error().toString() << Qt::endl;
            return kExitUserError;
        }
        const QDeadlineTimer answer(120000);
        while (dir.controllerRunning() && !answer.hasExpired())
            QThread::msleep(100);
        auto now = dir.readState();
        if (now && now->status == SweepStatus::Running) // no controller ended it
            now = cancelOrphanedSweep(*context.store, context.workspace.runsDir(), dir, targetFactory(), 5000);
        if (!now) {
            io.err << "ferry sweep: " << now.error().toString() << Qt::endl;
            return kExitUserError;
        }
        io.err << "sweep " << now->id << ": " << sweepStatusText(now->status) << " ("
               << now->count(TrialStatus::Cancelled) << " trials cancelled)" << Qt::endl;
        return kExitOk;
    }

    static int resume(RunContext &context, const SweepDirectory &dir, bool wait, Io &io)
    {
        const auto state = dir.readState();
        if (!state) {
            io.err << "ferry sweep: " << state.error().toString() << Qt::endl;
            return kExitUserError;
        }
        if (state->status == SweepStatus::Finished || state->status == SweepStatus::Cancelled) {
            io.err << "ferry sweep: sweep " << state->id << " is " << sweepStatusText(state->status)
                   << "; start its file again for a new sweep" << Qt::endl;
            return kExitUserError;
        }
        if (state->status == SweepStatus::Failed) { // tried again: the controller says how it goes now
            SweepState again = *state;
            again.status = SweepStatus::Running;
            again.error.clear();
            (void)dir.writeState(again);
        }
        if (const auto started = startController(context.workspace, dir, QCoreApplication::applicationFilePath());
            !started) {
            io.err << "ferry sweep: " << started.error().toString() << Qt::endl;
            return kExitUserError;
        }
        io.err << "resumed sweep " << state->id << " (" << state->trials.size() << " trials so far)" << Qt::endl;
        return wait ? waitForEnd(dir, io) : kExitOk;
    }
};

} // namespace

std::unique_ptr<Command> makeSweepCommand()
{
    return std::make_unique<SweepCommand>();
}

} // namespace ferry::cli
