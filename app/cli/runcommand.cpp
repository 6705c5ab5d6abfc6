// `ferry run SCRIPT ...`: start a training script on a target, with the training contract.
#include "cli/command.h"
#include "cli/remoteoptions.h"
#include "cli/runsupport.h"

#include "cloud/azuremlrun.h"
#include "cost/budget.h"
#include "cost/estimate.h"
#include "env/formats.h"
#include "env/spechash.h"
#include "run/runenvironment.h"
#include "run/runsecrets.h"
#include "secrets/secretstore.h"
#include "tracking/runlauncher.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QSettings>

using namespace Qt::StringLiterals;

namespace ferry::cli {

namespace {

class RunCommand final : public Command {
public:
    QString name() const override { return u"run"_s; }
    QString summary() const override { return u"start a training script on a target, with SageMaker's contract"_s; }
    int maxPositionalArguments() const override { return 1; }

    void configure(QCommandLineParser &parser) const override
    {
        parser.setApplicationDescription(
            u"Starts SCRIPT detached (it survives Ferry) with the training contract: hyperparameters as\n"
            u"--name value and SM_HPS/SM_HP_*, SM_MODEL_DIR, SM_CHANNEL_<NAME>, ... The model folder is packed\n"
            u"as model.tar.gz when the run ends. Runs are kept in WORKSPACE/.ferry (see 'ferry runs')."_s);
        parser.addPositionalArgument(u"script"_s, u"The training script."_s, u"SCRIPT"_s);
        parser.addOption({u"env"_s, u"Environment file (its variables and interpreter are used)."_s, u"ENV.yml"_s});
        parser.addOption({u"target"_s, u"local (default), container, ssh:HOST or slurm:HOST (slurm:local)."_s,
                          u"TARGET"_s, u"local"_s});
        parser.addOption({u"hp"_s, u"A hyperparameter, e.g. epochs=10 (repeatable)."_s, u"KEY=VALUE"_s});
        parser.addOption({u"metric-def"_s, u"A metric regex with one group, e.g. loss=loss: ([0-9.]+) (repeatable)."_s,
                          u"NAME=REGEX"_s});
        parser.addOption({u"from-azureml"_s,
                          u"Run an AzureML command job here instead of SCRIPT: its code, command, inputs (literals "
                          u"as hyperparameters, paths as data channels; --hp/--data set them) and inline "
                          u"environment. A job on an AzureML cluster needs --target, a registered environment --env."_s,
                          u"JOB.yml"_s});
        parser.addOption({u"workspace"_s, u"The workspace folder (default: the current folder)."_s, u"DIR"_s});
        parser.addOption({u"follow"_s, u"Print the log until the run ends (Ctrl-C stops following, not the run)."_s});
        parser.addOption({u"estimate"_s, u"Start nothing: say how long the run will take, from the comparable runs "
                                         u"of this workspace, and what it will cost at its rate (docs/cost.md)."_s});
        parser.addOption({u"json"_s, u"With --estimate: print it as JSON."_s});
        parser.addOption({u"max-cost"_s,
                          u"Stop the run once it has cost AMOUNT at its rate (ferry rates); 80 % is notified."_s,
                          u"AMOUNT"_s});
        parser.addOption({u"max-time"_s, u"Stop the run once it has run this long; 80 % is notified."_s, u"H:MM:SS"_s});
        parser.addOption({u"grace"_s,
                          u"With --max-cost or --max-time: the seconds between SIGTERM (save your state) and SIGKILL "
                          u"at the cap (default: ferry budget set grace, else 30)."_s,
                          u"SECONDS"_s});
        addGrantOptions(parser);
        addRemoteOptions(parser);
    }

