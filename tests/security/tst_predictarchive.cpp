// H2 (security review; issue 14, item 2): `ferry predict evil.tar.gz` writes nowhere but its
// temporary folder. Each case crafts a real model.tar.gz with libarchive, as an attacker would
// share it, runs the real `ferry predict` on it, and checks the exit code, the message, that the
// victim files are unchanged and that nothing new appeared where the archive aimed.
// Review 2026-12-06: L2, entries declaring sizes they do not hold are not allocated at that size;
// L4, only a gzip-compressed tar is read (a ZIP named .tar.gz is refused by predict and by
// `ferry runs import`); L3, entry names with terminal control sequences are echoed without them.
#include "support/cost.h"
#include "support/tarball.h"
#include "support/testenv.h"
#include "support/testmain.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <sys/resource.h>

using namespace Qt::StringLiterals;

using Entry = ferry::test::TarEntry;
Q_DECLARE_METATYPE(QList<Entry>)

namespace {

using ferry::test::writeTarGz;

// A card `ferry predict` accepts, naming `weights` as the weights file.
QByteArray card(const QString &weights)
{
    return QJsonDocument(QJsonObject{{u"format"_s, 1},
                                     {u"architecture"_s, QJsonObject{}},
                                     {u"input"_s, QJsonObject{{u"kind"_s, u"table"_s},
                                                              {u"shape"_s, QJsonArray{2}},
                                                              {u"features"_s, QJsonArray{u"a"_s, u"b"_s}}}},
                                     {u"output"_s, QJsonObject{{u"task"_s, u"classification"_s},
                                                               {u"target"_s, u"y"_s},
                                                               {u"classes"_s, QJsonArray{u"0"_s, u"1"_s}}}},
                                     {u"weights"_s, weights}})
        .toJson();
}

QByteArray contents(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray("<missing>");
}

} // namespace

class TestPredictArchive : public QObject {
    Q_OBJECT

    QTemporaryDir m_root;
    // TMPDIR is <root>/a/b/tmp, so the unpack folder is <root>/a/b/tmp/<name>, and "../../x"
    // from there is <root>/a/b/x.
    QString tmp() const { return m_root.filePath(u"a/b/tmp"_s); }
    QString climbed() const { return m_root.filePath(u"a/b/x"_s); }
    QString project() const { return m_root.filePath(u"project"_s); }
    QString absoluteVictim() const { return m_root.filePath(u"home/.bashrc"_s); }

    struct Result {
        int exitCode = -1;
        QString err;
        QByteArray rawErr;
    };

    // `ferry ARGUMENTS`, run from the project folder with TMPDIR set; `addressSpace` bytes at most
    // (RLIMIT_AS) when given.
    Result ferry(const QStringList &arguments, rlim_t addressSpace = RLIM_INFINITY) const
    {
        QProcess process;
        process.setWorkingDirectory(project());
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(u"TMPDIR"_s, tmp());
        if (ferry::test::kAddressSanitizer && addressSpace != RLIM_INFINITY) {
            // No address-space limit under ASan (its shadow needs terabytes): its allocator refuses
            // any one allocation over the limit instead, and ends the process as the limit would.
            env.insert(u"ASAN_OPTIONS"_s, env.value(u"ASAN_OPTIONS"_s) + u":max_allocation_size_mb="_s +
                                              QString::number(addressSpace >> 20));
            addressSpace = RLIM_INFINITY;
        }
        process.setProcessEnvironment(env);
        process.setChildProcessModifier([addressSpace] {
            const rlimit limit{addressSpace, addressSpace};
            ::setrlimit(RLIMIT_AS, &limit);
        });
        process.start(ferry::test::ferryBinary(), arguments);
        if (!process.waitForFinished(60000)) {
            process.kill();
            process.waitForFinished();
        }
        const QByteArray err = process.readAllStandardError();
        return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1, QString::fromUtf8(err), err};
    }

    // `ferry predict ARCHIVE --data new.csv`.
    Result predict(const QString &archivePath, rlim_t addressSpace = RLIM_INFINITY) const
    {
        return ferry({u"predict"_s, archivePath, u"--data"_s, u"new.csv"_s}, addressSpace);
    }

    // Nothing was left in the temporary folder, and no victim changed.
    void nothingWritten() const
    {
        QCOMPARE(contents(climbed()), QByteArray("the user's x\n"));
        QCOMPARE(contents(absoluteVictim()), QByteArray("export PATH=/usr/bin\n"));
        QCOMPARE(QDir(tmp()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden), QStringList());
    }

    static bool write(const QString &path, const QByteArray &bytes)
    {
        QDir().mkpath(QFileInfo(path).absolutePath());
        QFile f(path);
        return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(bytes) == bytes.size();
    }

