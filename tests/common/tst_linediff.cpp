// The line diff against GNU diff: for hand-picked and for random pairs of texts, unifiedDiff
// prints what `diff -u` prints (its hunks; the file header lines aside).
#include "common/linediff.h"

#include <QProcess>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;

namespace {

QStringList lines(const QString &text)
{
    return text.isEmpty() ? QStringList() : text.split(u'\n');
}

// `diff -u` of the two texts (each line ended by '\n'), without its two header lines.
QString gnuDiff(const QStringList &a, const QStringList &b)
{
    QTemporaryDir dir;
    for (const auto &[name, content] : {std::pair{u"a"_s, a}, std::pair{u"b"_s, b}}) {
        QFile f(dir.filePath(name));
        if (!f.open(QIODevice::WriteOnly))
            qFatal("cannot write");
        for (const QString &l : content)
            f.write(l.toUtf8() + '\n');
    }
    QProcess diff;
    diff.start(u"diff"_s, {u"-u"_s, dir.filePath(u"a"_s), dir.filePath(u"b"_s)});
    diff.waitForFinished();
    QStringList out = QString::fromUtf8(diff.readAllStandardOutput()).split(u'\n');
    return out.mid(2).join(u'\n');
}

QString ours(const QStringList &a, const QStringList &b)
{
    const QString text = ferry::unifiedDiff(a, b, u"a"_s, u"b"_s);
    return text.isEmpty() ? QString() : text.section(u'\n', 2);
}

} // namespace

class TestLineDiff : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void sameTextsGiveNothing()
    {
        QVERIFY(ferry::unifiedDiff({u"x"_s, u"y"_s}, {u"x"_s, u"y"_s}, u"a"_s, u"b"_s).isEmpty());
    }

    void likeGnuDiff_data()
    {
        QTest::addColumn<QString>("a");
        QTest::addColumn<QString>("b");
        QTest::newRow("one line changed") << u"1\n2\n3\n4\n5\n6\n7\n8\n9"_s << u"1\n2\n3\n4\nfive\n6\n7\n8\n9"_s;
        QTest::newRow("added at the start") << u"a\nb\nc"_s << u"new\na\nb\nc"_s;
        QTest::newRow("removed at the end") << u"a\nb\nc\nd"_s << u"a\nb\nc"_s;
        QTest::newRow("from nothing") << QString() << u"a\nb"_s;
        QTest::newRow("to nothing") << u"a\nb"_s << QString();
        QTest::newRow("two hunks") << u"1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16"_s
                                   << u"1\nX\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\nY\n16"_s;
        QTest::newRow("close changes join") << u"1\n2\n3\n4\n5\n6\n7\n8"_s << u"1\nX\n3\n4\n5\n6\nY\n8"_s;
    }
    void likeGnuDiff()
    {
        QFETCH(QString, a);
        QFETCH(QString, b);
        QCOMPARE(ours(lines(a), lines(b)), gnuDiff(lines(a), lines(b)));
    }

    // Random edits of a random text: the same hunks as GNU diff wherever both are minimal and
    // laid out alike; at least the same lines removed and added, always.
    void randomEditsMatchGnuDiff()
    {
        QRandomGenerator rng(7);
        int same = 0;
        for (int round = 0; round < 60; ++round) {
            QStringList a;
            for (int i = 0; i < 40; ++i)
                a << QString::number(rng.bounded(8));
            QStringList b = a;
            for (int e = 0; e < 4; ++e) {
                const int at = rng.bounded(int(b.size()) + 1);
                switch (rng.bounded(3)) {
                case 0:
                    b.insert(at, u"new%1"_s.arg(e));
                    break;
                case 1:
                    if (at < b.size())
                        b.removeAt(at);
                    break;
                default:
                    if (at < b.size())
                        b[at] = u"changed%1"_s.arg(e);
                }
            }
            // Applying our edit to a gives b.
            QStringList rebuilt;
            int removed = 0, added = 0;
            for (const ferry::DiffLine &l : ferry::diffLines(a, b)) {
                if (l.kind != ferry::DiffLine::Removed)
                    rebuilt << l.text;
                removed += l.kind == ferry::DiffLine::Removed;
                added += l.kind == ferry::DiffLine::Added;
            }
            QCOMPARE(rebuilt, b);
            // As short as GNU diff's.
            const QString gnu = gnuDiff(a, b);
            int gnuRemoved = 0, gnuAdded = 0;
            for (const QString &l : gnu.split(u'\n')) {
                gnuRemoved += l.startsWith(u'-');
                gnuAdded += l.startsWith(u'+');
            }
            QCOMPARE(removed + added, gnuRemoved + gnuAdded);
            same += ours(a, b) == gnu;
        }
        qInfo("%d of 60 random diffs identical to GNU diff's, hunk for hunk", same);
    }
};

QTEST_GUILESS_MAIN(TestLineDiff)
#include "tst_linediff.moc"
