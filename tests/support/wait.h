// waitFor: polls a condition in a test until it holds or a time-out passes, running the event loop
// if there is one.
#pragma once

// Waiting in a test for something that happens elsewhere (another process, a run's thread).
#include <QCoreApplication>
#include <QDateTime>
#include <QDeadlineTimer>
#include <QTest>
#include <QThread>

namespace ferry::test {

// Polls `condition` every `pollMs` until it holds or `timeoutMs` passes; a bound against hangs,
// not a timing. Between polls the event loop runs where the test has an application object (a
// QProcess's output arrives, queued signals are delivered); without one the thread sleeps.
template <typename Condition> bool waitFor(Condition condition, int timeoutMs = 120000, int pollMs = 20)
{
    const QDeadlineTimer deadline(timeoutMs);
    while (!condition()) {
        if (deadline.hasExpired())
            return false;
        if (QCoreApplication::instance())
            QTest::qWait(pollMs);
        else
            QThread::msleep(pollMs);
    }
    return true;
}

// Until the clock's whole second is past `second` (seconds since the epoch), for a service that
// compares whole seconds: slurmd refuses a job's credential made in the second (or before) its
// earlier one was revoked. A second at most; the time-out only bounds a clock gone wrong.
inline bool waitPastSecond(qint64 second)
{
    return waitFor([second] { return QDateTime::currentSecsSinceEpoch() > second; }, 5000, 20);
}

} // namespace ferry::test
