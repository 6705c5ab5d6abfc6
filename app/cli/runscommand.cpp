// `ferry runs list | show ID | metrics ID | images ID | histograms ID | cancel ID | attach ID |
// watch ID | delete ID | diff A B | rerun ID | export ID | import FILE | tag ID | note ID |
// aggregate ID... | importance ID... | gc`: the runs of a workspace.
#include "cli/command.h"
#include "cli/remoteoptions.h"
#include "cli/runexport.h"
#include "cli/runsanalysis.h"
#include "cli/runsbundle.h"
#include "cli/runsdiff.h"
#include "cli/runslist.h"
#include "cli/runslogs.h"
#include "cli/runsmedia.h"
#include "cli/runsprovenance.h"
#include "cli/runsquery.h"
#include "cli/runsrerun.h"
#include "cli/runsupport.h"
#include "cli/runswatch.h"
#include "cost/costreport.h"
#include "cost/money.h"

#include "metrics/terminaltext.h"
#include "snapshot/snapshot.h"
#include "store/metricexport.h"
#include "targets/remotetarget.h"
#include "tracking/runfollower.h"
#include "tracking/runlabels.h"

#include <QDateTime>
#include <QDeadlineTimer>
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSettings>
#include <QStringDecoder>
#include <QThread>

#include <cerrno>
#include <cmath>
#include <cstring>

using namespace Qt::StringLiterals;

namespace ferry::cli {

namespace {

// How long `ferry runs cancel` waits for the cancelled run's end to be stored (its supervisor
// packs the archives after the end).
constexpr int kCancelRecordMs = 30000;

QJsonObject toJson(const run::RunRecord &r)
{
    QJsonObject o{{u"id"_s, r.id},
                  {u"name"_s, r.name},
                  {u"status"_s, run::runStatusLabel(r)},
                  {u"target"_s, r.target},
                  {u"environmentTag"_s, r.environmentTag},
                  {u"createdMs"_s, r.createdMs},
                  {u"startedMs"_s, r.startedMs},
                  {u"finishedMs"_s, r.finishedMs},
                  {u"error"_s, r.error},
                  {u"tags"_s, QJsonArray::fromStringList(r.tags)},
                  {u"note"_s, r.note},
                  {u"spec"_s, r.spec}};
    o[u"exitCode"_s] = r.exitCode ? QJsonValue(*r.exitCode) : QJsonValue();
    return o;
}

class RunsCommand final : public Command {
public:
    QString name() const override { return u"runs"_s; }
    QString summary() const override
    {
        return u"list, show, chart data, cancel, re-attach to and delete runs; compact the run store"_s;
    }
    int maxPositionalArguments() const override { return -1; } // tag: any number of tags
    QStringList argumentsToParse(const QStringList &words) const override { return tagArgumentsToParse(words); }

