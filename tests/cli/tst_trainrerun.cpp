// `ferry runs rerun` of an embedded-trainer run (app/cli/trainrerun.h): real training on a tiny
// CSV with a seed, then its rerun. The rerun records which run it repeats, has the same
// parameters, and every stored point of its losses and metrics has the first run's bits.
#include "store/runstore.h"
#include "support/cli.h"
#include "support/files.h"
#include "support/testmain.h"
#include "support/trainbits.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace ferry;

namespace {

QString newestRun(const QString &ws)
{
    return QJsonDocument::fromJson(test::runFerry(ws, {u"runs"_s, u"list"_s, u"--json"_s}).out.toUtf8())
        .array()
        .first()[u"id"_s]
        .toString();
}

} // namespace

class TestTrainRerun : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void aRerunWithTheSameSeedHasTheSameLossesBitForBit()
    {
        QTemporaryDir dir;
        const QString ws = dir.path();
        QVERIFY(test::writeFile(dir.filePath(u"tiny.csv"_s), test::tinyTrainingCsv()));
        const auto first =
            test::runFerry(ws, {u"train"_s, u"--data"_s, u"tiny.csv"_s, u"--epochs"_s, u"2"_s, u"--dropout"_s, u"0.2"_s,
                                u"--seed"_s, u"11"_s, u"--log-every"_s, u"1"_s});
        QVERIFY2(first.exitCode == 0, qPrintable(first.err));
        const QString a = newestRun(ws);

        const auto again = test::runFerry(ws, {u"runs"_s, u"rerun"_s, a});
        QVERIFY2(again.exitCode == 0, qPrintable(again.err));
        QVERIFY2(again.err.contains(u"rerun of %1: the embedded trainer with its settings (seed 11)"_s.arg(a)),
                 qPrintable(again.err));
        QVERIFY2(!again.err.contains(u"warning:"_s), qPrintable(again.err)); // the same data
        const QString b = newestRun(ws);
        QVERIFY(b != a);

        const auto show = test::runFerry(ws, {u"runs"_s, u"show"_s, b});
        QVERIFY2(show.out.contains(u"rerun of:  "_s + a), qPrintable(show.out));
        QVERIFY2(show.out.contains(u"data:      training: "_s), qPrintable(show.out));
        QVERIFY2(show.out.contains(u"host:      gpu "_s), qPrintable(show.out));

        auto store = run::RunStore::open(run::RunStore::pathInWorkspace(ws));
        QVERIFY(store);
        QCOMPARE((*store)->params(b), (*store)->params(a));
        const auto bitsA = test::trainingPointBits(**store, a), bitsB = test::trainingPointBits(**store, b);
        QVERIFY(bitsA.size() >= 2 * 8); // a loss point per step, and the epochs' metrics
        QVERIFY(bitsA.keys().contains(u"loss@1"_s));
        QCOMPARE(bitsB.keys(), bitsA.keys());
        for (auto it = bitsA.begin(); it != bitsA.end(); ++it)
            QVERIFY2(bitsB.value(it.key()) == it.value(), qPrintable(it.key()));

        // The diff of the two: no parameter, no data differs.
        const auto diff = test::runFerry(ws, {u"runs"_s, u"diff"_s, a, b});
        QVERIFY2(diff.out.contains(u"parameters that differ: none\n"_s), qPrintable(diff.out));
        QVERIFY2(diff.out.contains(u"data training: the same ("_s), qPrintable(diff.out));
        QVERIFY2(diff.out.contains(u"host: the same\n"_s), qPrintable(diff.out));
    }
};

FERRY_TEST_APPLESS_MAIN(TestTrainRerun)
#include "tst_trainrerun.moc"