private Q_SLOTS:
    void init()
    {
        QVERIFY(QDir().mkpath(tmp()));
        QVERIFY(write(climbed(), "the user's x\n"));
        QVERIFY(write(project() + u"/train.py"_s, "print('the user script')\n"));
        QVERIFY(write(project() + u"/new.csv"_s, "a,b\n1,2\n"));
        QVERIFY(write(absoluteVictim(), "export PATH=/usr/bin\n"));
    }

    void refusedBeforeAnythingIsWritten_data()
    {
        QTest::addColumn<QList<Entry>>("entries");
        QTest::addColumn<QString>("message");
        QTest::addColumn<QString>("target"); // where the attack aimed (the file must not change or appear)

        const QByteArray evil = "import os; os.system('echo owned')\n";
        const QString newTarget = m_root.filePath(u"a/b/planted"_s);
        QTest::newRow("weights ../../x") << QList<Entry>{{"model.json", card(u"../../x"_s)}, {"../../x", evil}}
                                         << u"'weights' in model.json must be a file name in the model folder"_s
                                         << climbed();
        QTest::newRow("weights ../../planted (a new file)")
            << QList<Entry>{{"model.json", card(u"../../planted"_s)}, {"../../planted", evil}}
            << u"not '../../planted'"_s << newTarget;
        QTest::newRow("weights absolute")
            << QList<Entry>{{"model.json", card(absoluteVictim())}, {QFile::encodeName(absoluteVictim()), evil}}
            << u"'weights' in model.json must be a file name"_s << absoluteVictim();
        QTest::newRow("weights /proc/self/cwd/train.py")
            << QList<Entry>{{"model.json", card(u"/proc/self/cwd/train.py"_s)}, {"/proc/self/cwd/train.py", evil}}
            << u"not '/proc/self/cwd/train.py'"_s << project() + u"/train.py"_s;
        QTest::newRow("weights nested ..")
            << QList<Entry>{{"model.json", card(u"sub/../../../x"_s)}, {"sub/../../../x", evil}}
            << u"'weights' in model.json"_s << climbed();
        // The card is fine; an entry named to climb out makes the whole archive refused.
        QTest::newRow("entry named with ..")
            << QList<Entry>{{"../../x", evil}, {"model.json", card(u"model.pt"_s)}, {"model.pt", "weights"}}
            << u"entry named '../../x', which leads out of its folder"_s << climbed();
        QTest::newRow("absolute entry") << QList<Entry>{{QFile::encodeName(absoluteVictim()), evil},
                                                        {"model.json", card(u"model.pt"_s)}}
                                        << u"leads out of its folder"_s << absoluteVictim();
        // Links are never followed on read: a link at the weights' name is refused, not read through.
        QTest::newRow("weights a symlink")
            << QList<Entry>{{"model.json", card(u"model.pt"_s)},
                            {"model.pt", {}, Entry::Symlink, QFile::encodeName(climbed())}}
            << u"'model.pt' in the archive is a link or a folder, not a file"_s << climbed();
        QTest::newRow("weights a hard link")
            << QList<Entry>{{"model.json", card(u"model.pt"_s)}, {"model.pt", {}, Entry::Hardlink, "model.json"}}
            << u"'model.pt' in the archive is a link or a folder, not a file"_s << climbed();
        QTest::newRow("model.json a symlink")
            << QList<Entry>{{"model.json", {}, Entry::Symlink, QFile::encodeName(climbed())}}
            << u"'model.json' in the archive is a link"_s << climbed();
    }

    void refusedBeforeAnythingIsWritten()
    {
        QFETCH(QList<Entry>, entries);
        QFETCH(QString, message);
        QFETCH(QString, target);
        const QString archivePath = m_root.filePath(u"downloads/evil.tar.gz"_s);
        QVERIFY(QDir().mkpath(QFileInfo(archivePath).absolutePath()));
        QFile::remove(archivePath);
        QVERIFY(writeTarGz(archivePath, entries));
        const QByteArray before = contents(target);

        const Result r = predict(archivePath);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
        QVERIFY2(r.err.contains(archivePath), qPrintable(r.err)); // the archive is named
        // Nothing was written where the archive aimed, nor anywhere else around.
        QCOMPARE(contents(target), before);
        QCOMPARE(contents(climbed()), QByteArray("the user's x\n"));
        QCOMPARE(contents(absoluteVictim()), QByteArray("export PATH=/usr/bin\n"));
        QCOMPARE(contents(project() + u"/train.py"_s), QByteArray("print('the user script')\n"));
        QCOMPARE(QDir(m_root.filePath(u"a/b"_s)).entryList(QDir::AllEntries | QDir::NoDotAndDotDot),
                 (QStringList{u"tmp"_s, u"x"_s}));
        QCOMPARE(QDir(project()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot),
                 (QStringList{u"new.csv"_s, u"train.py"_s}));
        QCOMPARE(QDir(tmp()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden), QStringList());
    }

    // The same check lets a well-formed archive through: predict gets past unpacking (and fails
    // later, at the data or the trainer, never at the archive).
    void aWellFormedArchiveIsUnpacked()
    {
        const QString archivePath = m_root.filePath(u"downloads/good.tar.gz"_s);
        QVERIFY(QDir().mkpath(QFileInfo(archivePath).absolutePath()));
        QVERIFY(writeTarGz(archivePath, {{"model.json", card(u"model.pt"_s)}, {"model.pt", "weights"}}));
        const Result r = predict(archivePath);
        QCOMPARE(r.exitCode, 1); // no crash: the weights are not real ones
        QVERIFY2(!r.err.contains(u"refused"_s) && !r.err.contains(u"cannot read model.json"_s) &&
                     !r.err.contains(u"must be a file name"_s) && !r.err.contains(u"already exists"_s),
                 qPrintable(r.err));
        QCOMPARE(contents(climbed()), QByteArray("the user's x\n"));
    }

    // L2: entries were allocated at the size their header declares (up to 64 MiB for model.json,
    // 4 GiB for the weights) before a byte was read. A weights entry declaring almost 4 GiB that
    // holds 10 bytes, read with 1 GiB of address space: the allocation alone would fail (bad_alloc,
    // the process dies); now predict reads what is there and says the archive is damaged.
    void declaredSizesAreNotAllocated()
    {
        const QByteArray cardText = card(u"model.pt"_s);
        const QString lying = m_root.filePath(u"downloads/lying.tar.gz"_s);
        QVERIFY(QDir().mkpath(QFileInfo(lying).absolutePath()));
        QVERIFY(ferry::test::writeGzip(
            lying, ferry::test::ustarHeader("model.json", cardText.size()) + ferry::test::tarBlocks(cardText) +
                       ferry::test::ustarHeader("model.pt", (qint64(4) << 30) - 512) + "0123456789"));
        const Result r = predict(lying, rlim_t(1) << 30);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(u"damaged archive"_s) && r.err.contains(lying), qPrintable(r.err));
        nothingWritten();

        // The card: about 1 MiB at most, refused by its header before anything is read.
        const QString bigCard = m_root.filePath(u"downloads/big-card.tar.gz"_s);
        QVERIFY(ferry::test::writeGzip(bigCard, ferry::test::ustarHeader("model.json", 8 << 20) + "{}"));
        const Result card = predict(bigCard, rlim_t(1) << 30);
        QCOMPARE(card.exitCode, 1);
        QVERIFY2(card.err.contains(u"'model.json' is too large to read (8388608 bytes, at most 1048576)"_s),
                 qPrintable(card.err));
        nothingWritten();
    }

    // L4: every libarchive format was enabled: a ZIP named .tar.gz was read as a model and imported
    // as a run bundle, and the RAR, 7-Zip, ISO and CAB parsers were within reach of a shared file.
    void onlyAGzipCompressedTarIsRead()
    {
        const QString model = m_root.filePath(u"downloads/zip-model.tar.gz"_s);
        QVERIFY(QDir().mkpath(QFileInfo(model).absolutePath()));
        QVERIFY(ferry::test::writeZip(model, {{"model.json", card(u"model.pt"_s)}, {"model.pt", "weights"}}));
        const Result predicted = predict(model);
        QCOMPARE(predicted.exitCode, 1);
        QVERIFY2(predicted.err.contains(u"not a gzip-compressed tar, the only archive format Ferry reads"_s),
                 qPrintable(predicted.err));
        nothingWritten();

        const QString bundle = m_root.filePath(u"downloads/zip-bundle.tar.gz"_s);
        QVERIFY(ferry::test::writeZip(bundle, {{"ferry-bundle.json", "{\"format\": 1}"},
                                               {"spec.json", "{}"},
                                               {"metrics.csv", "name,step,wallMs,value,epoch\n"}}));
        const QString workspace = m_root.filePath(u"workspace"_s);
        QVERIFY(QDir().mkpath(workspace));
        const Result imported = ferry({u"runs"_s, u"import"_s, bundle, u"--workspace"_s, workspace});
        QCOMPARE(imported.exitCode, 1);
        QVERIFY2(imported.err.contains(u"not a gzip-compressed tar, the only archive format Ferry reads"_s),
                 qPrintable(imported.err));
        QCOMPARE(QDir(workspace + u"/.ferry/runs"_s).entryList(QDir::AllEntries | QDir::NoDotAndDotDot), QStringList());
    }

    // L3: an error echoes an archive's entry names; one holding an OSC 52 clipboard write, a window
    // title and a screen clear reached the terminal as control sequences. Now what the command line
    // prints on stderr goes through the rule of metrics/terminaltext.h.
    void entryNamesAreEchoedWithoutControlSequences()
    {
        const QByteArray name = "../\x1b]52;c;ZWNobyBwd25lZA==\x07\x1b]0;owned\x07\x1b[2Jclimbing";
        const QString archivePath = m_root.filePath(u"downloads/escapes.tar.gz"_s);
        QVERIFY(QDir().mkpath(QFileInfo(archivePath).absolutePath()));
        QVERIFY(writeTarGz(archivePath, {{name, "x"}, {"model.json", card(u"model.pt"_s)}}));
        const Result predicted = predict(archivePath);
        QCOMPARE(predicted.exitCode, 1);
        QVERIFY2(!predicted.rawErr.contains('\x1b') && !predicted.rawErr.contains('\x07'),
                 predicted.rawErr.toHex(' ').constData());
        QVERIFY2(predicted.err.contains(u"climbing', which leads out of its folder"_s), qPrintable(predicted.err));

        const QString bundle = m_root.filePath(u"downloads/escapes-bundle.tar.gz"_s);
        QVERIFY(writeTarGz(bundle, {{"\x1b]0;owned\x07\x1b[2Jnot-a-part", "x"}}));
        const QString workspace = m_root.filePath(u"workspace"_s);
        QVERIFY(QDir().mkpath(workspace));
        const Result imported = ferry({u"runs"_s, u"import"_s, bundle, u"--workspace"_s, workspace});
        QCOMPARE(imported.exitCode, 1);
        QVERIFY2(!imported.rawErr.contains('\x1b') && !imported.rawErr.contains('\x07'),
                 imported.rawErr.toHex(' ').constData());
        QVERIFY2(imported.err.contains(u"not-a-part' is not part of a run bundle"_s), qPrintable(imported.err));
    }
};

FERRY_TEST_GUILESS_MAIN(TestPredictArchive)
#include "tst_predictarchive.moc"
