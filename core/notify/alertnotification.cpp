#include "notify/alertnotification.h"

using namespace Qt::StringLiterals;

namespace ferry::notify {

Notification alertNotification(const run::Alert &alert, bool clickable)
{
    Notification n;
    n.title = alert.summary();
    n.body = alert.body();
    n.key = clickable ? alert.runId : QString();
    if (alert.kind != run::Alert::Kind::Ended) {
        n.category = u"x-ferry.alert"_s;
        return n;
    }
    n.category = u"x-ferry.run.ended"_s;
    if (alert.status == run::RunStatus::Failed || alert.status == run::RunStatus::Lost)
        n.urgency = Notification::Urgency::Critical;
    else if (alert.status == run::RunStatus::Cancelled)
        n.urgency = Notification::Urgency::Low;
    return n;
}

Notification sweepNotification(const sweep::SweepState &sweep, const QString &key)
{
    Notification n;
    const QString name = sweep.name.isEmpty() ? sweep.id : u"%1 (%2)"_s.arg(sweep.name, sweep.id);
    const QString how = sweep.status == sweep::SweepStatus::Finished ? u"finished"_s
                        : sweep.status == sweep::SweepStatus::Failed ? u"failed"_s
                                                                     : u"was cancelled"_s;
    n.title = u"sweep %1 %2"_s.arg(name, how);
    QStringList counts;
    for (const sweep::TrialStatus status :
         {sweep::TrialStatus::Succeeded, sweep::TrialStatus::Failed, sweep::TrialStatus::StoppedEarly,
          sweep::TrialStatus::Cancelled, sweep::TrialStatus::Lost}) {
        if (const qsizetype count = sweep.count(status))
            counts << u"%1 %2"_s.arg(count).arg(sweep::trialStatusText(status));
    }
    n.body = (sweep.trials.size() == 1 ? u"1 trial"_s : u"%1 trials"_s.arg(sweep.trials.size())) +
             (counts.isEmpty() ? QString() : u": "_s + counts.join(u", "_s));
    if (!sweep.error.isEmpty())
        n.body += u"\n"_s + sweep.error;
    n.category = u"x-ferry.sweep.ended"_s;
    n.urgency =
        sweep.status == sweep::SweepStatus::Failed ? Notification::Urgency::Critical : Notification::Urgency::Normal;
    n.key = key;
    return n;
}

} // namespace ferry::notify