    void configure(QCommandLineParser &parser) const override
    {
        parser.setApplicationDescription(
            u"The runs of a workspace.\n\n"
            u"  ferry runs list [--where QUERY]  every run, newest first; --where: those a query selects,\n"
            u"                                   e.g. 'hp.lr < 0.01 and metrics.val_loss.last < 0.3 and\n"
            u"                                   tag = baseline' (docs/run-queries.md)\n"
            u"  ferry runs show ID               one run: spec, parameters, artifacts, last metric values\n"
            u"  ferry runs metrics ID [--csv]    every metric point (name, step, wall time, value, epoch),\n"
            u"                                   the numbers exact\n"
            u"  ferry runs images ID [--tag T] [--step N] [-o DIR] [--json]\n"
            u"                                   the run's images (TensorBoard's, output/images'): listed,\n"
            u"                                   --json: their tags and steps, -o: written into DIR as the\n"
            u"                                   run wrote them, DIR/<tag>/<step>.png\n"
            u"  ferry runs histograms ID [--tag T] [--step N] [--json]\n"
            u"                                   the run's histogram tags; with --tag, per step its\n"
            u"                                   bucket_limit and bucket (TensorBoard's HistogramProto)\n"
            u"  ferry runs cancel ID             stop the run and everything it started\n"
            u"  ferry runs attach ID             follow the run's log until it ends\n"
            u"  ferry runs watch ID [--until-done] [--alert RULE]...\n"
            u"                                   follow the run and say what happens: each alert as a\n"
            u"                                   rule fires ('val_loss>2.5', 'loss<0.01', 'loss:nan',\n"
            u"                                   'stalled:10m'), on stdout and on the desktop; until the\n"
            u"                                   first alert, or with --until-done until the run ends.\n"
            u"                                   Exit code: 0 succeeded, 3 failed, 4 lost, 5 cancelled,\n"
            u"                                   10 an alert (the run goes on), 130 Ctrl-C (docs/metrics.md)\n"
            u"  ferry runs logs ID [--rank K] [--raw]\n"
            u"                                   the run's log as it is now, as a terminal shows it\n"
            u"                                   (control sequences dropped; --raw: the bytes as they\n"
            u"                                   are); --rank: rank K's of a run across nodes (rank 0's\n"
            u"                                   is the run's log)\n"
            u"  ferry runs delete ID [--remote | --keep-remote]\n"
            u"                                   remove an ended run (its record, folder and artifacts);\n"
            u"                                   an SSH or Slurm run needs one of the two: --remote removes\n"
            u"                                   its folder on the host too, --keep-remote leaves it there\n"
            u"  ferry runs export ID --to azureml --compute NAME [-o job.yml]\n"
            u"  ferry runs export ID --to sagemaker [--instance-type T] [--max-time H:MM:SS] [--max-cost A]\n"
            u"                                   [-o launch.py]\n"
            u"                                   the run as an AzureML command job or a SageMaker launcher;\n"
            u"                                   the run's caps (or these) are the job's max_run, a money\n"
            u"                                   cap at the instances' price in the catalog\n"
            u"  ferry runs export ID --bundle run.tar.gz [--include-secrets] [--include-values]\n"
            u"                                   the run as one file to hand over: its code (without\n"
            u"                                   .env, keys, credentials unless asked), metrics, log, model;\n"
            u"                                   its spec without variable values and local paths unless\n"
            u"                                   asked\n"
            u"  ferry runs import run.tar.gz     such a file into this workspace (--workspace DIR)\n"
            u"  ferry runs diff A B [--all]      why B differs from A: parameters (the differing ones;\n"
            u"                                   --all: every one), code (a unified diff of the files\n"
            u"                                   their snapshots hold), git, environment, metrics\n"
            u"  ferry runs rerun ID [--hp K=V] [--target T] [--follow]\n"
            u"                                   the run again with the code it ran (its snapshot, not the\n"
            u"                                   source folder as it is now), its parameters but those --hp\n"
            u"                                   names; on its target or another (--data, --secret-env,\n"
            u"                                   --allow-run-arguments and the ssh/slurm options as for\n"
            u"                                   'ferry run'). A run from elsewhere (imported) is printed\n"
            u"                                   first and needs --accept-foreign; it takes nothing that\n"
            u"                                   grants or trusts from its bundle\n"
            u"  ferry runs tag ID [+]TAG... [-TAG...]\n"
            u"                                   add and remove tags; prints the run's tags\n"
            u"  ferry runs note ID [TEXT | -]    the run's note: set (empty TEXT clears it, - reads stdin)\n"
            u"                                   or, without TEXT, printed\n"
            u"  ferry runs gc                    give the space of deleted runs back to the file system\n"_s +
            analysisUsage() +
            u"ID may be any unique start or end of a run id: the end the window's legends and Id\n"
            u"column show (0eaa of 20261206-101530-train-0eaa) names the run too."_s);
        parser.addPositionalArgument(
            u"action"_s,
            u"list, show, metrics, images, histograms, logs, cancel, attach, watch, export, import, delete, diff, "
            "rerun, tag, note, aggregate, importance or gc"_s,
            u"ACTION"_s);
        parser.addPositionalArgument(u"id"_s, u"The run."_s, u"[ID]"_s);
        parser.addPositionalArgument(u"other"_s, u"diff: the run compared with the first."_s, u"[ID]"_s);
        parser.addOption({u"where"_s,
                          u"list, aggregate, importance: only the runs this query selects (docs/run-queries.md)."_s,
                          u"QUERY"_s});
        parser.addOption({u"all"_s, u"diff: every parameter, not only the differing ones."_s});
        parser.addOption({u"hp"_s, u"rerun: a hyperparameter changed, e.g. lr=0.1 (repeatable)."_s, u"KEY=VALUE"_s});
        parser.addOption({u"target"_s, u"rerun: another target (local, container, ssh:HOST, slurm:HOST)."_s, u"T"_s});
        parser.addOption({u"follow"_s, u"rerun: follow the new run until it ends."_s});
        parser.addOption({u"accept-foreign"_s,
                          u"rerun: a run from elsewhere (imported): run its code here as the rerun prints it; "
                          u"its host, data, secrets and consents are never taken from it (give them again)."_s});
        addGrantOptions(parser);
        addRemoteOptions(parser);
        parser.addOption({u"workspace"_s, u"The workspace folder (default: the current folder)."_s, u"DIR"_s});
        parser.addOption({u"rank"_s, u"logs: rank K's log of a run across nodes."_s, u"K"_s});
        parser.addOption({u"raw"_s, u"logs: the log's bytes as they are, terminal control sequences and all."_s});
        parser.addOption({u"json"_s, u"Print JSON."_s});
        parser.addOption({u"csv"_s, u"metrics, aggregate: print CSV."_s});
        parser.addOption({u"remote"_s, u"delete: remove the run's folder on its host as well."_s});
        parser.addOption({u"keep-remote"_s, u"delete: leave the run's folder on its host."_s});
        addExportOptions(parser, u"runs"_s);
        addBundleOptions(parser);
        addAnalysisOptions(parser);
        addMediaOptions(parser);
        addWatchOptions(parser);
    }

