#include "secrets/streamredactor.h"

#include <algorithm>
#include <cstring>

namespace ferry::secrets {

StreamRedactor::StreamRedactor(Redactor redactor, qsizetype holdLimit)
    : m_redactor(std::move(redactor)), m_holdLimit(holdLimit)
{
}

qsizetype StreamRedactor::safeCut(const QByteArray &text, const QList<QByteArray> &patterns, bool wholeLines)
{
    const qsizetype size = text.size();
    qsizetype cut = size;
    // 1. The earliest suffix that is a proper prefix of a pattern.
    for (const QByteArray &p : patterns) {
        if (p.isEmpty())
            continue;
        for (qsizetype i = text.indexOf(p.front(), std::max<qsizetype>(0, size - p.size() + 1)); i >= 0 && i < cut;
             i = text.indexOf(p.front(), i + 1)) {
            if (std::memcmp(text.constData() + i, p.constData(), static_cast<size_t>(size - i)) == 0) {
                cut = i;
                break;
            }
        }
    }
    // 2 and 3, until nothing moves: a line boundary that cuts no complete occurrence.
    for (bool moved = true; moved && cut > 0;) {
        moved = false;
        if (wholeLines) {
            const qsizetype line = text.lastIndexOf('\n', cut - 1) + 1;
            if (line < cut) {
                cut = line;
                moved = true;
            }
        }
        for (const QByteArray &p : patterns) {
            if (p.isEmpty() || cut == 0)
                continue;
            const qsizetype at = text.indexOf(p, std::max<qsizetype>(0, cut - p.size() + 1));
            if (at >= 0 && at < cut) {
                cut = at;
                moved = true;
            }
        }
    }
    return cut;
}

QByteArray StreamRedactor::feed(const QByteArray &bytes)
{
    if (m_redactor.isEmpty())
        return bytes;
    m_held += bytes;
    qsizetype cut = safeCut(m_held, m_redactor.patterns(), true);
    if (m_held.size() - cut > m_holdLimit) // a very long line: it goes out without its newline
        cut = safeCut(m_held, m_redactor.patterns(), false);
    return release(cut);
}

QByteArray StreamRedactor::flushPartial()
{
    if (m_held.isEmpty())
        return {};
    return release(safeCut(m_held, m_redactor.patterns(), false));
}

QByteArray StreamRedactor::finish()
{
    return release(m_held.size());
}

QByteArray StreamRedactor::release(qsizetype cut)
{
    if (cut <= 0)
        return {};
    const QByteArray out = m_redactor.redact(m_held.left(cut));
    m_held.remove(0, cut);
    return out;
}

} // namespace ferry::secrets
