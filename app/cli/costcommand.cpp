// `ferry cost report [--since DATE] [--by target|sweep|tag] [--csv]`: what the workspace's runs took
// and cost at the rates set (docs/cost.md).
#include "cli/command.h"
#include "cli/runsupport.h"

#include "common/durationtext.h"
#include "cost/costreport.h"
#include "cost/kernelcost.h"
#include "cost/money.h"
#include "kernelhost/kernelhost.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QSettings>

#include <cmath>

using namespace Qt::StringLiterals;

namespace ferry::cli {

namespace {

QString timeOf(double seconds)
{
    return ferry::durationText(qint64(std::llround(seconds * 1000)));
}

// The workspace's kernels as records the report prices with the runs (kernels are no runs of the
// store): each from its start to its end, or to now while it runs.
QList<run::RunRecord> kernelRecords(const workspace::Workspace &workspace, Io &io)
{
    QList<Error> problems;
    QList<run::RunRecord> records;
    for (const kernels::KernelSession &k :
         kernels::kernelSessions(workspace.kernelsDir(), QCoreApplication::applicationFilePath(), &problems))
        records << cost::kernelRecord(k.id, k.spec, k.startedMs, k.finishedMs);
    for (const Error &e : problems)
        io.err << "ferry cost: a kernel left out: " << e.toString() << Qt::endl;
    return records;
}

// A group's cost: the known part, and that some runs' is unknown.
QString groupCostText(const cost::CostGroup &g)
{
    if (g.unpriced == g.runs)
        return u"unknown"_s;
    return cost::moneyText(g.cost) + (g.unpriced > 0 ? u" + unknown"_s : QString());
}

class CostCommand final : public Command {
public:
    QString name() const override { return u"cost"_s; }
    QString summary() const override { return u"what the workspace's runs took and cost"_s; }
    int maxPositionalArguments() const override { return 1; }

    void configure(QCommandLineParser &parser) const override
    {
        parser.setApplicationDescription(
            u"ferry cost report: every run and kernel that started (since DATE), its time and its cost at the rates\n"
            u"set now ('ferry rates list'), in USD, the price catalog's currency. A run at an unknown rate\n"
            u"has an unknown cost, counted apart, never as 0. A run still going counts until now.\n"
            u"--csv: one row per run (run,target,seconds,rate,cost), or with --by one row per group\n"
            u"(group,runs,seconds,cost,unpriced_runs); docs/cost.md."_s);
        parser.addPositionalArgument(u"action"_s, u"report"_s, u"report"_s);
        parser.addOption(
            {u"since"_s, u"Only runs started on this day or later (YYYY-MM-DD, local time)."_s, u"DATE"_s});
        parser.addOption({u"by"_s, u"Group by target, sweep, tag (a run with several tags counts in each) or month."_s,
                          u"GROUPING"_s});
        parser.addOption({u"csv"_s, u"Print CSV."_s});
        parser.addOption({u"workspace"_s, u"The workspace folder (default: the current folder)."_s, u"DIR"_s});
    }