    int run(const QCommandLineParser &parser, Io &io) override
    {
        const QString action = parser.positionalArguments().value(0);
        const QString id = parser.positionalArguments().value(1);
        static const QStringList actions{u"list"_s,   u"show"_s,      u"metrics"_s,    u"images"_s, u"histograms"_s,
                                         u"logs"_s,   u"cancel"_s,    u"attach"_s,     u"watch"_s,  u"export"_s,
                                         u"import"_s, u"delete"_s,    u"diff"_s,       u"rerun"_s,  u"tag"_s,
                                         u"note"_s,   u"aggregate"_s, u"importance"_s, u"gc"_s};
        if (action == "tag"_L1 || action == "note"_L1)
            return tagOrNoteRun(parser, io);
        if (action == "aggregate"_L1 || action == "importance"_L1) { // any number of runs
            auto context = openRunContext(parser.value(u"workspace"_s), io);
            if (!context)
                return kExitUserError;
            refreshUnfinishedRuns(*context, io);
            return analyseRuns(action, parser, *context, io);
        }
        if (parser.positionalArguments().size() > 3)
            return usageError(u"runs"_s, u"unexpected argument '%1'"_s.arg(parser.positionalArguments().at(3)), io);
        const QString other = parser.positionalArguments().value(2);
        if ((action == "diff"_L1) != !other.isEmpty()) {
            io.err << "ferry runs " << action
                   << (action == "diff"_L1 ? ": name the two runs, ferry runs diff A B" : ": takes one run")
                   << Qt::endl;
            return kExitUserError;
        }
        if (action == "import"_L1) // takes a file, not a run
            return importBundle(parser, id, io);
        const bool takesRun = action != "list"_L1 && action != "gc"_L1;
        if (!actions.contains(action)) {
            io.err << "ferry runs: "
                   << (action.isEmpty() ? u"say what to do"_s : u"unknown action '"_s + action + u'\'') << " ("
                   << actions.join(u", "_s) << "); see 'ferry help runs'" << Qt::endl;
            return kExitUserError;
        }
        if (takesRun && id.isEmpty()) {
            io.err << "ferry runs " << action << ": name the run (see 'ferry runs list')" << Qt::endl;
            return kExitUserError;
        }
        if (!takesRun && !id.isEmpty()) {
            io.err << "ferry runs " << action << ": takes no run, but was given '" << id << "'" << Qt::endl;
            return kExitUserError;
        }
        // A bad rule is refused before anything is read.
        const auto watchRules =
            action == "watch"_L1 ? alertRulesOf(parser.values(u"alert"_s), io) : QList<run::AlertRule>{};
        if (!watchRules)
            return kExitUserError;
        auto context = openRunContext(parser.value(u"workspace"_s), io);
        if (!context)
            return kExitUserError;
        const bool json = parser.isSet(u"json"_s);
        if (action == "gc"_L1)
            return collectGarbage(*context, json, io);
        const QHash<QString, run::Progress> progress = refreshUnfinishedRuns(*context, io);
        if (action == "list"_L1) {
            const QString where = parser.value(u"where"_s);
            const auto runs = runsWhere(*context->store, where, io);
            return runs ? list(*context, *runs, progress, !where.isEmpty(), json, io) : kExitUserError;
        }
        const auto record = findRun(*context->store, id, io);
        if (!record)
            return kExitUserError;
        if (action == "show"_L1)
            return show(*context, *record, json, io);
        if (action == "metrics"_L1)
            return metrics(*context, *record, parser.isSet(u"csv"_s), json, io);
        if (action == "images"_L1)
            return printRunImages(parser, *context, *record, io);
        if (action == "histograms"_L1)
            return printRunHistograms(parser, *context, *record, io);
        if (action == "logs"_L1)
            return printRunLog(parser, *context, *record, io);
        if (action == "cancel"_L1)
            return cancel(*context, *record, io);
        if (action == "export"_L1)
            return parser.isSet(u"bundle"_s) ? exportBundle(parser, *context, *record, io)
                                             : exportRun(parser, *record, io);
        if (action == "rerun"_L1)
            return rerunRun(parser, *context, *record, io);
        if (action == "diff"_L1) {
            const auto second = findRun(*context->store, other, io);
            if (!second)
                return kExitUserError;
            return diffRuns(*context, *record, *second, parser.isSet(u"all"_s), json, io);
        }
        if (action == "delete"_L1)
            return remove(*context, *record, parser.isSet(u"remote"_s), parser.isSet(u"keep-remote"_s), io);
        if (action == "watch"_L1)
            return watchRun(*context, *record, *watchRules, parser.isSet(u"until-done"_s), io);
        return followRun(*context, *record, io);
    }

private:
    static int list(RunContext &context, const QList<run::RunRecord> &runs,
                    const QHash<QString, run::Progress> &progress, bool filtered, bool json, Io &io)
    {
        // Each run's parameters and key metrics (review 2026-12-06, finding 14): one read of every
        // run's parameters, one of each run's last values (through the store's index).
        const QHash<QString, QList<run::Hyperparameter>> stored = context.store->paramsOfRuns();
        QList<ListedRun> listed;
        for (const run::RunRecord &r : runs)
            listed << ListedRun{r, run::runParameters(r, stored.value(r.id)), context.store->lastValues(r.id)};
        if (json) {
            const cost::RatesRead rates = cost::readRates(QSettings());
            const qint64 now = QDateTime::currentMSecsSinceEpoch();
            QJsonArray array;
            for (const ListedRun &r : std::as_const(listed)) {
                QJsonObject o = toJson(r.record);
                addLiveJson(o, r.record, progress, rates.rates, now);
                QJsonObject params, last;
                for (const run::Hyperparameter &hp : r.params)
                    params[hp.name] = hp.value;
                for (auto it = r.lastMetrics.cbegin(); it != r.lastMetrics.cend(); ++it)
                    last.insert(it.key(), it.value());
                o[u"params"_s] = params;
                o[u"lastMetrics"_s] = last;
                array.append(o);
            }
            io.out << QJsonDocument(array).toJson();
            return kExitOk;
        }
        if (runs.isEmpty() && filtered) {
            io.err << "no run matches --where" << Qt::endl;
            return kExitOk;
        }
        if (runs.isEmpty()) {
            io.err << "no runs yet in " << context.workspace.root() << "; start one with 'ferry run SCRIPT'"
                   << Qt::endl;
            return kExitOk;
        }
        // Names and values come from the runs: shown as a terminal is to show them (L3).
        io.out << run::terminalLines(runListTable(listed));
        io.out.flush();
        return kExitOk;
    }

