// The kernel's journal as Ferry reads it (core/kernels/journal.h): records read whole or fed a
// byte at a time, a record cut short (the keeper killed while writing) ending what is read, a
// damaged length or a file that is no journal refused, a record whose signature does not hold
// dropped and counted, and where a client that wants only what comes next begins.
#include "kernels/journal.h"

#include "support/testmain.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace ferry::kernels;

namespace {

const QByteArray kKey = "7f3c9a0b2d4e6f8a1b3c5d7e9f0a2b4c";

// A signed stream message's frames after <IDS|MSG>, as the keeper journals them.
QList<QByteArray> streamFrames(const QString &text, const QByteArray &key = kKey)
{
    JupyterMessage message = newMessage(u"stream"_s, u"s"_s, {{u"name"_s, u"stdout"_s}, {u"text"_s, text}});
    QList<QByteArray> frames = toFrames(message, key);
    return frames.mid(frames.indexOf("<IDS|MSG>") + 1);
}

QByteArray journalOf(const QList<QList<QByteArray>> &records)
{
    QByteArray bytes(kJournalMagic);
    for (const auto &frames : records)
        bytes += journalRecordBytes(frames);
    return bytes;
}

} // namespace

class TestJournal : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void readsWholeAndByteByByte()
    {
        const QByteArray bytes = journalOf({streamFrames(u"a\n"_s), streamFrames(u"b\n"_s), {"x", "", "y"}});
        JournalReader whole;
        whole.feed(bytes);
        QList<JournalRecord> records;
        while (auto record = whole.next())
            records << *record;
        QCOMPARE(records.size(), 3);
        QCOMPARE(records.last().frames, (QList<QByteArray>{"x", "", "y"}));
        QCOMPARE(records.last().endOffset, bytes.size());
        JournalReader bytewise;
        int count = 0;
        for (const char c : bytes) {
            bytewise.feed(QByteArrayView(&c, 1));
            while (auto record = bytewise.next()) {
                QCOMPARE(record->frames, records[count].frames);
                QCOMPARE(record->endOffset, records[count].endOffset);
                ++count;
            }
        }
        QCOMPARE(count, 3);
        QVERIFY(!bytewise.error());
    }

    void aRecordCutShortEndsTheJournal()
    {
        const QByteArray bytes = journalOf({streamFrames(u"first\n"_s), streamFrames(u"second\n"_s)});
        const qsizetype firstEnd = kJournalMagicSize + journalRecordBytes(streamFrames(u"first\n"_s)).size();
        QTemporaryDir dir;
        const QString path = dir.filePath(u"journal"_s);
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(bytes.left(bytes.size() - 5)); // killed while writing the second
        file.close();
        const auto contents = readJournal(path, kKey);
        QVERIFY(contents);
        QCOMPARE(contents->messages.size(), 1);
        QCOMPARE(contents->messages[0].content.value(u"text"_s).toString(), u"first\n"_s);
        QVERIFY(contents->cutShort);
        QCOMPARE(contents->endOffset, firstEnd);
        QCOMPARE(*journalEnd(path), firstEnd);
        // Reading on from where the first ended gives nothing more until the record is whole.
        QCOMPARE(readJournal(path, kKey, firstEnd)->messages.size(), 0);
    }

    void refusesWhatIsNoJournal()
    {
        JournalReader notOne;
        notOne.feed("FERRYJ2\nxxxx");
        QVERIFY(!notOne.next());
        QVERIFY(notOne.error());
        QByteArray damaged(kJournalMagic);
        damaged += QByteArray::fromHex("ffffffff") + QByteArray(64, 'x'); // a length past any record
        JournalReader reader;
        reader.feed(damaged);
        QVERIFY(!reader.next());
        QVERIFY2(reader.error() && reader.error()->message.contains(u"damaged"_s), "a damaged length is named");
        QByteArray frameTooLong(kJournalMagic);
        frameTooLong += QByteArray::fromHex("0c000000") + QByteArray::fromHex("01000000") +
                        QByteArray::fromHex("ff000000") + "abcd";
        JournalReader frames;
        frames.feed(frameTooLong);
        QVERIFY(!frames.next());
        QVERIFY(frames.error());
    }

    // Found by fuzz_kernel_journal: a record whose frames do not fill it (0 frames in 8 bytes) was
    // read as a record with no frames; its leftover bytes are damage.
    void bytesAfterTheFramesAreDamage()
    {
        QByteArray bytes(kJournalMagic);
        bytes += QByteArray::fromHex("08000000"
                                     "00000000"
                                     "00000000");
        JournalReader reader;
        reader.feed(bytes);
        QVERIFY(!reader.next());
        QVERIFY2(reader.error() && reader.error()->message.contains(u"after its frames"_s), "leftover bytes are named");
    }

    void aForgedRecordIsDroppedAndCounted()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(u"journal"_s);
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(journalOf(
            {streamFrames(u"ok\n"_s), streamFrames(u"forged\n"_s, "another key"), streamFrames(u"ok too\n"_s)}));
        file.close();
        const auto contents = readJournal(path, kKey);
        QVERIFY(contents);
        QCOMPARE(contents->messages.size(), 2);
        QCOMPARE(contents->dropped, 1);
        QCOMPARE(contents->messages[1].content.value(u"text"_s).toString(), u"ok too\n"_s);
        QVERIFY(!contents->cutShort);
    }
};

FERRY_TEST_GUILESS_MAIN(TestJournal)
#include "tst_journal.moc"
