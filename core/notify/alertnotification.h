// The desktop notification an alert of a run shows (tracking/alertwatch.h), or a sweep's end: its
// title, body, urgency and what a click opens.
#pragma once

#include "notify/desktopnotifier.h"
#include "sweep/sweepstate.h"
#include "tracking/alertwatch.h"

namespace ferry::notify {

// What the window and `ferry runs watch` both show for an alert: the alert's summary as the
// title, its body (the error, the rule) below; critical for a failed or lost run (most desktops
// keep those until dismissed), low for a cancelled one. `clickable`: a click opens the run (the
// window, which hears the click); the command line's notifications offer no action, since it
// may be gone by the time of the click.
Notification alertNotification(const run::Alert &alert, bool clickable);

// A sweep that ended (sweep/sweepwatch.h): "sweep NAME finished", its trials counted below
// ("12 trials: 10 succeeded, 2 stopped early"), or why it failed. `key`: what a click hands back
// (empty: no action).
Notification sweepNotification(const sweep::SweepState &sweep, const QString &key);

} // namespace ferry::notify