    // While a run goes (docs/cost.md, *While it runs*): "progress" (0 to 1, null when its log gives
    // no total), "etaSeconds" (null without a rate of progress), "costSoFar" ({amount, currency} or
    // null at an unknown rate): for a run over, its whole time and cost, progress and ETA null.
    static void addLiveJson(QJsonObject &o, const run::RunRecord &record, const QHash<QString, run::Progress> &progress,
                            const cost::Rates &rates, qint64 now)
    {
        const auto p = progress.constFind(record.id);
        const bool known = p != progress.cend();
        o[u"progress"_s] = known ? QJsonValue(p->fraction) : QJsonValue();
        o[u"progressSource"_s] = known ? QJsonValue(run::progressSourceName(p->source)) : QJsonValue();
        o[u"etaSeconds"_s] = known && p->etaSeconds ? QJsonValue(std::round(*p->etaSeconds)) : QJsonValue();
        const cost::RunCost c = cost::costOf(record, rates, now);
        const auto amount = c.cost();
        o[u"costSoFar"_s] = amount ? QJsonValue(QJsonObject{{u"amount"_s, cost::plainAmount(*amount).toDouble()},
                                                            {u"currency"_s, QString(cost::kCurrency)}})
                                   : QJsonValue();
    }

    static int show(RunContext &context, const run::RunRecord &r, bool json, Io &io)
    {
        const QList<run::Hyperparameter> params = context.store->params(r.id);
        const QList<run::Artifact> artifacts = context.store->artifacts(r.id);
        // One read for every metric's last value (through the store's index; review M6: a read of
        // each series' points, one name at a time, took 10 s for 200,000 names).
        const QMap<QString, double> lastValues = context.store->lastValues(r.id);
        QJsonObject last;
        for (auto it = lastValues.cbegin(); it != lastValues.cend(); ++it)
            last.insert(it.key(), it.value()); // in order: each goes at the end
        if (json) {
            QJsonObject o = toJson(r);
            QJsonObject p;
            for (const run::Hyperparameter &hp : params)
                p[hp.name] = hp.value;
            o[u"params"_s] = p;
            QJsonArray a;
            for (const run::Artifact &artifact : artifacts)
                a.append(
                    QJsonObject{{u"path"_s, artifact.path}, {u"kind"_s, artifact.kind}, {u"size"_s, artifact.size}});
            o[u"artifacts"_s] = a;
            o[u"lastMetrics"_s] = last;
            o[u"runDir"_s] = runDirOf(context, r.id);
            addMediaToJson(o, context, r); // "media" counts, "text" summaries
            io.out << QJsonDocument(o).toJson();
            return kExitOk;
        }
        // Everything below comes from the run (its error, note, script, parameters, metric names,
        // the host's answer; an imported run's from elsewhere): printed as a terminal is to show
        // it, no control sequence of it reaching the terminal (L3).
        QString text;
        QTextStream shown(&text);
        shown << "run:       " << r.id << '\n'
              << "status:    " << run::runStatusLabel(r)
              << (r.exitCode ? u" (exit code %1)"_s.arg(*r.exitCode) : QString()) << '\n';
        if (!r.error.isEmpty()) // a running run's is what Ferry knows of it (still starting, ...)
            shown << (run::isFinished(r.status) ? "error:     " : "detail:    ")
                  << QString(r.error).replace(u'\n', u"\n           "_s) << '\n';
        shown << "target:    " << r.target << '\n';
        if (!r.tags.isEmpty())
            shown << "tags:      " << r.tags.join(u' ') << '\n';
        if (!r.note.isEmpty())
            shown << "note:      " << QString(r.note).replace(u'\n', u"\n           "_s) << '\n';
        if (const QJsonObject sweep = r.spec[u"sweep"_s].toObject(); !sweep.isEmpty())
            shown << "sweep:     " << sweep[u"id"_s].toString() << ", trial " << sweep[u"trial"_s].toInt() << '\n';
        if (r.spec[u"script"_s].toString().isEmpty()) // the embedded trainer
            shown << "data:      " << r.spec[u"channels"_s][0][u"path"_s].toString() << '\n';
        else
            shown << "script:    " << r.spec[u"script"_s].toString() << " in "
                  << (r.spec[u"sourceDir"_s].toString().isEmpty()
                          ? u"its snapshot (the original's folder: %1)"_s.arg(
                                r.spec[u"imported"_s][u"original"_s][u"sourceDir"_s].toString())
                          : r.spec[u"sourceDir"_s].toString())
                  << '\n';
        if (const QString of = r.spec[u"rerunOf"_s].toString(); !of.isEmpty())
            shown << "rerun of:  " << of << '\n';
        // What it runs besides its code (review N6): the interpreter, arguments and variables.
        shown << "runs:      " << r.spec[u"interpreter"_s].toString(u"python3"_s);
        for (const QJsonValue &argument : r.spec[u"arguments"_s].toArray())
            shown << ' ' << argument.toString();
        shown << '\n';
        for (const QJsonValue &v : r.spec[u"variables"_s].toArray())
            shown << "variable:  " << v[u"name"_s].toString() << '=' << v[u"value"_s].toString() << '\n';
        // A run from elsewhere (tracking/foreignrun.h): where it came from, what was kept aside.
        if (const QJsonObject imported = r.spec[u"imported"_s].toObject(); !imported.isEmpty()) {
            shown << "imported:  from " << imported[u"bundle"_s].toString() << ", "
                  << timeText(imported[u"importedMs"_s].toInteger())
                  << "; a rerun asks first (ferry runs rerun ID --accept-foreign)\n";
            for (const QJsonValue &note : imported[u"notes"_s].toArray())
                shown << "kept aside: " << note.toString() << '\n';
        }
        if (const QJsonObject taken = r.spec[u"snapshot"_s].toObject(); !taken.isEmpty()) {
            const snapshot::Snapshot s = snapshot::Snapshot::fromJson(taken);
            if (!s.error.isEmpty())
                shown << "code:      no snapshot: " << s.error << '\n';
            else
                shown << "code:      snapshot " << s.tree.left(12) << ", " << s.files << " files, " << s.bytes
                      << " bytes (" << s.addedBytes << " new)" << '\n';
            if (s.git.repository)
                shown << "git:       " << s.git.commit.left(12)
                      << (s.git.branch.isEmpty() ? QString() : u" on "_s + s.git.branch)
                      << (s.git.dirty ? " with uncommitted changes" : "") << '\n';
        }
        if (!r.environmentTag.isEmpty())
            shown << "image tag: " << r.environmentTag << '\n';
        if (const auto spec = run::RunSpec::fromJson(r.spec)) // data, host, image (cli/runsprovenance.h)
            printProvenance(*spec, runDirOf(context, r.id), shown);
        shown << "started:   " << timeText(r.startedMs) << "  (" << durationText(r.startedMs, r.finishedMs) << ")\n"
              << "folder:    " << runDirOf(context, r.id) << '\n';
        for (const run::Hyperparameter &hp : params)
            shown << "param:     " << hp.name << " = " << hp.value << '\n';
        for (auto it = last.begin(); it != last.end(); ++it)
            shown << "metric:    " << it.key() << " = " << it.value().toDouble() << " (last)\n";
        for (const run::Artifact &a : artifacts)
            shown << "artifact:  " << a.path << " (" << a.kind << ", " << a.size << " bytes)\n";
        printMediaSummary(shown, context, r);
        shown.flush();
        io.out << run::terminalLines(text);
        io.out.flush();
        return kExitOk;
    }

