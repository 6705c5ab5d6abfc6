// Issue 19: `ferry runs import` is an archive extraction from elsewhere (docs/security.md). Each
// case takes a real bundle (a real run, exported by the real `ferry`), crafts it as an attacker
// would share it (libarchive writes names, links and sizes exactly as asked), imports it with the
// real `ferry runs import`, and checks the exit code, the message, that the files the bundle aimed
// at are unchanged or absent, and that the workspace holds nothing of it: no run, no run folder,
// no object, no staging folder.
#include "snapshot/treeobject.h"
#include "support/cli.h"
#include "support/files.h"
#include "support/tarball.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <archive.h>
#include <archive_entry.h>

#include <memory>

using namespace Qt::StringLiterals;
using namespace ferry;

namespace {

using Entry = test::TarEntry;
using Entries = QList<Entry>;
using test::writeTarGz;

// A tar whose one entry's header declares `declared` bytes (base-256, as GNU tar writes sizes
// over 8 GiB) and holds none, gzip-compressed: a size no writer would let through.
bool writeHugeDeclaration(const QString &path, const QByteArray &name, qint64 declared)
{
    QByteArray header(512, '\0');
    header.replace(0, name.size(), name);
    header.replace(100, 8, "0000644");
    header.replace(108, 8, "0000000");
    header.replace(116, 8, "0000000");
    header[124] = char(0x80);
    for (int i = 0; i < 8; ++i)
        header[135 - i] = char((declared >> (8 * i)) & 0xff);
    header.replace(136, 12, "00000000000");
    header[156] = '0';
    header.replace(257, 8,
                   QByteArray("ustar\0"
                              "00",
                              8));
    header.replace(148, 8, "        ");
    unsigned sum = 0;
    for (const char c : header)
        sum += static_cast<unsigned char>(c);
    header.replace(148, 7, QByteArray(QByteArray::number(sum, 8).rightJustified(6, '0') + '\0'));
    return test::writeGzip(path, header + QByteArray(1024, '\0'));
}

Entries readTarGz(const QString &path)
{
    Entries entries;
    std::unique_ptr<archive, decltype(&archive_read_free)> a(archive_read_new(), archive_read_free);
    archive_read_support_filter_all(a.get());
    archive_read_support_format_all(a.get());
    if (archive_read_open_filename(a.get(), QFile::encodeName(path).constData(), 65536) != ARCHIVE_OK)
        return entries;
    archive_entry *entry = nullptr;
    while (archive_read_next_header(a.get(), &entry) == ARCHIVE_OK) {
        Entry e{archive_entry_pathname(entry), QByteArray(archive_entry_size(entry), Qt::Uninitialized)};
        archive_read_data(a.get(), e.content.data(), size_t(e.content.size()));
        entries << e;
    }
    return entries;
}

QJsonObject jsonOf(const Entries &entries, const char *name)
{
    for (const Entry &e : entries) {
        if (e.name == name)
            return QJsonDocument::fromJson(e.content).object();
    }
    return {};
}

void setJson(Entries &entries, const char *name, const QJsonObject &json)
{
    for (Entry &e : entries) {
        if (e.name == name)
            e.content = QJsonDocument(json).toJson();
    }
}

qsizetype indexOf(const Entries &entries, const QByteArray &prefix)
{
    for (qsizetype i = 0; i < entries.size(); ++i) {
        if (entries[i].name.startsWith(prefix))
            return i;
    }
    return -1;
}

QStringList filesUnder(const QString &dir)
{
    QStringList files;
    QDirIterator it(dir, QDir::Files | QDir::Hidden | QDir::System, QDirIterator::Subdirectories);
    while (it.hasNext())
        files << it.next();
    return files;
}

} // namespace

class TestRunBundleImport : public QObject {
    Q_OBJECT

    QTemporaryDir m_root;
    Entries m_good;
    QString m_runId;
    int m_case = 0;

