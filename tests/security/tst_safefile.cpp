// The file helpers for folders something untrusted can write (common/safefile.h): a link
// planted at the name neither redirects a write nor makes Ferry read another file, and a
// planted fifo never blocks a read. Each case plants the link or fifo and checks the target.
#include "common/safefile.h"
#include "support/testmain.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>
#include <unistd.h>

using namespace Qt::StringLiterals;
using namespace ferry;

class TestSafeFile : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_victim;

    static QByteArray contents(const QString &path)
    {
        QFile f(path);
        return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray("<missing>");
    }

    QString plantLink(const QString &name) const
    {
        const QString link = m_dir.filePath(name);
        QFile::remove(link);
        if (!QFile::link(m_victim, link))
            qFatal("cannot plant the link");
        return link;
    }

private Q_SLOTS:
    void init()
    {
        m_victim = m_dir.filePath(u"victim"_s);
        QFile f(m_victim);
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write("the user's file\n");
    }

    void readRefusesALinkAndReadsAFile()
    {
        const QString link = plantLink(u"failure"_s);
        const auto read = readRegularFile(link, 1024);
        QVERIFY(!read);
        QVERIFY2(read.error().message.contains(u"symbolic link"_s), qPrintable(read.error().toString()));
        QCOMPARE(entryKind(link), EntryKind::Symlink);

        const auto plain = readRegularFile(m_victim, 1024);
        QVERIFY(plain && plain->has_value());
        QCOMPARE(**plain, QByteArray("the user's file\n"));
        const auto missing = readRegularFile(m_dir.filePath(u"nothing"_s), 1024);
        QVERIFY(missing && !missing->has_value());
        const auto tooLarge = readRegularFile(m_victim, 4);
        QVERIFY(!tooLarge);
    }

    // A fifo at the name would block a plain open forever.
    void readRefusesAFifoWithoutBlocking()
    {
        const QString fifo = m_dir.filePath(u"fifo"_s);
        QCOMPARE(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
        const auto read = readRegularFile(fifo, 1024);
        QVERIFY(!read);
        QCOMPARE(entryKind(fifo), EntryKind::Other);
        QVERIFY(!appendToFileSafely(fifo, "x"));
    }

    void createRefusesAnythingAtTheName()
    {
        const QString link = plantLink(u"exit.json"_s);
        QVERIFY(!createNewFile(link, "forged"));
        QCOMPARE(contents(m_victim), QByteArray("the user's file\n"));
        // A dangling link (to a file that does not exist yet) is refused too, not created through.
        const QString dangling = m_dir.filePath(u"dangling"_s);
        QVERIFY(QFile::link(m_dir.filePath(u"created-through-link"_s), dangling));
        QVERIFY(!createNewFile(dangling, "x"));
        QVERIFY(!QFile::exists(m_dir.filePath(u"created-through-link"_s)));

        const QString fresh = m_dir.filePath(u"fresh"_s);
        QVERIFY(createNewFile(fresh, "new", 0600));
        QCOMPARE(contents(fresh), QByteArray("new"));
        QFileInfo info(fresh);
        QCOMPARE(int(info.permissions() & (QFile::ReadGroup | QFile::ReadOther)), 0);
    }

    // rename(2) replaces the planted link, not the file it points to.
    void replaceReplacesTheLinkNotItsTarget()
    {
        const QString link = plantLink(u"heartbeat"_s);
        QVERIFY(replaceFileSafely(link, "1234\n"));
        QCOMPARE(contents(m_victim), QByteArray("the user's file\n"));
        QCOMPARE(entryKind(link), EntryKind::RegularFile);
        QCOMPARE(contents(link), QByteArray("1234\n"));
        // No temp file is left beside it.
        const QStringList left = QDir(m_dir.path()).entryList({u"heartbeat.tmp-*"_s}, QDir::Files | QDir::System);
        QVERIFY2(left.isEmpty(), qPrintable(left.join(u' ')));
    }

    void appendRefusesALink()
    {
        const QString link = plantLink(u"log"_s);
        QVERIFY(!appendToFileSafely(link, "appended\n"));
        QCOMPARE(contents(m_victim), QByteArray("the user's file\n"));
        const QString log = m_dir.filePath(u"reallog"_s);
        QVERIFY(appendToFileSafely(log, "a\n"));
        QVERIFY(appendToFileSafely(log, "b\n"));
        QCOMPARE(contents(log), QByteArray("a\nb\n"));
    }

    void tempNamesAreUnpredictable()
    {
        const QString a = unpredictableTempName(u"/x/model.tar.gz"_s);
        const QString b = unpredictableTempName(u"/x/model.tar.gz"_s);
        QVERIFY(a.startsWith(u"/x/model.tar.gz.tmp-"_s));
        QCOMPARE(a.size(), u"/x/model.tar.gz.tmp-"_s.size() + 12);
        QVERIFY(a != b);
    }
};

FERRY_TEST_GUILESS_MAIN(TestSafeFile)
#include "tst_safefile.moc"
