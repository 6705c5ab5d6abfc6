// `ferry budget show|set month BUDGET|unset month [--default]`: the workspace's budget for a month
// (docs/cost.md, Budgets), kept in the workspace (or, with --default, in Ferry's settings for every
// workspace without its own), and what this month has spent of it.
#include "cli/command.h"
#include "cli/runsupport.h"

#include "cost/budget.h"
#include "cost/money.h"
#include "workspace/workspace.h"

#include <QDateTime>
#include <QDir>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSettings>

using namespace Qt::StringLiterals;

namespace ferry::cli {

namespace {

class BudgetCommand final : public Command {
public:
    QString name() const override { return u"budget"_s; }
    QString summary() const override { return u"the workspace's budget for a month, and what it has spent"_s; }
    int maxPositionalArguments() const override { return 3; }

    void configure(QCommandLineParser &parser) const override
    {
        parser.setApplicationDescription(
            u"A month's budget (docs/cost.md): once this calendar month's runs and kernels of the workspace\n"
            u"have cost it (at their rates, ferry rates) or taken it (hours), a new run is refused.\n\n"
            u"  ferry budget show [--json]       the budget and what this month has spent of it\n"
            u"  ferry budget set month BUDGET    this workspace's: 200 (USD), $200, 200 USD, 100h (hours),\n"
            u"                                   or none (none here, whatever the default)\n"
            u"  ferry budget unset month         this workspace's own: the default holds again\n"
            u"  ... month --default              the default for every workspace without its own\n"
            u"  ferry budget set grace SECONDS   SIGTERM to SIGKILL at a run's cap (default 30)\n"
            u"  ferry budget unset grace         30 s again\n\n"
            u"A run's own caps: ferry run ... --max-cost AMOUNT --max-time H:MM:SS; a sweep's: budget: in\n"
            u"its file."_s);
        parser.addPositionalArgument(u"action"_s, u"show, set or unset"_s, u"ACTION"_s);
        parser.addPositionalArgument(u"what"_s, u"set, unset: month or grace"_s, u"[month|grace]"_s);
        parser.addPositionalArgument(u"budget"_s, u"set: the budget"_s, u"[BUDGET]"_s);
        parser.addOption({u"json"_s, u"show: print JSON."_s});
        parser.addOption({u"workspace"_s, u"The workspace folder (default: the current folder)."_s, u"DIR"_s});
        parser.addOption({u"default"_s, u"set, unset month: the default for every workspace (Ferry's settings)."_s});
    }

    int run(const QCommandLineParser &parser, Io &io) override
    {
        const QStringList args = parser.positionalArguments();
        const QString action = args.value(0);
        const QHash<QString, int> arity{{u"show"_s, 1}, {u"set"_s, 3}, {u"unset"_s, 2}};
        if (!arity.contains(action))
            return usageError(name(),
                              action.isEmpty() ? u"say what to do: show, set or unset"_s
                                               : u"unknown action '%1' (show, set, unset)"_s.arg(action),
                              io);
        if (args.size() != arity.value(action) || (args.size() > 1 && args[1] != u"month"_s && args[1] != u"grace"_s))
            return usageError(name(),
                              action == u"set"_s     ? u"write: ferry budget set month 200 (or 100h), or set grace 30"_s
                              : action == u"unset"_s ? u"write: ferry budget unset month (or grace)"_s
                                                     : u"'ferry budget show' takes no argument"_s,
                              io);
        QSettings settings;
        if (args.value(1) == u"grace"_s)
            return grace(settings, action == u"set"_s ? args[2] : QString(), io);
        if (parser.isSet(u"default"_s)) { // Ferry's settings: every workspace without its own
            if (action == u"unset"_s) {
                cost::unsetMonthBudget(settings);
                io.out << "month (default): none" << Qt::endl;
                return kExitOk;
            }
            const auto budget = cost::parseMonthBudget(args[2]);
            if (!budget) {
                io.err << "ferry budget: " << budget.error().toString() << Qt::endl;
                return kExitUserError;
            }
            cost::setMonthBudget(settings, *budget);
            io.out << "month (default): " << cost::monthBudgetText(*budget) << Qt::endl;
            return kExitOk;
        }
        if (action != u"show"_s)
            return setOwn(parser, action == u"set"_s ? args[2] : QString(), settings, io);
        return show(settings, parser, io);
    }

private:
    // `set grace SECONDS` (empty: unset).
    static int grace(QSettings &settings, const QString &text, Io &io)
    {
        if (text.isEmpty()) {
            cost::kBudgetGraceSetting.reset(settings);
        } else {
            const auto grace = cost::parseGrace(text);
            if (!grace) {
                io.err << "ferry budget: " << grace.error().toString() << Qt::endl;
                return kExitUserError;
            }
            cost::kBudgetGraceSetting.set(settings, *grace);
        }
        io.out << "grace: " << cost::budgetGraceSeconds(settings) << " s" << Qt::endl;
        return kExitOk;
    }