    QString victim() const { return m_root.filePath(u"victim.txt"_s); }
    QString outside() const { return m_root.filePath(u"outside"_s); }
    QString workspace() const { return m_root.filePath(u"ws"_s); }
    QString bundle() const { return m_root.filePath(u"downloads/evil.tar.gz"_s); }

    // The cases that need the good bundle, changed.
    Entries withSpec(const std::function<void(QJsonObject &spec, QJsonObject &manifest)> &change) const
    {
        Entries entries = m_good;
        QJsonObject spec = jsonOf(entries, "spec.json"), manifest = jsonOf(entries, "ferry-bundle.json");
        change(spec, manifest);
        setJson(entries, "spec.json", spec);
        setJson(entries, "ferry-bundle.json", manifest);
        return entries;
    }

    void checkNothingImported()
    {
        QCOMPARE(test::readFile(victim()), QByteArray("the user's file\n"));
        QVERIFY(!QFileInfo::exists(workspace() + u"/planted"_s));
        QVERIFY(!QFileInfo::exists(outside() + u"/log"_s));
        QCOMPARE(filesUnder(workspace() + u"/.ferry/objects"_s), QStringList());
        QCOMPARE(QDir(workspace() + u"/.ferry/runs"_s).entryList(QDir::AllEntries | QDir::NoDotAndDotDot),
                 QStringList());
        QCOMPARE(QDir(workspace() + u"/.ferry"_s).entryList({u"import-*"_s}, QDir::AllEntries | QDir::Hidden),
                 QStringList());
        const auto list = test::runFerry(workspace(), {u"runs"_s, u"list"_s, u"--json"_s});
        QCOMPARE(test::jsonArray(list).size(), 0);
    }

private Q_SLOTS:
    void initTestCase()
    {
        const QString source = m_root.filePath(u"source"_s);
        test::writeFileOrStop(
            source + u"/train.py"_s,
            "import json\nfor s in range(3):\n    print(json.dumps({'step': s, 'loss': 1 / (s + 3)}))\n");
        test::writeFileOrStop(source + u"/lib/helper.py"_s, "X = 1\n");
        const auto run = test::runFerry(source, {u"run"_s, u"train.py"_s, u"--hp"_s, u"lr=0.1"_s, u"--follow"_s});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        m_runId =
            test::jsonArray(test::runFerry(source, {u"runs"_s, u"list"_s, u"--json"_s})).first()[u"id"_s].toString();
        const QString good = m_root.filePath(u"good.tar.gz"_s);
        const auto exported = test::runFerry(source, {u"runs"_s, u"export"_s, m_runId, u"--bundle"_s, good});
        QVERIFY2(exported.exitCode == 0, qPrintable(exported.err));
        m_good = readTarGz(good);
        QVERIFY(indexOf(m_good, "objects/") >= 0 && indexOf(m_good, "run/log") >= 0);
    }

    void init()
    {
        QDir(workspace()).removeRecursively();
        QVERIFY(QDir().mkpath(workspace()));
        QVERIFY(QDir().mkpath(outside()));
        QVERIFY(QDir().mkpath(QFileInfo(bundle()).absolutePath()));
        test::writeFileOrStop(victim(), "the user's file\n");
        QFile::remove(bundle());
    }

