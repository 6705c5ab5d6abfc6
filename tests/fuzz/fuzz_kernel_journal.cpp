// Fuzz target for a kernel's journal as Ferry reads it (kernels/journal.h): the input is a journal
// file's bytes, fed whole and in pieces. Beyond not crashing: both give the same records, every
// record ends where the next starts, and re-encoding the records reproduces the bytes read.
#include "kernels/journal.h"

#include <QByteArray>
#include <QList>

#include <cstddef>
#include <cstdint>
#include <cstdlib>

namespace {

QList<ferry::kernels::JournalRecord> readAll(const QByteArray &bytes, qsizetype piece, qint64 *end)
{
    ferry::kernels::JournalReader reader;
    QList<ferry::kernels::JournalRecord> records;
    for (qsizetype at = 0; at < bytes.size(); at += piece) {
        reader.feed(QByteArrayView(bytes).sliced(at, std::min(piece, bytes.size() - at)));
        while (auto record = reader.next())
            records << *record;
    }
    *end = reader.offset();
    return records;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    using namespace ferry::kernels;
    QByteArray input(kJournalMagic);
    input.append(reinterpret_cast<const char *>(data), qsizetype(size));
    qint64 wholeEnd = 0;
    qint64 piecesEnd = 0;
    const auto whole = readAll(input, std::max<qsizetype>(1, input.size()), &wholeEnd);
    const auto pieces = readAll(input, 7, &piecesEnd);
    if (whole.size() != pieces.size() || wholeEnd != piecesEnd)
        std::abort();
    QByteArray again(kJournalMagic);
    for (qsizetype i = 0; i < whole.size(); ++i) {
        if (whole[i].frames != pieces[i].frames || whole[i].endOffset != pieces[i].endOffset)
            std::abort();
        again += journalRecordBytes(whole[i].frames);
        if (again.size() != whole[i].endOffset)
            std::abort();
    }
    if (input.left(again.size()) != again)
        std::abort();
    const QByteArray key = "0123456789abcdef0123456789abcdef";
    for (const JournalRecord &record : whole)
        (void)messageOf(record, key);
    return 0;
}
