// runProgram: the one way Ferry runs an external program to its end, with time-out, cancel, line
// sink and bounded output.
#pragma once

// One way to run an external program to its end: program, arguments, environment, working
// folder, stdin, a time-out, a cancel check and a sink for its lines as they come; what it
// prints is kept within a bound. The container engine, the remote shells, rsync and the Dev
// Containers CLI all go through runProgram instead of a QProcess loop of their own.
// runProgram blocks until the program has ended: call it off the GUI thread.

#include <QByteArray>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

#include <functional>
#include <optional>

namespace ferry {

// How much of one output channel is kept, and what happens past it.
struct OutputCapture {
    enum class Overflow {
        Fail,     // the program is stopped: a program that prints more misbehaves (review L14)
        KeepTail, // the oldest output is dropped: the end is what an error message wants
    };
    qsizetype limit = 64 * 1024 * 1024;
    Overflow overflow = Overflow::Fail;

    // Nothing kept (the lines may still go to the sink).
    static OutputCapture discard() { return {0, Overflow::KeepTail}; }
    static OutputCapture tail(qsizetype bytes) { return {bytes, Overflow::KeepTail}; }
};

struct ProgramCall {
    QString program; // a name on PATH or a path
    QStringList arguments;
    std::optional<QProcessEnvironment> environment; // unset: this process's environment
    QString workingDirectory;                       // empty: this process's
    QByteArray input;                               // written to stdin, which is then closed; none: /dev/null
    int timeoutMs = 60000;                          // for the whole call; negative: none
    int startTimeoutMs = 30000;
    bool mergeChannels = false;      // stderr into stdout (then `err` stays empty)
    std::function<bool()> cancelled; // asked about ten times a second; true stops the program
    // Complete lines of stdout as they come, several at a time, each with its line end; the last
    // line is given a '\n' when the program ends without one.
    std::function<void(const QByteArray &lines)> lineSink;
    bool carriageReturnEndsLine = false; // '\r' ends a line too (progress meters)
    OutputCapture out;
    OutputCapture err;
};

struct ProcessResult {
    enum class End {
        NotStarted,    // see startError
        Exited,        // see exitCode
        Crashed,       // ended by a signal
        TimedOut,      // killed at the time-out
        Cancelled,     // killed because `cancelled` said so
        TooMuchOutput, // killed, or ended, past an output limit that fails
    };
    End end = End::NotStarted;
    int exitCode = -1;
    QByteArray out; // within the call's capture (the end of it for KeepTail)
    QByteArray err;
    QString startError; // why it did not start
    int timeoutMs = 0;  // the call's, for messages
    qsizetype outputLimit = 0;

    bool started() const { return end != End::NotStarted; }
    bool ok() const { return end == End::Exited && exitCode == 0; }
    // Why the program did not end by itself, in words naming it `name`: "cannot run NAME: ...",
    // "NAME did not finish within 60 s", ...; empty when it exited (whatever its exit code).
    QString failure(const QString &name) const;
};

// Runs the call to its end (see ProgramCall); the program is killed at the time-out, at a cancel
// and past an output limit that fails.
ProcessResult runProgram(const ProgramCall &call);

} // namespace ferry