    void refusedAndNothingIsLeft_data()
    {
        QTest::addColumn<Entries>("entries");
        QTest::addColumn<QString>("message");
        const QByteArray evil = "import os; os.system('echo owned')\n";
        const QByteArray climb = "../../../victim.txt"; // from <ws>/.ferry/import-XXXXXX
        QTest::newRow("an entry named with ..") << (Entries{{climb, evil}} + m_good) << u"leads out of its folder"_s;
        QTest::newRow("an entry named with .. to a new file")
            << (m_good + Entries{{"../../planted", evil}}) << u"entry named '../../planted'"_s;
        QTest::newRow("an absolute entry")
            << (m_good + Entries{{QFile::encodeName(victim()), evil}}) << u"leads out of its folder"_s;
        QTest::newRow("a symbolic link, then a file through it")
            << (Entries{{"run", {}, Entry::Symlink, QFile::encodeName(outside())}, {"run/log", evil}} + m_good)
            << u"'run' in the bundle is a symbolic link; a bundle holds only files"_s;
        QTest::newRow("a symbolic link at a part's name")
            << (Entries{{"run/log", {}, Entry::Symlink, QFile::encodeName(victim())}} + m_good)
            << u"'run/log' in the bundle is a symbolic link"_s;
        Entries hardLink = m_good;
        hardLink[indexOf(hardLink, "run/log")] = Entry{"run/log", {}, Entry::Hardlink, "spec.json"};
        QTest::newRow("a hard link") << hardLink << u"'run/log' in the bundle is a hard link"_s;
        Entries badObject = m_good;
        badObject[indexOf(badObject, "objects/")].content += "# one more line\n";
        QTest::newRow("an object whose bytes are not its hash")
            << badObject << u"does not hold the bytes its name says"_s;
        QTest::newRow("an entry that is no part of a bundle")
            << (m_good + Entries{{"evil.sh", evil}}) << u"'evil.sh' is not part of a run bundle"_s;
        QTest::newRow("an entry twice") << (m_good + Entries{{"run/log", evil}}) << u"'run/log' appears twice"_s;
        QTest::newRow("not a bundle") << Entries{{"run/log", "hello\n"}} << u"not a run bundle"_s;
        Entries malformed = m_good;
        malformed[indexOf(malformed, "spec.json")].content = "{ \"id\": ";
        QTest::newRow("a malformed spec") << malformed << u"its spec.json is not a JSON object"_s;
        QTest::newRow("a run id that climbs out") << withSpec([](QJsonObject &spec, QJsonObject &manifest) {
            spec[u"id"_s] = u"../../planted"_s;
            QJsonObject run = manifest[u"run"_s].toObject();
            run[u"id"_s] = u"../../planted"_s;
            manifest[u"run"_s] = run;
        }) << u"its run id '../../planted' is not one Ferry makes"_s;
        QTest::newRow("a parameter name a script would run") << withSpec([](QJsonObject &spec, QJsonObject &) {
            spec[u"hyperparameters"_s] = QJsonArray{QJsonObject{{u"name"_s, u"lr; rm -rf ~"_s}, {u"value"_s, u"1"_s}}};
        }) << u"its spec is not valid: hyperparameter name 'lr; rm -rf ~' is not allowed"_s;
        QTest::newRow("a manifest of another run") << withSpec([](QJsonObject &, QJsonObject &manifest) {
            QJsonObject run = manifest[u"run"_s].toObject();
            run[u"id"_s] = u"20260101-000000-other-0000"_s;
            manifest[u"run"_s] = run;
        }) << u"its manifest and its spec name different runs"_s;
        QTest::newRow("a run still running") << withSpec([](QJsonObject &, QJsonObject &manifest) {
            QJsonObject run = manifest[u"run"_s].toObject();
            run[u"status"_s] = u"running"_s;
            manifest[u"run"_s] = run;
        }) << u"status 'running' is not one of an ended run"_s;
        // A folder listing that names a file "../../../victim.txt": a rerun would write it there.
        const QByteArray listing = snapshot::treeObject(
            {snapshot::TreeEntry{'f', 5, snapshot::objectHash("owned"), QString::fromUtf8(climb)}});
        const QString tree = snapshot::objectHash(listing);
        Entries climbing = withSpec([&](QJsonObject &spec, QJsonObject &manifest) {
            QJsonObject snap = spec[u"snapshot"_s].toObject();
            snap[u"tree"_s] = tree;
            spec[u"snapshot"_s] = snap;
            QJsonObject declared = manifest[u"snapshot"_s].toObject();
            declared[u"tree"_s] = tree;
            manifest[u"snapshot"_s] = declared;
        });
        const auto objectName = [](const QString &hash) {
            return (u"objects/"_s + hash.left(2) + u'/' + hash.mid(2)).toUtf8();
        };
        climbing << Entry{objectName(tree), listing} << Entry{objectName(snapshot::objectHash("owned")), "owned"};
        QTest::newRow("a snapshot naming a file ../../../victim.txt")
            << climbing << u"names '../../../victim.txt' (a name must be one part, once)"_s;
        QTest::newRow("a newer format") << withSpec([](QJsonObject &, QJsonObject &manifest) {
            manifest[u"format"_s] = 99;
        }) << u"bundle format 99; this Ferry reads format 1"_s;
    }

