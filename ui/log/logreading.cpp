#include "ui/log/logview.h"

#include "metrics/terminaltext.h"

// LogView's file side: slices of a log read by byte offset off the GUI thread (the tail, what
// comes before, what was appended), whole lines only, each line capped for display.
#include <QFile>
#include <QFileInfo>
#include <QLocale>

#include <algorithm>
#include <functional>
#include <limits>

using namespace Qt::StringLiterals;

namespace ferry::ui {

namespace {

constexpr qint64 kBlock = 64 * 1024;
// How far back the start of a line is looked for when a chunk holds no line start at all.
constexpr qint64 kLineStartScan = 8 * 1024 * 1024;

Error readError(const QString &path, const QFile &file)
{
    return Error{QObject::tr("Cannot read the log: %1").arg(file.errorString()), path, 0, 0, {}};
}

// The offset just past the last '\n' in [from, to), or -1 when there is none.
qint64 lastNewlineBefore(QFile &file, qint64 from, qint64 to)
{
    QByteArray buffer;
    for (qint64 end = to; end > from;) {
        const qint64 begin = std::max(from, end - kBlock);
        if (!file.seek(begin))
            return -1;
        buffer = file.read(end - begin);
        const qsizetype at = buffer.lastIndexOf('\n');
        if (at >= 0)
            return begin + at + 1;
        end = begin;
    }
    return -1;
}

// The first offset in [windowStart, windowEnd) where a line starts, counting windowStart when
// the byte before it is a newline. When the window holds no line start (one long line), the
// start of the line it is part of, looked for at most kLineStartScan back.
qint64 firstLineStart(QFile &file, qint64 windowStart, qint64 windowEnd)
{
    if (windowStart <= 0)
        return 0;
    if (!file.seek(windowStart - 1))
        return windowStart;
    const QByteArray window = file.read(windowEnd - windowStart); // bytes [windowStart - 1, windowEnd - 1)
    const qsizetype at = window.indexOf('\n');
    if (at >= 0)
        return windowStart + at;
    const qint64 floor = std::max<qint64>(0, windowStart - 1 - kLineStartScan);
    const qint64 start = lastNewlineBefore(file, floor, windowStart - 1);
    if (start >= 0)
        return start;
    return floor; // the file's start, or a line too long to look back through: shown from here
}

// Reads [from, to) into `slice` line by line, keeping at most kMaxLineBytes of each line in
// memory. Stops after a complete line once `budget` bytes are done. What follows the last
// newline, when `to` is reached, is the partial line.
bool readLines(QFile &file, qint64 from, qint64 to, qint64 budget, LogSlice &slice)
{
    slice.begin = from;
    slice.end = from;
    if (!file.seek(from))
        return false;
    QByteArray line;
    qint64 lineLength = 0;
    qint64 pos = from;
    QByteArray buffer(kBlock, Qt::Uninitialized);
    // Keep a few bytes beyond the cut: the cut backs off to a whole UTF-8 sequence.
    const qint64 keep = LogView::kMaxLineBytes + 4;
    while (pos < to) {
        const qint64 n = file.read(buffer.data(), std::min(kBlock, to - pos));
        if (n <= 0)
            return n == 0;
        const QByteArrayView bytes(buffer.constData(), n);
        qsizetype i = 0;
        while (i < n) {
            const qsizetype newline = bytes.indexOf('\n', i);
            const qsizetype stop = newline < 0 ? n : newline;
            if (line.size() < keep)
                line.append(bytes.sliced(i, std::min<qsizetype>(stop - i, keep - line.size())));
            lineLength += stop - i;
            if (newline < 0)
                break;
            slice.text += LogView::displayLine(line, lineLength);
            slice.text += u'\n';
            ++slice.lines;
            slice.end = pos + newline + 1;
            line.clear();
            lineLength = 0;
            i = newline + 1;
            if (slice.end - from >= budget)
                return true;
        }
        pos += n;
    }
    if (lineLength > 0)
        slice.partial = LogView::displayLine(line, lineLength);
    return true;
}

LogSlice readRange(const QString &path, const std::function<bool(QFile &, LogSlice &)> &read)
{
    LogSlice slice;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        slice.missing = !file.exists();
        if (!slice.missing)
            slice.read = readError(path, file);
        return slice;
    }
    slice.fileSize = file.size();
    if (!read(file, slice))
        slice.read = readError(path, file);
    return slice;
}

} // namespace

QString LogView::displayLine(QByteArrayView bytes, qint64 fullLength)
{
    qsizetype length = bytes.size();
    const bool cut = fullLength > kMaxLineBytes;
    if (cut) {
        length = std::min<qsizetype>(length, kMaxLineBytes);
        // Back off to the start of a UTF-8 sequence, so the cut leaves no broken character.
        for (int i = 0; i < 3 && length > 0 && (static_cast<uchar>(bytes[length]) & 0xC0) == 0x80; ++i)
            --length;
    }
    // A progress bar's last redraw, escape sequences dropped: one rule with `ferry runs attach`.
    QString text = run::terminalText(bytes.first(length), !cut);
    if (cut)
        text += tr(" … [line cut: %1 bytes in all]").arg(fullLength);
    return text;
}

LogSlice LogView::readTail(const QString &path, qint64 chunkBytes)
{
    return readRange(path, [chunkBytes](QFile &file, LogSlice &slice) {
        const qint64 size = slice.fileSize;
        const qint64 start = firstLineStart(file, std::max<qint64>(0, size - chunkBytes), size);
        return readLines(file, start, size, std::numeric_limits<qint64>::max(), slice);
    });
}

LogSlice LogView::readBefore(const QString &path, qint64 before, qint64 chunkBytes)
{
    return readRange(path, [before, chunkBytes](QFile &file, LogSlice &slice) {
        const qint64 end = std::min(before, slice.fileSize);
        const qint64 start = firstLineStart(file, std::max<qint64>(0, end - chunkBytes), end);
        const bool ok = readLines(file, start, end, std::numeric_limits<qint64>::max(), slice);
        // `before` starts a line, so nothing is left over; a cut-off first line is not partial.
        slice.partial.clear();
        return ok;
    });
}

LogSlice LogView::readFrom(const QString &path, qint64 offset, qint64 maxBytes)
{
    return readRange(path, [offset, maxBytes](QFile &file, LogSlice &slice) {
        if (offset > slice.fileSize) {
            slice.begin = slice.end = offset;
            return true; // shorter than what was shown: the caller reopens
        }
        return readLines(file, offset, slice.fileSize, maxBytes, slice);
    });
}

} // namespace ferry::ui
