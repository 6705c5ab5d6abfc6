#include "common/process.h"

#include <QDeadlineTimer>
#include <QProcess>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace ferry {

namespace {

constexpr int kKillWaitMs = 5000;
constexpr int kPollMs = 100;

// One channel's bytes: kept within its capture, and cut into lines for a sink.
class Channel {
public:
    Channel(const OutputCapture &capture, QByteArray &kept) : m_capture(capture), m_kept(kept) {}

    // False: past a limit that fails.
    bool take(const QByteArray &bytes)
    {
        if (bytes.isEmpty())
            return !m_overflowed;
        m_kept += bytes;
        if (m_kept.size() > m_capture.limit) {
            if (m_capture.overflow == OutputCapture::Overflow::Fail) {
                m_kept.truncate(m_capture.limit);
                m_overflowed = true;
            } else {
                m_kept = m_kept.right(m_capture.limit);
            }
        }
        return !m_overflowed;
    }
    bool overflowed() const { return m_overflowed; }

private:
    OutputCapture m_capture;
    QByteArray &m_kept;
    bool m_overflowed = false;
};

// Cuts stdout into whole lines for the call's sink.
class LineSplitter {
public:
    explicit LineSplitter(const ProgramCall &call) : m_call(call) {}

    void take(const QByteArray &bytes)
    {
        if (!m_call.lineSink || bytes.isEmpty())
            return;
        m_pending += bytes;
        qsizetype end = m_pending.lastIndexOf('\n');
        if (m_call.carriageReturnEndsLine)
            end = std::max(end, m_pending.lastIndexOf('\r'));
        if (end < 0)
            return;
        const QByteArray lines = m_pending.left(end + 1);
        m_pending.remove(0, end + 1);
        m_call.lineSink(lines);
    }
    void finish()
    {
        if (m_call.lineSink && !m_pending.isEmpty())
            m_call.lineSink(m_pending + '\n');
        m_pending.clear();
    }

private:
    const ProgramCall &m_call;
    QByteArray m_pending; // an incomplete line, kept until its end arrives
};

} // namespace

QString ProcessResult::failure(const QString &name) const
{
    switch (end) {
    case End::NotStarted:
        return u"cannot run %1: %2"_s.arg(name, startError);
    case End::Exited:
        return {};
    case End::Crashed:
        return u"%1 crashed"_s.arg(name);
    case End::TimedOut:
        return u"%1 did not finish within %2 s"_s.arg(name, QString::number(timeoutMs / 1000.0));
    case End::Cancelled:
        return u"%1 was cancelled"_s.arg(name);
    case End::TooMuchOutput:
        return u"%1 sent more than %2 MiB; stopped"_s.arg(name).arg(outputLimit >> 20);
    }
    return {};
}

ProcessResult runProgram(const ProgramCall &call)
{
    ProcessResult result;
    result.timeoutMs = call.timeoutMs;
    QProcess process;
    process.setProgram(call.program);
    process.setArguments(call.arguments);
    process.setProcessEnvironment(call.environment ? *call.environment : QProcessEnvironment::systemEnvironment());
    if (!call.workingDirectory.isEmpty())
        process.setWorkingDirectory(call.workingDirectory);
    if (call.mergeChannels)
        process.setProcessChannelMode(QProcess::MergedChannels);
    if (call.input.isEmpty())
        process.setStandardInputFile(QProcess::nullDevice());
    process.start();
    if (!process.waitForStarted(call.startTimeoutMs)) {
        result.startError = process.errorString();
        process.kill();
        process.waitForFinished(kKillWaitMs);
        return result;
    }
    if (!call.input.isEmpty()) {
        process.write(call.input);
        process.closeWriteChannel();
    }

    Channel out(call.out, result.out);
    Channel err(call.err, result.err);
    LineSplitter lines(call);
    const auto drain = [&] {
        const QByteArray bytes = process.readAllStandardOutput();
        lines.take(bytes);
        const bool within = out.take(bytes);
        return (call.mergeChannels || err.take(process.readAllStandardError())) && within;
    };
    const auto stop = [&](ProcessResult::End end) {
        process.kill();
        process.waitForFinished(kKillWaitMs);
        result.end = end;
    };
    // Read as it comes (review L14): a program cannot make one call hold gigabytes here within
    // its time-out.
    const QDeadlineTimer deadline =
        call.timeoutMs < 0 ? QDeadlineTimer(QDeadlineTimer::Forever) : QDeadlineTimer(call.timeoutMs);
    while (!process.waitForFinished(kPollMs) && process.state() != QProcess::NotRunning) {
        if (!drain()) {
            stop(ProcessResult::End::TooMuchOutput);
            break;
        }
        if (call.cancelled && call.cancelled()) {
            stop(ProcessResult::End::Cancelled);
            break;
        }
        if (deadline.hasExpired()) {
            stop(ProcessResult::End::TimedOut);
            break;
        }
    }
    drain();
    lines.finish();
    if (out.overflowed() || err.overflowed()) {
        result.end = ProcessResult::End::TooMuchOutput;
        result.outputLimit = out.overflowed() ? call.out.limit : call.err.limit;
        return result;
    }
    if (result.end != ProcessResult::End::NotStarted)
        return result; // stopped
    if (process.exitStatus() != QProcess::NormalExit) {
        result.end = ProcessResult::End::Crashed;
        return result;
    }
    result.end = ProcessResult::End::Exited;
    result.exitCode = process.exitCode();
    return result;
}

} // namespace ferry