    int run(const QCommandLineParser &parser, Io &io) override
    {
        if (parser.positionalArguments().isEmpty() == !parser.isSet(u"from-azureml"_s)) {
            io.err << "ferry run: name the script to run, or an AzureML job with --from-azureml (not both); see "
                      "'ferry help run'"
                   << Qt::endl;
            return kExitUserError;
        }
        if (parser.isSet(u"json"_s) && !parser.isSet(u"estimate"_s))
            return usageError(name(), u"--json goes with --estimate"_s, io);
        auto context = openRunContext(parser.value(u"workspace"_s), io);
        if (!context)
            return kExitUserError;
        const auto spec = buildSpec(parser, *context, io);
        if (!spec)
            return kExitUserError;
        if (parser.isSet(u"estimate"_s))
            return estimate(*context, *spec, parser.isSet(u"json"_s), io);
        auto target = makeTarget(spec->target, io);
        if (!target)
            return kExitUserError;
        reportProgress(*target, io);
        const auto record = run::launchRun(*context->store, *target, context->workspace.runsDir(), *spec);
        if (!record) {
            io.err << "ferry run: " << record.error().toString() << Qt::endl;
            return kExitUserError;
        }
        io.out << record->id << Qt::endl;
        if (!record->error.isEmpty())
            io.err << "ferry run: " << record->error << Qt::endl;
        io.err << "started run " << record->id << " (" << spec->target.toString()
               << "); log: " << QDir::current().relativeFilePath(runDirOf(*context, record->id) + u"/log"_s)
               << Qt::endl;
        if (const auto started = run::RunSpec::fromJson(record->spec); started && started->budget.any()) {
            const run::RunBudget &b = started->budget;
            if (b.limitSeconds() > 0)
                io.err << "budget: " << b.capText() << "; SIGTERM at the cap, SIGKILL " << b.graceSeconds << " s later"
                       << Qt::endl;
            else
                io.err << "budget: max-cost " << b.maxCost << " USD is never reached at a rate of 0" << Qt::endl;
        }
        if (parser.isSet(u"follow"_s))
            return followRun(*context, *record, io);
        return kExitOk;
    }

private:
    // --estimate: from the store's history and the rates set; nothing starts.
    static int estimate(const RunContext &context, const run::RunSpec &spec, bool json, Io &io)
    {
        const cost::RatesRead rates = cost::readRates(QSettings());
        for (const Error &e : rates.problems)
            io.err << "ferry run: " << e.toString() << Qt::endl;
        const cost::CostEstimate estimate = cost::estimateCost(spec, context.store->runs(), rates.rates);
        if (json)
            io.out << QJsonDocument(cost::estimateJson(estimate)).toJson(QJsonDocument::Compact) << Qt::endl;
        else
            io.out << cost::estimateText(estimate, spec) << Qt::endl;
        return kExitOk;
    }

    // --max-cost, --max-time, --grace (docs/cost.md, Budgets).
    static bool applyBudgetOptions(const QCommandLineParser &parser, run::RunBudget &budget, Io &io)
    {
        if (parser.isSet(u"max-cost"_s)) {
            const auto cost = cost::parseMaxCost(parser.value(u"max-cost"_s));
            if (!cost) {
                io.err << "ferry run: " << cost.error().toString() << Qt::endl;
                return false;
            }
            budget.maxCost = *cost;
        }
        if (parser.isSet(u"max-time"_s)) {
            const auto time = cost::parseMaxTime(parser.value(u"max-time"_s));
            if (!time) {
                io.err << "ferry run: " << time.error().toString() << Qt::endl;
                return false;
            }
            budget.maxSeconds = *time;
        }
        if (parser.isSet(u"grace"_s)) {
            const auto grace = cost::parseGrace(parser.value(u"grace"_s));
            if (!grace) {
                io.err << "ferry run: --grace: " << grace.error().toString() << Qt::endl;
                return false;
            }
            if (!budget.any()) {
                io.err << "ferry run: --grace goes with --max-cost or --max-time" << Qt::endl;
                return false;
            }
            budget.graceSeconds = *grace;
        } else {
            budget.graceSeconds = cost::budgetGraceSeconds(QSettings()); // ferry budget set grace
        }
        return true;
    }

