// A data channel's fingerprint (core/snapshot/datafingerprint.h) on real files: a copy of the
// same data fingerprints the same whatever its folder or times; a byte changed at either end, a
// file added, renamed or resized changes it; a byte changed between the blocks it reads of a
// large file is missed (documented in docs/snapshots.md). A run spec keeps it, and a spec.json
// of an earlier Ferry (no "data") still reads.
#include "run/runspec.h"
#include "snapshot/datafingerprint.h"
#include "support/files.h"
#include "support/testmain.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace ferry;

namespace {

constexpr qint64 kLarge = 1024 * 1024; // past the ends and blocks the fingerprint reads

QByteArray pattern(qint64 size, char seed)
{
    QByteArray bytes(size, Qt::Uninitialized);
    for (qint64 i = 0; i < size; ++i)
        bytes[i] = static_cast<char>((i * 31 + seed) & 0xff);
    return bytes;
}

void writeData(const QString &root)
{
    test::writeFileOrStop(root + u"/labels.csv"_s, "a,b\n1,2\n");
    test::writeFileOrStop(root + u"/images/cat/1.bin"_s, pattern(5000, 'c'));
    test::writeFileOrStop(root + u"/images/dog/1.bin"_s, pattern(kLarge, 'd'));
}

// Changes one byte of `path` at `offset`, keeping its size.
void poke(const QString &path, qint64 offset)
{
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadWrite));
    QVERIFY(file.seek(offset));
    char c = 0;
    QVERIFY(file.getChar(&c));
    QVERIFY(file.seek(offset));
    QVERIFY(file.putChar(static_cast<char>(c ^ 0x5a)));
}

snapshot::DataFingerprint fingerprint(const QString &path)
{
    return snapshot::fingerprintData(u"training"_s, path);
}

} // namespace

class TestDataFingerprint : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void aCopyFingerprintsTheSame()
    {
        QTemporaryDir dir;
        writeData(dir.filePath(u"a"_s));
        writeData(dir.filePath(u"b"_s)); // written later: other times, the same bytes
        const auto a = fingerprint(dir.filePath(u"a"_s)), b = fingerprint(dir.filePath(u"b"_s));
        QVERIFY(a.error.isEmpty());
        QCOMPARE(a.files, 3);
        QCOMPARE(a.bytes, 8 + 5000 + kLarge);
        QVERIFY(a.fingerprint.startsWith(u"fp1:"_s));
        QCOMPARE(a.fingerprint.size(), 4 + 64);
        QCOMPARE(b.fingerprint, a.fingerprint);
        QVERIFY(a.sameData(b));
    }

    void whatChangesTheFingerprint_data()
    {
        QTest::addColumn<QString>("change");
        QTest::newRow("first byte of a large file") << u"head"_s;
        QTest::newRow("last byte of a large file") << u"tail"_s;
        QTest::newRow("a byte of a small file") << u"small"_s;
        QTest::newRow("a file added") << u"add"_s;
        QTest::newRow("a file renamed") << u"rename"_s;
        QTest::newRow("a file grown") << u"grow"_s;
        QTest::newRow("a hidden file added") << u"hidden"_s;
    }

    void whatChangesTheFingerprint()
    {
        QFETCH(QString, change);
        QTemporaryDir dir;
        const QString root = dir.filePath(u"data"_s);
        writeData(root);
        const auto before = fingerprint(root);
        const QString large = root + u"/images/dog/1.bin"_s;
        if (change == u"head"_s)
            poke(large, 0);
        else if (change == u"tail"_s)
            poke(large, kLarge - 1);
        else if (change == u"small"_s)
            poke(root + u"/images/cat/1.bin"_s, 2500);
        else if (change == u"add"_s)
            test::writeFileOrStop(root + u"/images/cat/2.bin"_s, "x");
        else if (change == u"rename"_s)
            QVERIFY(QFile::rename(root + u"/labels.csv"_s, root + u"/labels2.csv"_s));
        else if (change == u"grow"_s)
            test::writeFileOrStop(root + u"/labels.csv"_s, "a,b\n1,2\n3,4\n");
        else if (change == u"hidden"_s)
            test::writeFileOrStop(root + u"/.extra"_s, "x");
        const auto after = fingerprint(root);
        QVERIFY(after.fingerprint != before.fingerprint);
        QVERIFY(!after.sameData(before));
    }

    // What it can miss, as documented: a change of the same size between the blocks it reads.
    void aChangeBetweenTheBlocksItReadsIsMissed()
    {
        QTemporaryDir dir;
        const QString root = dir.filePath(u"data"_s);
        writeData(root);
        const auto before = fingerprint(root);
        // Blocks of 4 KiB at 64 KiB + i * (middle - 4 KiB) / 15: just before the second one is unread.
        const qint64 middle = kLarge - 2 * 64 * 1024;
        poke(root + u"/images/dog/1.bin"_s, 64 * 1024 + (middle - 4096) / 15 - 10);
        QCOMPARE(fingerprint(root).fingerprint, before.fingerprint);
    }

    void aFileIsOneFile()
    {
        QTemporaryDir dir;
        test::writeFileOrStop(dir.filePath(u"train.csv"_s), "x,y\n1,2\n");
        const auto d = fingerprint(dir.filePath(u"train.csv"_s));
        QCOMPARE(d.files, 1);
        QCOMPARE(d.bytes, 8);
        QVERIFY(!d.fingerprint.isEmpty());
    }

    void aMissingPathIsSaid()
    {
        QTemporaryDir dir;
        const auto d = fingerprint(dir.filePath(u"gone"_s));
        QVERIFY(d.fingerprint.isEmpty());
        QVERIFY(d.error.contains(u"does not exist"_s));
        QVERIFY(!d.sameData(d)); // nothing known is never "the same"
    }

    void theRunSpecKeepsItAndAnOlderSpecStillReads()
    {
        QTemporaryDir dir;
        writeData(dir.filePath(u"data"_s));
        run::RunSpec spec;
        spec.id = u"r1"_s;
        spec.script = u"train.py"_s;
        spec.channels << run::DataChannel{u"training"_s, dir.filePath(u"data"_s)};
        spec.data = run::fingerprintChannels(spec.channels);
        QCOMPARE(spec.data.size(), 1);
        const auto back = run::RunSpec::fromJson(spec.toJson());
        QVERIFY(back);
        QCOMPARE(back->data, spec.data);
        QJsonObject old = spec.toJson();
        old.remove(u"data"_s); // as an earlier Ferry wrote it
        const auto older = run::RunSpec::fromJson(old);
        QVERIFY(older);
        QVERIFY(older->data.isEmpty());
        QCOMPARE(older->channels, spec.channels);
    }
};

FERRY_TEST_APPLESS_MAIN(TestDataFingerprint)
#include "tst_datafingerprint.moc"
