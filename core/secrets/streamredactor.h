#pragma once

#include "secrets/redactor.h"

#include <QByteArray>

namespace ferry::secrets {

// Redacts a byte stream (a script's output on its way to the run's log) that arrives in reads of
// any size. Whole lines go out as soon as their newline has come; a partial line is held back,
// so a secret split across two reads is still found. What is held stays bounded: past
// `holdLimit` bytes without a newline (or on flushPartial(), when the stream is idle) all but
// the last (longest pattern - 1) bytes go out, which can never cut through an occurrence.
class StreamRedactor {
public:
    explicit StreamRedactor(Redactor redactor, qsizetype holdLimit = 64 * 1024);

    // The bytes that may be written now.
    QByteArray feed(const QByteArray &bytes);
    // What a quiet stream may write without waiting for its newline (a progress bar).
    QByteArray flushPartial();
    // The end of the stream: everything held.
    QByteArray finish();

    qsizetype held() const { return m_held.size(); }
    const Redactor &redactor() const { return m_redactor; }

private:
    QByteArray releaseUpTo(qsizetype keep);

    Redactor m_redactor;
    qsizetype m_holdLimit;
    qsizetype m_keep; // bytes that may be the start of an occurrence
    QByteArray m_held;
};

} // namespace ferry::secrets
