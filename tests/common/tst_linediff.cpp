// The line diff against GNU diff: for hand-picked and for random pairs of texts, unifiedDiff
// prints what `diff -u` prints (its hunks; the file header lines aside). Texts that differ on
// every line (review 2026-12-06, M4: 4,000 + 4,000 lines took 528 MB) cost linear memory, and
// past kMostChangedLines changes are "too large" at once.
#include "common/linediff.h"
#include "support/cost.h"
#include "support/testmain.h"

#include <QProcess>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>

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
    const QString text = ferry::unifiedDiff(a, b, u"a"_s, u"b"_s).value_or(u"(too large)"_s);
    return text.isEmpty() ? QString() : text.section(u'\n', 2);
}

} // namespace

class TestLineDiff : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void sameTextsGiveNothing()
    {
        QCOMPARE(ferry::unifiedDiff({u"x"_s, u"y"_s}, {u"x"_s, u"y"_s}, u"a"_s, u"b"_s), QString());
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
    // laid out alike (runs of changes slid as GNU diff slides them); at least the same lines
    // removed and added, always.
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
            const auto diffed = ferry::diffLines(a, b);
            QVERIFY(diffed);
            for (const ferry::DiffLine &l : *diffed) {
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
        QVERIFY2(same >= 50, "the greedy diff before the linear-space one gave 50, this one gives 60");
    }

    // M4: every line differs, 16,000 changes (8,000 + 8,000 lines took 2 GB): the whole diff, in
    // memory that grows with the lines.
    void everyLineChangedIsLinearInMemory()
    {
        QStringList a, b;
        for (int i = 0; i < 8000; ++i) {
            a << u"old line %1"_s.arg(i);
            b << u"new line %1"_s.arg(i);
        }
        std::optional<QList<ferry::DiffLine>> diffed;
        const auto cost = ferry::test::measure("every line changed", u"8,000 + 8,000 lines"_s,
                                               [&] { diffed = ferry::diffLines(a, b); });
        QVERIFY(diffed);
        QCOMPARE(diffed->size(), 16000);
        QVERIFY(std::all_of(diffed->cbegin(), diffed->cbegin() + 8000,
                            [](const ferry::DiffLine &l) { return l.kind == ferry::DiffLine::Removed; }));
        QVERIFY(std::all_of(diffed->cbegin() + 8000, diffed->cend(),
                            [](const ferry::DiffLine &l) { return l.kind == ferry::DiffLine::Added; }));
        QVERIFY2(ferry::test::peakWithin(cost.peakBytes, 64 << 20), "a few MiB expected");
        QVERIFY2(ferry::test::secondsWithin(cost.seconds, 10), "well under a second expected");
    }

    // M4 at 100 times the review's size: 400,000 + 400,000 lines, each different, are too large
    // to show, found so in bounded time and in memory linear in the lines.
    void tooManyChangesAreTooLarge()
    {
        QStringList a, b;
        for (int i = 0; i < 400000; ++i) {
            a << u"old %1"_s.arg(i);
            b << u"new %1"_s.arg(i);
        }
        std::optional<QString> unified = u"not run"_s;
        const auto cost = ferry::test::measure("too many changes", u"400,000 + 400,000 lines"_s,
                                               [&] { unified = ferry::unifiedDiff(a, b, u"a"_s, u"b"_s); });
        QCOMPARE(unified, std::nullopt);
        QVERIFY2(ferry::test::peakWithin(cost.peakBytes, 512 << 20), "about 60 MiB expected");
        QVERIFY2(ferry::test::secondsWithin(cost.seconds, 10), "about a second expected");
        // Exactly at the cap it is worked out; one more change is too much.
        const QStringList few = a.mid(0, ferry::kMostChangedLines / 2);
        const QStringList other = b.mid(0, ferry::kMostChangedLines / 2);
        QVERIFY(ferry::diffLines(few, other));
        QVERIFY(!ferry::diffLines(few + QStringList{u"x"_s}, other));
        // The cap is on the changes, not on the lines: one changed line of as many is shown.
        b = a;
        b[200000] = u"changed"_s;
        const auto one = ferry::unifiedDiff(a, b, u"a"_s, u"b"_s);
        QVERIFY(one && one->contains(u"\n-old 200000\n+changed\n"_s));
    }
};

FERRY_TEST_GUILESS_MAIN(TestLineDiff)
#include "tst_linediff.moc"