    void refusedAndNothingIsLeft()
    {
        QFETCH(Entries, entries);
        QFETCH(QString, message);
        QVERIFY(writeTarGz(bundle(), entries));
        const auto r = test::runFerry(workspace(), {u"runs"_s, u"import"_s, bundle()});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
        QVERIFY2(r.err.contains(bundle()), qPrintable(r.err)); // the bundle is named
        checkNothingImported();
    }

    // A header declaring a terabyte: refused by its declaration, before a byte is inflated.
    void aHugeDeclaredSizeIsRefused()
    {
        QVERIFY(writeHugeDeclaration(bundle(), "metrics.csv", qint64(1) << 40));
        const auto r = test::runFerry(workspace(), {u"runs"_s, u"import"_s, bundle()});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(u"'metrics.csv' in the archive declares 1099511627776 bytes"_s), qPrintable(r.err));
        checkNothingImported();
    }

    // 400 MB of zeros in a bundle of well under a megabyte: refused once what it inflates to
    // passes 256 MiB and 100 times its size; what was staged goes.
    void aGzipBombIsRefused()
    {
        Entries bomb = m_good;
        const QByteArray zeros(200 * 1000 * 1000, '\0');
        bomb[indexOf(bomb, "run/log")].content = zeros;
        if (const qsizetype output = indexOf(bomb, "run/output.tar.gz"); output >= 0)
            bomb[output].content = zeros;
        else
            bomb << Entry{"run/output.tar.gz", zeros};
        QVERIFY(writeTarGz(bundle(), bomb));
        QVERIFY(QFileInfo(bundle()).size() < 1000 * 1000);
        const auto r = test::runFerry(workspace(), {u"runs"_s, u"import"_s, bundle()});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(u"more than Ferry reads from an archive"_s), qPrintable(r.err));
        checkNothingImported();
    }

    // A folder already at the run's name (not in the store): refused, and what is in it stays.
    void aRunFolderOfThatIdIsLeftAlone()
    {
        const QString folder = workspace() + u"/.ferry/runs/"_s + m_runId;
        test::writeFileOrStop(folder + u"/notes.txt"_s, "mine\n");
        QVERIFY(writeTarGz(bundle(), m_good));
        const auto r = test::runFerry(workspace(), {u"runs"_s, u"import"_s, bundle()});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(u"is in this workspace already"_s), qPrintable(r.err));
        QCOMPARE(QDir(folder).entryList(QDir::AllEntries | QDir::NoDotAndDotDot), QStringList{u"notes.txt"_s});
        QCOMPARE(filesUnder(workspace() + u"/.ferry/objects"_s), QStringList());
        // The same bundle imports once the folder is gone: the crafted cases fail for their craft.
        QVERIFY(QDir(folder).removeRecursively());
        const auto imported = test::runFerry(workspace(), {u"runs"_s, u"import"_s, bundle()});
        QVERIFY2(imported.exitCode == 0, qPrintable(imported.err));
        QCOMPARE(imported.out.trimmed(), m_runId);
    }
};

QTEST_GUILESS_MAIN(TestRunBundleImport)
#include "tst_runbundleimport.moc"
