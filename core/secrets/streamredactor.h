// Redacts secrets from a byte stream arriving in reads of any size, holding back only what may
// still be part of one.
#pragma once

#include "secrets/redactor.h"

#include <QByteArray>

namespace ferry::secrets {

// Redacts a byte stream (a script's output on its way to the run's log, or a run's log lines on
// their way to a window) that arrives in reads of any size, secrets with newlines (PEM keys,
// JSON service accounts) included, however the script prints them (line by line, flushed).
//
// The algorithm (the secret entry program in targets/containersecrets.cpp is a port of it to
// Python, kept the same: change both together). `held` is what has not gone out yet; after each
// read, with the patterns of the Redactor (a value and its encodings):
//  1. cut = the earliest position from which the rest of `held` is a proper prefix of a pattern
//     (the end of `held` when there is none): an occurrence not yet complete can only begin there.
//  2. Whole lines: cut moves back to just after the last newline before it (a partial line waits
//     for its newline, unless it passes `holdLimit` or the stream is quiet: flushPartial()).
//  3. cut moves back to the start of any complete occurrence that spans it, so none is cut in
//     two; 2 and 3 repeat until cut stays put.
//  4. redact(held[0, cut)) goes out, held[cut, end) stays.
// So a line goes out as soon as it cannot be part of a secret still arriving, and what is held is
// at most a line plus twice the longest pattern. Limits: an occurrence must be contiguous in the
// stream (a script that prefixes each line of a key, or prints it with "\r\n" where the value
// has "\n", is not matched as a whole; each line that is itself a pattern still is).
class StreamRedactor {
public:
    explicit StreamRedactor(Redactor redactor, qsizetype holdLimit = 64 * 1024);

    // The bytes that may be written now.
    QByteArray feed(const QByteArray &bytes);
    // What a quiet stream may write without waiting for its newline (a progress bar): all but
    // what may begin a secret.
    QByteArray flushPartial();
    // The end of the stream: everything held.
    QByteArray finish();

    qsizetype held() const { return m_held.size(); }
    const Redactor &redactor() const { return m_redactor; }

    // Step 1 to 3 above on `text`: how much of it may go out now.
    static qsizetype safeCut(const QByteArray &text, const QList<QByteArray> &patterns, bool wholeLines);

private:
    QByteArray release(qsizetype cut);

    Redactor m_redactor;
    qsizetype m_holdLimit;
    QByteArray m_held;
};

} // namespace ferry::secrets