    int run(const QCommandLineParser &parser, Io &io) override
    {
        if (parser.positionalArguments().value(0) != u"report"_s)
            return usageError(name(), u"say what to do: report"_s, io);
        qint64 sinceMs = 0;
        if (parser.isSet(u"since"_s)) {
            const QDate day = QDate::fromString(parser.value(u"since"_s), Qt::ISODate);
            if (!day.isValid())
                return usageError(name(), u"--since takes a day, YYYY-MM-DD, not '%1'"_s.arg(parser.value(u"since"_s)),
                                  io);
            sinceMs = QDateTime(day, QTime(0, 0)).toMSecsSinceEpoch();
        }
        std::optional<cost::Grouping> grouping;
        if (parser.isSet(u"by"_s)) {
            grouping = cost::groupingFromText(parser.value(u"by"_s));
            if (!grouping)
                return usageError(name(),
                                  u"--by takes target, sweep, tag or month, not '%1'"_s.arg(parser.value(u"by"_s)), io);
        }
        auto context = openRunContext(parser.value(u"workspace"_s), io);
        if (!context)
            return kExitUserError;
        const cost::RatesRead rates = cost::readRates(QSettings());
        for (const Error &e : rates.problems)
            io.err << "ferry cost: " << e.toString() << Qt::endl;
        const QList<cost::RunCost> rows =
            cost::costReport(context->store->runs() + kernelRecords(context->workspace, io), rates.rates, sinceMs,
                             QDateTime::currentMSecsSinceEpoch());
        const bool csv = parser.isSet(u"csv"_s);
        if (grouping) {
            const QList<cost::CostGroup> groups = cost::groupCosts(rows, *grouping);
            if (csv)
                io.out << cost::groupCsv(groups);
            else
                printGroups(groups, cost::totalCost(rows), parser.value(u"by"_s), io);
        } else if (csv) {
            io.out << cost::costCsv(rows);
        } else {
            printRuns(rows, io);
        }
        io.out.flush();
        return kExitOk;
    }

private:
    static void printRuns(const QList<cost::RunCost> &rows, Io &io)
    {
        io.out << u"%1  %2  %3  %4  %5  %6"_s.arg(u"RUN"_s, -40)
                      .arg(u"TARGET"_s, -20)
                      .arg(u"TIME"_s, -9)
                      .arg(u"RATE"_s, -14)
                      .arg(u"COST"_s, -12)
                      .arg(u"RATE SOURCE"_s)
               << '\n';
        for (const cost::RunCost &r : rows) {
            const auto cost = r.cost();
            io.out << u"%1  %2  %3  %4  %5  %6"_s.arg(r.run, -40)
                          .arg(r.target, -20)
                          .arg(timeOf(r.seconds) + (r.running ? u"+"_s : QString()), -9)
                          .arg(r.rate ? cost::priceText(r.rate->perHour()) + u"/h"_s : u"unknown"_s, -14)
                          .arg(cost ? cost::moneyText(*cost) : u"unknown"_s, -12)
                          .arg(r.rate ? (r.rate->isDefault ? r.rate->rate.source
                                                           : r.rate->target + u", "_s + r.rate->rate.source)
                                      : u"no rate for this target: ferry rates set"_s)
                   << '\n';
        }
        printTotal(cost::totalCost(rows), io);
    }

    static void printGroups(const QList<cost::CostGroup> &groups, const cost::CostGroup &total, const QString &by,
                            Io &io)
    {
        io.out << u"%1  %2  %3  %4  %5"_s.arg(by.toUpper(), -40)
                      .arg(u"RUNS"_s, 5)
                      .arg(u"TIME"_s, -9)
                      .arg(u"COST"_s, -22)
                      .arg(u"UNPRICED"_s)
               << '\n';
        for (const cost::CostGroup &g : groups)
            io.out << u"%1  %2  %3  %4  %5"_s.arg(g.name, -40)
                          .arg(g.runs, 5)
                          .arg(timeOf(g.seconds), -9)
                          .arg(groupCostText(g), -22)
                          .arg(g.unpriced)
                   << '\n';
        printTotal(total, io);
    }

    static void printTotal(const cost::CostGroup &total, Io &io)
    {
        io.out << "total: " << total.runs << " run" << (total.runs == 1 ? "" : "s") << ", " << timeOf(total.seconds)
               << ", " << cost::moneyText(total.cost);
        if (total.unpriced > 0)
            io.out << " (and " << total.unpriced << " run" << (total.unpriced == 1 ? "" : "s")
                   << " at an unknown rate, not counted: ferry rates set TARGET AMOUNT/h)";
        io.out << "\nEach run priced at the rate recorded at its launch (an earlier Ferry's runs and kernels at "
                  "the rates set now: 'ferry rates list'); a time with + is a run still going.\n";
    }
};

} // namespace

std::unique_ptr<Command> makeCostCommand()
{
    return std::make_unique<CostCommand>();
}

} // namespace ferry::cli
