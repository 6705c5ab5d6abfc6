#include "run/logtail.h"

#include "common/safefile.h"
#include "metrics/terminaltext.h"

#include <QFile>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace ferry::run {

namespace {

constexpr qint64 kReadSize = 64 * 1024;

// Collects lines from consecutive reads of the file; `pending` holds the start of a line whose
// newline has not been seen yet, never more than maxLineBytes.
class LineSplitter {
public:
    LineSplitter(LogChunk &chunk, qint64 offset, bool startsLine, const LogTail::Limits &limits)
        : m_chunk(chunk), m_lineStart(offset), m_startsLine(startsLine), m_limits(limits)
    {
    }

    // Takes bytes read at file position `pos`; false once the call's budget is used.
    bool feed(QByteArrayView bytes, qint64 pos)
    {
        qsizetype from = 0;
        while (from < bytes.size()) {
            const qsizetype newline = bytes.indexOf('\n', from);
            const qsizetype end = newline < 0 ? bytes.size() : newline;
            const QByteArrayView part = bytes.sliced(from, end - from);
            if (newline >= 0 && m_pending.isEmpty() && part.size() <= m_limits.maxLineBytes) {
                add(part.toByteArray(), true); // the common case: a whole line within one read
            } else {
                m_pending.append(part);
                cutLongLine();
                if (newline >= 0) {
                    add(m_pending, true);
                    m_pending.clear();
                }
            }
            if (newline < 0)
                break;
            m_lineStart = pos + newline + 1;
            m_startsLine = true;
            from = newline + 1;
            if (m_returned >= m_limits.maxBytes)
                return false;
        }
        return m_returned < m_limits.maxBytes;
    }

    qint64 nextOffset() const { return m_lineStart; }

private:
    void add(QByteArray text, bool endsLine)
    {
        const qint64 size = text.size();
        if (endsLine && text.endsWith('\r'))
            text.chop(1);
        m_chunk.lines.append(LogLine{std::move(text), m_lineStart, m_startsLine, endsLine});
        m_returned += size + (endsLine ? 1 : 0);
    }

    // A line longer than maxLineBytes leaves in pieces, so memory stays bounded.
    void cutLongLine()
    {
        while (m_pending.size() > m_limits.maxLineBytes) {
            add(m_pending.first(m_limits.maxLineBytes), false);
            m_pending.remove(0, m_limits.maxLineBytes);
            m_lineStart += m_limits.maxLineBytes;
            m_startsLine = false;
        }
    }

    LogChunk &m_chunk;
    QByteArray m_pending;
    qint64 m_lineStart;
    bool m_startsLine;
    qint64 m_returned = 0;
    const LogTail::Limits &m_limits;
};

} // namespace

Expected<LogChunk> LogTail::read(const QString &path, qint64 offset, Limits limits)
{
    LogChunk chunk;
    chunk.nextOffset = offset;
    limits.maxLineBytes = std::max<qint64>(1, limits.maxLineBytes);
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        if (!file.exists() && offset == 0)
            return chunk; // nothing written yet
        return Error{u"cannot read the log: "_s + file.errorString(), path, 0, 0, u"check the run folder"_s};
    }
    const qint64 size = file.size(); // later growth is for the next call
    if (offset < 0 || offset > size)
        return Error{u"the log is shorter (%1 bytes) than the stored offset %2"_s.arg(size).arg(offset), path, 0, 0,
                     u"the log was replaced; re-read the run from offset 0"_s};
    bool startsLine = true;
    if (offset > 0) {
        char before = 0;
        if (!file.seek(offset - 1) || !file.getChar(&before))
            return Error{u"cannot read the log: "_s + file.errorString(), path, 0, 0, {}};
        startsLine = before == '\n';
    } else if (!file.seek(0)) {
        return Error{u"cannot read the log: "_s + file.errorString(), path, 0, 0, {}};
    }

    // Room for the lines at once (a guess of 32 bytes a line; pages never written cost nothing).
    chunk.lines.reserve(static_cast<qsizetype>(std::min(size - offset, limits.maxBytes) / 32 + 1));
    LineSplitter splitter(chunk, offset, startsLine, limits);
    QByteArray buffer(kReadSize, Qt::Uninitialized);
    qint64 pos = offset;
    bool more = true;
    while (more && pos < size) {
        const qint64 n = file.read(buffer.data(), std::min(kReadSize, size - pos));
        if (n < 0)
            return Error{u"cannot read the log: "_s + file.errorString(), path, 0, 0, {}};
        if (n == 0)
            break;
        more = splitter.feed(QByteArrayView(buffer.constData(), n), pos);
        pos += n;
    }
    chunk.nextOffset = splitter.nextOffset();
    chunk.atEnd = more && pos >= size;
    return chunk;
}

QString lastLogLines(const QString &path, int lines, qint64 maxBytes)
{
    if (lines <= 0 || entryKind(path) != EntryKind::RegularFile)
        return {};
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    const qint64 size = file.size();
    const qint64 from = std::max<qint64>(0, size - maxBytes);
    if (!file.seek(from))
        return {};
    QByteArray bytes = file.read(size - from);
    if (from > 0) { // the first line read is a piece of one: it starts after the first newline
        const qsizetype newline = bytes.indexOf('\n');
        bytes = newline < 0 ? QByteArray() : bytes.mid(newline + 1);
    }
    QStringList shown = terminalLines(bytes).split(u'\n');
    while (!shown.isEmpty() && shown.last().trimmed().isEmpty())
        shown.removeLast();
    return shown.mid(std::max<qsizetype>(0, shown.size() - lines)).join(u'\n');
}

QByteArray unfinishedLogLine(const QString &path, qint64 offset, qint64 maxBytes)
{
    if (offset < 0 || maxBytes <= 0 || entryKind(path) != EntryKind::RegularFile)
        return {};
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    const qint64 size = file.size();
    const qint64 from = std::max(offset, size - maxBytes);
    if (size <= offset || !file.seek(from))
        return {};
    const QByteArray bytes = file.read(size - from);
    return bytes.contains('\n') ? QByteArray() : bytes;
}

} // namespace ferry::run
