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

} // namespace ferry::notify
