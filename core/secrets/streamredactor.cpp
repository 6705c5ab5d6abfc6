#include "secrets/streamredactor.h"

#include <algorithm>

namespace ferry::secrets {

StreamRedactor::StreamRedactor(Redactor redactor, qsizetype holdLimit)
    : m_redactor(std::move(redactor)), m_holdLimit(holdLimit), m_keep(std::max<qsizetype>(0, m_redactor.longest() - 1))
{
}

QByteArray StreamRedactor::feed(const QByteArray &bytes)
{
    if (m_redactor.isEmpty())
        return bytes;
    const qsizetype newline = bytes.lastIndexOf('\n');
    if (newline < 0) {
        m_held += bytes;
        return m_held.size() > m_holdLimit ? releaseUpTo(m_keep) : QByteArray();
    }
    // Held bytes + everything up to the last newline are whole lines.
    QByteArray lines = m_held;
    lines.append(bytes.constData(), newline + 1);
    m_held = bytes.mid(newline + 1);
    QByteArray out = m_redactor.redact(lines);
    if (m_held.size() > m_holdLimit)
        out += releaseUpTo(m_keep);
    return out;
}

QByteArray StreamRedactor::flushPartial()
{
    return m_held.size() > m_keep ? releaseUpTo(m_keep) : QByteArray();
}

QByteArray StreamRedactor::finish()
{
    return releaseUpTo(0);
}

// Redacts what is held and releases all but its last `keep` bytes. The kept tail may hold the
// start of an occurrence that the next read completes; anything before it cannot (an
// occurrence is at most keep + 1 bytes long), so nothing secret is cut in two.
QByteArray StreamRedactor::releaseUpTo(qsizetype keep)
{
    if (m_held.isEmpty())
        return {};
    const QByteArray redacted = m_redactor.redact(m_held);
    const qsizetype out = std::max<qsizetype>(0, redacted.size() - keep);
    m_held = redacted.mid(out);
    return redacted.left(out);
}

} // namespace ferry::secrets
