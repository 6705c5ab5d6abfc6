// `ferry sweep plan FILE [--json]`: reads a sweep file (docs/sweep-format.md), reports every
// problem as file:line:column, and prints the trials it plans: every one of a grid or a random
// search, the random start of a TPE search (its later trials follow from the finished ones).
#include "cli/command.h"

#include "sweep/sampler.h"
#include "sweep/sweepfile.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

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
    QString summary() const override { return u"plan sweeps: many trials of one script (grid, random, TPE)"_s; }
    int maxPositionalArguments() const override { return 2; }

    void configure(QCommandLineParser &parser) const override
    {
        parser.setApplicationDescription(
            u"Sweeps: one script run many times, its hyperparameters drawn from a search space\n"
            u"(the sweep file: docs/sweep-format.md).\n\n"
            u"  ferry sweep plan FILE [--json]   check the file (every problem as file:line:column;\n"
            u"                                   exit 1 on errors) and print the trials it plans"_s);
        parser.addPositionalArgument(u"action"_s, u"plan"_s, u"ACTION"_s);
        parser.addPositionalArgument(u"file"_s, u"The sweep file (sweeps/NAME.yml)."_s, u"FILE"_s);
        parser.addOption({u"json"_s, u"Print the plan as JSON."_s});
    }

    int run(const QCommandLineParser &parser, Io &io) override
    {
        const QStringList args = parser.positionalArguments();
        if (args.value(0) != "plan"_L1)
            return usageError(
                name(), args.isEmpty() ? u"say what to do: plan"_s : u"unknown action '%1' (plan)"_s.arg(args.value(0)),
                io);
        if (args.size() != 2)
            return usageError(name(), u"'ferry sweep plan' takes one sweep file"_s, io);
        const SweepRead read = readSweepFile(args[1]);
        if (reportDiagnostics(read.diagnostics, io))
            return kExitUserError;
        return plan(read.spec, parser.isSet(u"json"_s), io);
    }

private:
    static int plan(const SweepSpec &spec, bool json, Io &io)
    {
        const Sampler sampler(spec);
        const int planned = spec.plannedTrials();
        const int ahead = spec.method == Method::Bayes ? std::min(planned, Sampler::kStartupTrials) : planned;
        QJsonArray trials;
        if (!json) {
            io.out << describe(spec) << Qt::endl;
            QStringList header{u"trial"_s};
            for (const Parameter &p : spec.parameters)
                header << p.name;
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
                trials.append(QJsonObject{{u"trial"_s, n}, {u"hyperparameters"_s, values}});
                continue;
            }
            QStringList row{QString::number(n)};
            for (const run::Hyperparameter &h : hp)
                row << h.value;
            io.out << row.join(u'\t') << Qt::endl;
        }
        if (json) {
            const QJsonObject out{{u"method"_s, methodName(spec.method)},
                                  {u"planned"_s, planned},
                                  {u"maxParallel"_s, spec.maxParallel},
                                  {u"metric"_s, spec.metric},
                                  {u"trials"_s, trials}};
            io.out << QJsonDocument(out).toJson(QJsonDocument::Compact) << Qt::endl;
        } else if (ahead < planned) {
            io.out << "trials " << ahead << " to " << planned - 1
                   << ": chosen by TPE from the trials finished before each starts" << Qt::endl;
        }
        return kExitOk;
    }
};

} // namespace

std::unique_ptr<Command> makeSweepCommand()
{
    return std::make_unique<SweepCommand>();
}

} // namespace ferry::cli
