#include "kernels/journal.h"

#include "common/safefile.h"

#include <QFile>
#include <QtEndian>

using namespace Qt::StringLiterals;

namespace ferry::kernels {

namespace {

void appendU32(QByteArray &out, quint32 value)
{
    char bytes[4];
    qToLittleEndian(value, bytes);
    out.append(bytes, 4);
}

quint32 u32At(const QByteArray &bytes, qsizetype at)
{
    return qFromLittleEndian<quint32>(bytes.constData() + at);
}

} // namespace

QByteArray journalRecordBytes(const QList<QByteArray> &frames)
{
    QByteArray payload;
    appendU32(payload, quint32(frames.size()));
    for (const QByteArray &frame : frames) {
        appendU32(payload, quint32(frame.size()));
        payload.append(frame);
    }
    QByteArray record;
    record.reserve(payload.size() + 4);
    appendU32(record, quint32(payload.size()));
    record.append(payload);
    return record;
}

Expected<JupyterMessage> messageOf(const JournalRecord &record, const QByteArray &key)
{
    QList<QByteArray> frames;
    frames.reserve(record.frames.size() + 1);
    frames << QByteArrayLiteral("<IDS|MSG>");
    frames << record.frames;
    return fromFrames(frames, key);
}

void JournalReader::feed(QByteArrayView bytes)
{
    if (m_error)
        return;
    if (m_pos > 0 && m_pos >= m_buffer.size() / 2) {
        m_buffer.remove(0, m_pos);
        m_pos = 0;
    }
    m_buffer.append(bytes);
}

std::optional<JournalRecord> JournalReader::next()
{
    if (m_error)
        return std::nullopt;
    if (m_offset == 0) {
        if (m_buffer.size() - m_pos < kJournalMagicSize)
            return std::nullopt;
        if (QByteArrayView(m_buffer).sliced(m_pos, kJournalMagicSize) != QByteArrayView(kJournalMagic)) {
            m_error = Error{u"not a kernel journal (it does not start with FERRYJ1)"_s, {}, 0, 0, {}};
            return std::nullopt;
        }
        m_pos += kJournalMagicSize;
        m_offset = kJournalMagicSize;
    }
    const qsizetype available = m_buffer.size() - m_pos;
    if (available < 4)
        return std::nullopt;
    const quint32 length = u32At(m_buffer, m_pos);
    if (length > kMaxJournalRecord || length < 4) {
        m_error =
            Error{u"a record at byte %1 claims %2 bytes: the journal is damaged there"_s.arg(m_offset).arg(length),
                  {},
                  0,
                  0,
                  {}};
        return std::nullopt;
    }
    if (available < 4 + qsizetype(length))
        return std::nullopt;
    const qsizetype start = m_pos + 4;
    const qsizetype end = start + length;
    const quint32 count = u32At(m_buffer, start);
    JournalRecord record;
    qsizetype at = start + 4;
    if (count > length / 4) {
        m_error = Error{
            u"a record at byte %1 claims %2 frames in %3 bytes"_s.arg(m_offset).arg(count).arg(length), {}, 0, 0, {}};
        return std::nullopt;
    }
    record.frames.reserve(count);
    for (quint32 i = 0; i < count; ++i) {
        if (end - at < 4) {
            m_error = Error{u"a frame runs past its record at byte %1"_s.arg(m_offset), {}, 0, 0, {}};
            return std::nullopt;
        }
        const quint32 size = u32At(m_buffer, at);
        at += 4;
        if (qsizetype(size) > end - at) {
            m_error = Error{u"a frame runs past its record at byte %1"_s.arg(m_offset), {}, 0, 0, {}};
            return std::nullopt;
        }
        record.frames << m_buffer.mid(at, size);
        at += size;
    }
    if (at != end) { // the keeper writes exact records: bytes left over are damage, not data
        m_error =
            Error{u"a record at byte %1 has %2 bytes after its frames"_s.arg(m_offset).arg(end - at), {}, 0, 0, {}};
        return std::nullopt;
    }
    m_pos = end;
    m_offset += 4 + qint64(length);
    record.endOffset = m_offset;
    return record;
}

Expected<JournalContents> readJournal(const QString &path, const QByteArray &key, qint64 offset)
{
    if (entryKind(path) != EntryKind::RegularFile)
        return Error{entryKind(path) == EntryKind::Missing ? u"no journal"_s : u"the journal is not a regular file"_s,
                     path,
                     0,
                     0,
                     {}};
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return Error{u"cannot read the journal: "_s + file.errorString(), path, 0, 0, {}};
    if (offset > 0 && !file.seek(offset))
        return Error{u"cannot read the journal from byte %1"_s.arg(offset), path, 0, 0, {}};
    JournalReader reader(offset);
    JournalContents contents;
    for (;;) {
        const QByteArray chunk = file.read(4 << 20);
        reader.feed(chunk);
        while (auto record = reader.next()) {
            auto message = messageOf(*record, key);
            if (message)
                contents.messages << std::move(*message);
            else
                ++contents.dropped;
        }
        if (reader.error())
            return withContext(u"journal"_s, Error{reader.error()->message, path, 0, 0, {}});
        if (chunk.isEmpty())
            break;
    }
    contents.endOffset = reader.offset();
    contents.cutShort = reader.pendingBytes() > 0;
    return contents;
}

Expected<qint64> journalEnd(const QString &path)
{
    if (entryKind(path) != EntryKind::RegularFile)
        return Error{u"no journal"_s, path, 0, 0, {}};
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return Error{u"cannot read the journal: "_s + file.errorString(), path, 0, 0, {}};
    if (file.read(kJournalMagicSize) != QByteArrayView(kJournalMagic))
        return file.size() == 0 ? Expected<qint64>(0)
                                : Expected<qint64>(Error{u"not a kernel journal"_s, path, 0, 0, {}});
    qint64 offset = kJournalMagicSize;
    const qint64 size = file.size();
    while (size - offset >= 4) {
        char bytes[4];
        if (!file.seek(offset) || file.read(bytes, 4) != 4)
            break;
        const quint32 length = qFromLittleEndian<quint32>(bytes);
        if (length > kMaxJournalRecord || offset + 4 + qint64(length) > size)
            break;
        offset += 4 + qint64(length);
    }
    return offset;
}

} // namespace ferry::kernels