    // `set month BUDGET` (empty: `unset month`) for the workspace itself.
    static int setOwn(const QCommandLineParser &parser, const QString &text, const QSettings &settings, Io &io)
    {
        const QString dir = parser.value(u"workspace"_s);
        const auto workspace = workspace::Workspace::open(dir.isEmpty() ? QDir::currentPath() : dir);
        if (!workspace) {
            io.err << "ferry budget: " << workspace.error().toString() << Qt::endl;
            return kExitUserError;
        }
        const Expected<std::optional<cost::MonthBudget>> budget =
            text.isEmpty() ? Expected<std::optional<cost::MonthBudget>>(std::optional<cost::MonthBudget>())
                           : cost::parseOwnMonthBudget(text);
        if (!budget) {
            io.err << "ferry budget: " << budget.error().toString() << Qt::endl;
            return kExitUserError;
        }
        const auto stored = text.isEmpty() ? cost::unsetWorkspaceMonthBudget(workspace->stateDir())
                                           : cost::setWorkspaceMonthBudget(workspace->stateDir(), *budget);
        if (!stored) {
            io.err << "ferry budget: " << stored.error().toString() << Qt::endl;
            return kExitUserError;
        }
        const auto inForce = cost::monthBudgetInForce(workspace->stateDir(), settings);
        if (!inForce) {
            io.err << "ferry budget: " << inForce.error().toString() << Qt::endl;
            return kExitUserError;
        }
        io.out << "month: " << inForceText(*inForce) << Qt::endl;
        return kExitOk;
    }

    // "200.00 USD", "none", with " (the default)" when it is not the workspace's own.
    static QString inForceText(const cost::MonthBudgetInForce &inForce)
    {
        const QString text = inForce.budget ? cost::monthBudgetText(*inForce.budget) : u"none"_s;
        return inForce.workspaceOwn ? text : text + u" (the default)"_s;
    }

    static int show(const QSettings &settings, const QCommandLineParser &parser, Io &io)
    {
        auto context = openRunContext(parser.value(u"workspace"_s), io);
        if (!context)
            return kExitUserError;
        const auto inForce = cost::monthBudgetInForce(context->workspace.stateDir(), settings);
        if (!inForce) {
            io.err << "ferry budget: " << inForce.error().toString() << Qt::endl;
            return kExitUserError;
        }
        const std::optional<cost::MonthBudget> &budget = inForce->budget;
        const cost::RatesRead rates = cost::readRates(settings);
        const cost::MonthSpending spent =
            cost::monthSpending(context->store->runs(), cost::readKernelTimes(context->workspace.kernelsDir()),
                                rates.rates, QDateTime::currentMSecsSinceEpoch());
        if (parser.isSet(u"json"_s)) {
            QJsonObject month{{u"month"_s, spent.monthName},
                              {u"runs"_s, spent.runs},
                              {u"kernels"_s, spent.kernels},
                              {u"seconds"_s, spent.seconds},
                              {u"cost"_s, spent.cost},
                              {u"unpriced"_s, spent.unpriced},
                              {u"currency"_s, QString(cost::kCurrency)},
                              {u"graceSeconds"_s, cost::budgetGraceSeconds(settings)}};
            month[u"source"_s] = inForce->workspaceOwn ? u"workspace"_s : u"default"_s;
            if (budget) {
                const cost::MonthBudget &b = *budget;
                month[u"budget"_s] =
                    QJsonObject{{u"kind"_s, b.kind == cost::MonthBudget::Kind::Time ? u"hours"_s : u"money"_s},
                                {u"amount"_s, b.amount}};
                month[u"spent"_s] = cost::monthSpent(spent, b);
            } else {
                month[u"budget"_s] = QJsonValue();
            }
            io.out << QJsonDocument(month).toJson(QJsonDocument::Compact) << Qt::endl;
            return kExitOk;
        }
        io.out << "grace: " << cost::budgetGraceSeconds(settings) << " s (SIGTERM to SIGKILL at a run's cap)"
               << Qt::endl;
        const QString whose = inForce->workspaceOwn ? u"month (this workspace's): "_s : u"month (the default): "_s;
        if (!budget) {
            io.out << whose << "no budget; " << spent.monthName << " so far: " << moneyOrHours(spent) << Qt::endl;
            return kExitOk;
        }
        io.out << whose << cost::monthSpendingText(spent, *budget);
        if (cost::monthSpent(spent, *budget))
            io.out << "; spent: new runs are refused";
        io.out << Qt::endl;
        return kExitOk;
    }

    static QString moneyOrHours(const cost::MonthSpending &s)
    {
        return u"%1, %2 h (%3 runs, %4 kernels)"_s.arg(cost::moneyText(s.cost))
            .arg(s.seconds / 3600.0, 0, 'f', 2)
            .arg(s.runs)
            .arg(s.kernels);
    }
};

} // namespace

std::unique_ptr<Command> makeBudgetCommand()
{
    return std::make_unique<BudgetCommand>();
}

} // namespace ferry::cli