    static bool setScript(const QString &file, const RunContext &context, run::RunSpec &spec, Io &io)
    {
        const QFileInfo script(file);
        if (!script.isFile()) {
            io.err << "ferry run: " << script.filePath() << ": no such script" << Qt::endl;
            return false;
        }
        // Scripts inside the workspace run from its root, so they can import their neighbours.
        run::placeScript(spec, context.workspace.root(), script.absoluteFilePath());
        return true;
    }

    // --from-azureml: the job's script, arguments, hyperparameters and channels (--data and --hp
    // set its inputs), and its inline environment unless --env gives one.
    static bool setAzureMlJob(const QCommandLineParser &parser, const run::TargetSpec &target, run::RunSpec &spec,
                              Io &io)
    {
        cloud::AzureMlRunRequest request{parser.value(u"from-azureml"_s),
                                         target,
                                         parser.isSet(u"target"_s),
                                         parser.isSet(u"env"_s),
                                         spec.hyperparameters,
                                         spec.channels};
        const auto draft = cloud::runFromAzureMlJob(request);
        if (!draft) {
            io.err << "ferry run: " << draft.error().toString() << Qt::endl;
            return false;
        }
        for (const env::Diagnostic &d : draft->warnings)
            io.err << d.toString() << Qt::endl;
        spec = draft->spec;
        return true;
    }

    static std::optional<run::RunSpec> buildSpec(const QCommandLineParser &parser, const RunContext &context, Io &io)
    {
        run::RunSpec spec;
        const bool fromJob = parser.isSet(u"from-azureml"_s);
        if (!fromJob && !setScript(parser.positionalArguments().constFirst(), context, spec, io))
            return std::nullopt;
        const auto target = run::TargetSpec::parse(parser.value(u"target"_s));
        if (!target) {
            io.err << "ferry run: " << target.error().toString() << Qt::endl;
            return std::nullopt;
        }
        if (target->kind == run::TargetKind::Embedded) {
            io.err << "ferry run: the embedded trainer runs no script; use 'ferry train --data PATH'" << Qt::endl;
            return std::nullopt;
        }
        spec.target = *target;
        if (!applyRemoteOptions(parser, spec.target, io))
            return std::nullopt;
        const auto grants = grantOptions(parser, spec.target, u"run"_s, io);
        const auto hps = optionPairs(parser.values(u"hp"_s), u"hp"_s, u"run"_s, io);
        const auto metrics = optionPairs(parser.values(u"metric-def"_s), u"metric-def"_s, u"run"_s, io);
        if (!grants || !hps || !metrics)
            return std::nullopt;
        spec.channels = grants->channels;
        for (const auto &[name, value] : *hps)
            spec.hyperparameters << run::Hyperparameter{name, value};
        if (fromJob && !setAzureMlJob(parser, spec.target, spec, io))
            return std::nullopt;
        for (const auto &[name, regex] : *metrics)
            spec.metricDefinitions << run::MetricDefinition{name, regex};
        spec.secretVariables = grants->secretVariables;
        if (!applyBudgetOptions(parser, spec.budget, io))
            return std::nullopt;
        if (parser.isSet(u"env"_s) || !spec.environmentFile.isEmpty()) {
            const QString file =
                QFileInfo(parser.isSet(u"env"_s) ? parser.value(u"env"_s) : spec.environmentFile).absoluteFilePath();
            const Diagnostics diagnostics = run::applyEnvironmentFile(spec, file);
            for (const Diagnostic &d : diagnostics) {
                if (d.isError())
                    io.err << d.toString() << Qt::endl;
            }
            if (hasErrors(diagnostics))
                return std::nullopt;
            // Its secret variables reach the run as names; each secret must be in the keychain now.
            if (const auto secrets = run::checkRunSecrets(spec); !secrets) {
                io.err << "ferry run: " << file << ": " << secrets.error().toString() << Qt::endl;
                return std::nullopt;
            }
        }
        return spec;
    }
};

} // namespace

std::unique_ptr<Command> makeRunCommand()
{
    return std::make_unique<RunCommand>();
}

} // namespace ferry::cli
