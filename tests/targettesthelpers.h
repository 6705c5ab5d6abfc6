#pragma once

// Shared by the target tests: readable QCOMPARE failures for RunState, and polling waits.
#include "targets/target.h"

#include <QDeadlineTimer>
#include <QTest>
#include <QThread>

namespace ferry::targets {
inline char *toString(RunState state)
{
    return qstrdup(qPrintable(stateName(state)));
}
} // namespace ferry::targets

namespace ferry::test {

// Polls `done` until it holds or `timeoutMs` passes (a bound against hangs, not a timing).
template <typename Condition> bool waitFor(Condition done, int timeoutMs = 120000, int pollMs = 20)
{
    const QDeadlineTimer deadline(timeoutMs);
    while (!done()) {
        if (deadline.hasExpired())
            return false;
        QThread::msleep(pollMs);
    }
    return true;
}

} // namespace ferry::test
