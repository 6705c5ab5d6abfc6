// The kernel's journal: every iopub message in order, as the keeper (keeper.py) appends it;
// read here, incrementally, a record cut short ending what is read.
#pragma once

#include "common/error.h"
#include "kernels/jupytermessage.h"

#include <QByteArray>
#include <QList>
#include <QString>

#include <optional>

namespace ferry::kernels {

// The format (docs/kernels.md): the 8 bytes kJournalMagic, then records, each a u32 little-endian
// length and that many bytes: a u32 frame count, then each frame as a u32 length and its bytes.
// The frames are a signed message after "<IDS|MSG>": signature, the four JSON frames, buffers.
inline constexpr char kJournalMagic[] = "FERRYJ1\n";
inline constexpr qint64 kJournalMagicSize = 8;
// A record longer than this is no record (a damaged length): reading stops there.
inline constexpr quint32 kMaxJournalRecord = 512u * 1024 * 1024;

// The msg_type of the keeper's own records among the kernel's messages (keeper.py's
// KEEPER_MSG_TYPE), whose content says their event: "started", "restarted", "reconnected",
// "ended" (docs/kernels.md).
inline constexpr QLatin1StringView kKeeperMessageType("ferry_keeper");
// The keeper's event a journal message carries; empty for a kernel's own message.
inline QString keeperEvent(const JupyterMessage &message)
{
    return message.type() == kKeeperMessageType ? message.content.value(QStringLiteral("event")).toString() : QString();
}

// One record: its frames (signature first) and where it ends in the file.
struct JournalRecord {
    QList<QByteArray> frames;
    qint64 endOffset = 0;
};

// The bytes of one record for `frames` (a writer's half, for tests and for Ferry's own events).
QByteArray journalRecordBytes(const QList<QByteArray> &frames);
// The message a record holds, its signature checked under `key` (JupyterMessage's rules).
Expected<JupyterMessage> messageOf(const JournalRecord &record, const QByteArray &key);

// Reads records from bytes fed in file order from `startOffset` (0: the file's first byte, so
// the magic is checked; a later offset must be a record's start). Memory holds only the bytes
// of the record not yet complete.
class JournalReader {
public:
    explicit JournalReader(qint64 startOffset = 0) : m_offset(startOffset) {}

    void feed(QByteArrayView bytes);
    // The next complete record, or nullopt when more bytes are needed (or after an error).
    std::optional<JournalRecord> next();
    // Set once the bytes cannot be a journal (wrong magic, a length past kMaxJournalRecord, a
    // frame running past its record); nothing after it is read.
    const std::optional<Error> &error() const { return m_error; }
    // The file offset just after the last complete record returned.
    qint64 offset() const { return m_offset; }
    // Bytes held that do not make a whole record yet (at the end of a file: a record cut short).
    qsizetype pendingBytes() const { return m_buffer.size() - m_pos; }

private:
    QByteArray m_buffer;
    qsizetype m_pos = 0;
    qint64 m_offset = 0;
    std::optional<Error> m_error;
};

// The journal's messages from `offset` to its end (or to a record cut short), each checked:
// `messages` get those whose signature holds, `dropped` counts the others. An Error when the
// file cannot be read or is not a journal.
struct JournalContents {
    QList<JupyterMessage> messages;
    qint64 dropped = 0;
    qint64 endOffset = 0;  // where the next record starts
    bool cutShort = false; // bytes after the last whole record
};
Expected<JournalContents> readJournal(const QString &path, const QByteArray &key, qint64 offset = 0);

// Where the record after the journal's last whole record would start (reading lengths only):
// where a client that wants only what comes next begins.
Expected<qint64> journalEnd(const QString &path);

} // namespace ferry::kernels
