#include "kernels/streamtext.h"

#include <QLocale>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace ferry::kernels {

namespace {

const QString kMarkEnd = u" not kept …\n"_s;

} // namespace

StreamText::StreamText(StreamLimits limits) : m_limits(limits)
{
    m_limits.headLines = std::max<qsizetype>(m_limits.headLines, 0);
    m_limits.tailLines = std::max<qsizetype>(m_limits.tailLines, 1);
    m_limits.partChars = std::max<qsizetype>(m_limits.partChars, 1);
}

QString StreamText::cutMark(qsizetype lines)
{
    const QString number = QLocale(QLocale::English).toString(lines);
    return (lines == 1 ? u"… 1 line"_s : u"… %1 lines"_s.arg(number)) + kMarkEnd;
}

std::optional<StreamText::Cut> StreamText::findCut(QStringView text)
{
    for (qsizetype at = text.indexOf(kMarkEnd); at >= 0; at = text.indexOf(kMarkEnd, at + 1)) {
        const qsizetype start = at > 0 ? text.lastIndexOf(u'\n', at - 1) + 1 : 0;
        QStringView count = text.sliced(start, at - start);
        if (!count.startsWith(u"… "))
            continue;
        count = count.sliced(2);
        if (count.endsWith(u" lines"))
            count.chop(6);
        else if (count.endsWith(u" line"))
            count.chop(5);
        else
            continue;
        bool number = false;
        const qsizetype lines = QLocale(QLocale::English).toLongLong(count, &number);
        if (number && lines > 0)
            return Cut{start, at + kMarkEnd.size(), lines};
    }
    return std::nullopt;
}

void StreamText::append(QStringView chunk)
{
    appendToTail(chunk);
    // Complete lines move from the tail's start to the head while it has room.
    while (!m_headDone && !m_lineEnds.empty()) {
        const qsizetype length = m_lineEnds.front() - m_tailStart;
        if (m_headLines >= m_limits.headLines || m_head.size() + length > m_limits.partChars) {
            m_headDone = true;
            break;
        }
        m_head.append(QStringView(m_tail).sliced(m_tailStart - m_tailBase, length));
        m_tailStart = m_lineEnds.front();
        m_lineEnds.pop_front();
        if (++m_headLines >= m_limits.headLines)
            m_headDone = true;
    }
    if (m_headDone) { // the tail's first lines are left out
        while (qsizetype(m_lineEnds.size()) > m_limits.tailLines ||
               (!m_lineEnds.empty() && tailChars() > m_limits.partChars)) {
            m_tailStart = m_lineEnds.front();
            m_lineEnds.pop_front();
            ++m_cutLines;
        }
    }
    // What is no longer kept goes, once it is half of what is held.
    const qsizetype gone = m_tailStart - m_tailBase;
    if (gone > 4096 && gone > m_tail.size() / 2) {
        m_tail.remove(0, gone);
        m_tailBase = m_tailStart;
    }
}

void StreamText::appendToTail(QStringView chunk)
{
    qsizetype at = 0;
    while (at < chunk.size()) {
        if (m_droppingLine) { // the rest of an overlong line
            const qsizetype newline = chunk.indexOf(u'\n', at);
            if (newline < 0)
                return;
            at = newline;
            m_droppingLine = false;
        }
        const qsizetype newline = chunk.indexOf(u'\n', at);
        const qsizetype end = newline < 0 ? chunk.size() : newline + 1;
        const qsizetype lineStart = m_lineEnds.empty() ? m_tailStart : m_lineEnds.back();
        const QStringView piece = chunk.sliced(at, end - at);
        m_tail.append(piece);
        at = end;
        if (!lineFits(m_tail, lineStart - m_tailBase, m_limits.partChars, piece.contains(u'\r')))
            m_droppingLine = newline < 0;
        if (newline >= 0)
            m_lineEnds.push_back(m_tailBase + m_tail.size());
    }
}

// Shortens the last line of `text` (from `lineStart`): a long one redrawn with '\r' (`redrawn`:
// the text just added has one) to its last drawing, one longer than `budget` (its newline
// counted) to its first characters and kCutChar, its newline kept. False when it was cut.
bool StreamText::lineFits(QString &text, qsizetype lineStart, qsizetype budget, bool redrawn)
{
    const bool complete = text.endsWith(u'\n');
    qsizetype length = text.size() - lineStart - (complete ? 1 : 0);
    if (redrawn && length > kRedrawnLine) {
        // The last '\r' that has a drawing after it (not one of a "\r\n", nor one at the end).
        const QStringView line = QStringView(text).sliced(lineStart, length);
        qsizetype redraw = line.lastIndexOf(u'\r', line.size() - 2);
        while (redraw > 0 && line[redraw + 1] == u'\n')
            redraw = line.lastIndexOf(u'\r', redraw - 1);
        if (redraw > 0 && !line.first(redraw).contains(QChar(0x1b))) {
            text.remove(lineStart, redraw);
            length -= redraw;
        }
    }
    if (length + (complete ? 1 : 0) <= budget)
        return true;
    const qsizetype room = std::max<qsizetype>(budget - 2, 1); // and its cut character and newline
    text.remove(lineStart + room, length - room);
    text.insert(lineStart + room, QChar(kCutChar));
    return false;
}

QString StreamText::text() const
{
    const QStringView tail = QStringView(m_tail).sliced(m_tailStart - m_tailBase);
    if (m_cutLines == 0)
        return m_head + tail;
    return m_head + cutMark(m_cutLines) + tail;
}

} // namespace ferry::kernels
