#include "cli/runswatch.h"

#include "notify/alertnotification.h"
#include "tracking/alertwatch.h"

#include <QDateTime>

using namespace Qt::StringLiterals;

namespace ferry::cli {

namespace {

constexpr int kLastNotificationWaitMs = 2000; // the end's notification, answered before the command ends

int exitCodeOf(run::RunStatus status)
{
    switch (status) {
    case run::RunStatus::Succeeded:
        return kExitOk;
    case run::RunStatus::Failed:
        return kWatchFailed;
    case run::RunStatus::Lost:
        return kWatchLost;
    case run::RunStatus::Cancelled:
        return kWatchCancelled;
    default:
        break;
    }
    return kExitInternalError; // not over: followRunWith says why it stopped
}

} // namespace

void addWatchOptions(QCommandLineParser &parser)
{
    parser.addOption(
        {u"until-done"_s, u"watch: follow the run until it ends, whatever fires (else until the first alert)."_s});
    parser.addOption({u"alert"_s,
                      u"watch: a rule, e.g. 'val_loss>2.5', 'loss<0.01', 'loss:nan', 'stalled:10m' (repeatable; "
                      u"docs/metrics.md, Alerts)."_s,
                      u"RULE"_s});
}

std::optional<QList<run::AlertRule>> alertRulesOf(const QStringList &values, Io &io)
{
    QList<run::AlertRule> rules;
    for (const QString &value : values) {
        const auto parsed = run::parseAlertRules(value);
        if (!parsed) {
            printColumnError(u"ferry runs watch: --alert: "_s, value, parsed.error(), io);
            return std::nullopt;
        }
        rules << *parsed;
    }
    return rules;
}

int watchRun(RunContext &context, const run::RunRecord &record, const QList<run::AlertRule> &rules, bool untilDone,
             Io &io)
{
    run::AlertWatch watch(*context.store, record.id, rules);
    watch.setRunDir(runDirOf(context, record.id));
    notify::DesktopNotifier notifier;
    bool alerted = false;
    FollowOptions options;
    options.printLog = false;
    options.afterStep = [&](const run::RunRecord &now, bool newData, bool queued) {
        for (const run::Alert &alert : watch.observe(now, QDateTime::currentMSecsSinceEpoch(), newData, queued)) {
            // The command may be gone when the notification is clicked: it offers no action.
            notifier.send(notify::alertNotification(alert, false));
            if (alert.kind == run::Alert::Kind::Ended)
                continue; // said on stderr by followRunWith
            io.out << "alert: " << alert.summary();
            if (const QString body = alert.body(); !body.isEmpty())
                io.out << " (" << body << ")";
            io.out << Qt::endl;
            // The budget's word is no rule of the command's: the watch goes on to the run's end.
            alerted = alerted || alert.kind != run::Alert::Kind::BudgetUsed;
        }
        return alerted && !untilDone;
    };
    const FollowOutcome outcome = followRunWith(context, record, io, options);
    notifier.waitForAnswers(kLastNotificationWaitMs);
    if (outcome.ended)
        return exitCodeOf(outcome.end.status);
    if (outcome.interrupted)
        return kWatchInterrupted;
    if (alerted) {
        io.err << "run " << record.id << " goes on; watch it again with 'ferry runs watch " << record.id << "'"
               << Qt::endl;
        return kWatchAlerted;
    }
    return outcome.code;
}

} // namespace ferry::cli