    static int metrics(RunContext &context, const run::RunRecord &r, bool csv, bool json, Io &io)
    {
        if (json) {
            QJsonArray array;
            for (const run::MetricPoint &p : context.store->metrics(r.id)) {
                QJsonObject point{
                    {u"name"_s, p.name}, {u"step"_s, p.step}, {u"wallMs"_s, p.wallMs}, {u"value"_s, p.value}};
                if (!std::isnan(p.epoch))
                    point[u"epoch"_s] = p.epoch;
                array.append(point);
            }
            io.out << QJsonDocument(array).toJson();
            return kExitOk;
        }
        // The bytes go straight to stdout; a stream of text (a test's) takes them decoded.
        const auto format = csv ? run::MetricTextFormat::Csv : run::MetricTextFormat::Tabs;
        io.out.flush();
        Expected<qint64> written = qint64(0);
        if (QIODevice *device = io.out.device()) {
            // A closed pipe (ferry runs metrics ID | head) is a write error to report, not a signal.
            const SigpipeIgnored sigpipe;
            written = run::exportMetrics(*context.store, r.id, format, *device);
        } else {
            QStringDecoder decoder(QStringDecoder::Utf8);
            written = run::exportMetrics(*context.store, r.id, format, [&](QByteArrayView bytes) -> Expected<void> {
                io.out << QString(decoder(bytes));
                return {};
            });
            io.out.flush();
        }
        // A reader that stopped reading (| head) ends the output as it does for any shell tool: quietly.
        if (!written && !written.error().message.contains(QString::fromLocal8Bit(std::strerror(EPIPE)))) {
            io.err << "ferry runs metrics: " << written.error().toString() << Qt::endl;
            return kExitUserError;
        }
        return kExitOk;
    }

