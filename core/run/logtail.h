// Reading a run's growing log from a stored offset, complete lines only.
#pragma once

#include "common/error.h"

#include <QByteArray>
#include <QList>
#include <QString>

namespace ferry::run {

// One line of a run's log, or a piece of one too long to hold whole.
struct LogLine {
    QByteArray text;        // raw bytes (any encoding, NULs kept), without "\n" or "\r\n"
    qint64 offset = 0;      // where `text` starts in the file
    bool startsLine = true; // false: continues a line cut because it was longer than maxLineBytes
    bool endsLine = true;   // false: the line goes on in the next piece

    bool isWhole() const { return startsLine && endsLine; }
};

struct LogChunk {
    QList<LogLine> lines;
    qint64 nextOffset = 0; // store this; the next read starts here
    bool atEnd = true;     // false: stopped at maxBytes with more complete lines waiting
};

// Reads a growing log from a stored byte offset: only complete lines (a last line without
// its newline yet stays for a later call), so a line is returned exactly once across calls
// and restarts. Memory stays within maxBytes + maxLineBytes: a line longer than maxLineBytes
// comes in pieces of that size, each flagged, as soon as each piece is complete.
class LogTail {
public:
    struct Limits {
        qint64 maxBytes = 8 * 1024 * 1024;     // per call, roughly (whole lines are finished)
        qint64 maxLineBytes = 1 * 1024 * 1024; // longer lines are cut into pieces
    };

    static Expected<LogChunk> read(const QString &path, qint64 offset, Limits limits);
    static Expected<LogChunk> read(const QString &path, qint64 offset) { return read(path, offset, Limits{}); }
};

// The last `lines` lines of a log as a terminal shows them (metrics/terminaltext.h: control
// sequences dropped, a line redrawn with \r shown as it ended), read from at most the last
// `maxBytes` of the file: what a failed run said last (its traceback, argparse's complaint).
// Empty when there is no log, it is empty, or it is not a regular file (never followed).
inline constexpr qint64 kLastLogBytes = 16 * 1024;
QString lastLogLines(const QString &path, int lines, qint64 maxBytes = kLastLogBytes);

// The line being written after `offset` (where complete lines end): its last `maxBytes`, without
// a newline in them (a progress bar redrawn with '\r' until its loop ends). Empty when the log
// holds a newline after `offset` (complete lines wait to be read), holds nothing more, or is not
// a regular file.
QByteArray unfinishedLogLine(const QString &path, qint64 offset, qint64 maxBytes = 4096);

} // namespace ferry::run