    static int collectGarbage(RunContext &context, bool json, Io &io)
    {
        const auto compaction = context.store->compact();
        if (!compaction) {
            io.err << "ferry runs gc: " << compaction.error().toString() << Qt::endl;
            return kExitUserError;
        }
        if (json)
            io.out << QJsonDocument(QJsonObject{{u"bytesBefore"_s, compaction->bytesBefore},
                                                {u"bytesAfter"_s, compaction->bytesAfter}})
                          .toJson();
        else
            io.out << run::compactionText(*compaction) << '\n';
        io.out.flush();
        return kExitOk;
    }

    static int cancel(RunContext &context, const run::RunRecord &r, Io &io)
    {
        const auto spec = run::RunSpec::fromJson(r.spec);
        if (!spec)
            return kExitInternalError;
        auto target = makeTarget(spec->target, io);
        if (!target)
            return kExitUserError;
        // A failed or lost run may have processes left (a start that timed out, a killed
        // supervisor, recorded so by an older Ferry): those are stopped too.
        const bool mayLive = r.status == run::RunStatus::Failed || r.status == run::RunStatus::Lost;
        if (run::isFinished(r.status)) {
            const auto now = mayLive ? target->probe(runDirOf(context, r.id))
                                     : Expected<targets::RunProbe>(targets::RunProbe{}); // a lost one: over
            if (!mayLive || !now || now->finished()) {
                io.err << "run " << r.id << " is already over (" << run::runStatusLabel(r) << ")" << Qt::endl;
                return kExitOk;
            }
        }
        const auto probe = target->cancel(runDirOf(context, r.id), 10000);
        if (!probe) {
            io.err << "ferry runs cancel: " << probe.error().toString() << Qt::endl;
            return kExitInternalError;
        }
        // Store the last lines and the final status before returning: the run's supervisor may
        // still be packing its archives after the end, and a cancel is final once it returns.
        run::RunFollower follower(*context.store, *target, runDirOf(context, r.id), r);
        const QDeadlineTimer deadline(kCancelRecordMs);
        for (auto step = follower.poll(); !(step && step->finished) && !deadline.hasExpired(); step = follower.poll())
            QThread::msleep(100);
        context.store->flush();
        io.err << "run " << r.id << ": " << targets::stateName(probe->state) << Qt::endl;
        return kExitOk;
    }

    // An SSH or Slurm run's folder on the host holds its data copies and model: CI has no
    // terminal to ask, so such a run names what happens there (review M2): --remote or
    // --keep-remote, else nothing is deleted.
    static int remove(RunContext &context, const run::RunRecord &r, bool remote, bool keepRemote, Io &io)
    {
        if (remote && keepRemote) {
            io.err << "ferry runs delete: give --remote or --keep-remote, not both" << Qt::endl;
            return kExitUserError;
        }
        if (!run::isFinished(r.status)) {
            io.err << "ferry runs delete: run " << r.id << " is " << run::runStatusLabel(r)
                   << "; cancel it first (ferry runs cancel " << r.id << ")" << Qt::endl;
            return kExitUserError;
        }
        const QString dir = runDirOf(context, r.id);
        const auto hostFolder = targets::RemoteTarget::remoteFolderOf(dir);
        if (hostFolder && !remote && !keepRemote) {
            io.err << "ferry runs delete: run " << r.id << " has a folder on its host (" << r.target << ": "
                   << *hostFolder << "); say what happens to it: --remote removes it too, --keep-remote leaves it"
                   << Qt::endl;
            return kExitUserError;
        }
        if (hostFolder && remote) {
            const auto spec = run::RunSpec::fromJson(r.spec);
            if (!spec)
                return kExitInternalError;
            auto target = makeTarget(spec->target, io);
            auto *host = dynamic_cast<targets::RemoteTarget *>(target.get());
            if (!host)
                return kExitUserError;
            if (const auto removed = host->removeRemoteFolder(dir); !removed) {
                io.err << "ferry runs delete: " << removed.error().toString() << " (nothing was deleted)" << Qt::endl;
                return kExitUserError;
            }
            io.err << "removed " << *hostFolder << " on " << r.target << Qt::endl;
        }
        context.store->deleteRun(r.id);
        context.store->flush();
        QDir(dir).removeRecursively();
        io.err << "deleted run " << r.id
               << (hostFolder && keepRemote ? u" (its folder on the host is kept)"_s : QString()) << Qt::endl;
        return kExitOk;
    }
};

} // namespace

std::unique_ptr<Command> makeRunsCommand()
{
    return std::make_unique<RunsCommand>();
}

} // namespace ferry::cli
