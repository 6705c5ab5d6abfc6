// SweepWatch (sweep/sweepwatch.h) over real sweep folders as a controller writes them: a sweep
// that ends is reported once, one over before the first look never, one started and ended between
// two looks is, and a folder whose state is not written yet is looked at again.
#include "support/testmain.h"
#include "sweep/sweepwatch.h"

#include <QDir>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace ferry::sweep;

namespace {

SweepState sweepStateOf(const QString &id, SweepStatus status)
{
    SweepState state;
    state.id = id;
    state.name = u"lr"_s;
    state.status = status;
    state.createdMs = 1000;
    return state;
}

QStringList idsOf(const QList<SweepState> &sweeps)
{
    QStringList ids;
    for (const SweepState &s : sweeps)
        ids << s.id;
    ids.sort();
    return ids;
}

} // namespace

class TestSweepWatch : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void endsAreReportedOnce()
    {
        QTemporaryDir dir;
        const auto make = [&](const QString &id, SweepStatus status) {
            return SweepDirectory(dir.filePath(id)).create("method: grid\n", sweepStateOf(id, status));
        };
        QVERIFY(make(u"old"_s, SweepStatus::Finished));
        QVERIFY(make(u"going"_s, SweepStatus::Running));
        QVERIFY(QDir().mkpath(dir.filePath(u"unwritten"_s))); // a controller making it: no state yet
        SweepWatch watch(dir.path());
        QVERIFY(watch.poll().isEmpty()); // the first look only looks: "old" is history
        QVERIFY(watch.poll().isEmpty());
        QVERIFY(SweepDirectory(dir.filePath(u"going"_s)).writeState(sweepStateOf(u"going"_s, SweepStatus::Failed)));
        QVERIFY(make(u"quick"_s, SweepStatus::Finished)); // started and over between two looks
        QVERIFY(QDir(dir.filePath(u"unwritten"_s)).removeRecursively());
        QVERIFY(make(u"unwritten"_s, SweepStatus::Cancelled));
        const QList<SweepState> ended = watch.poll();
        QCOMPARE(idsOf(ended), (QStringList{u"going"_s, u"quick"_s, u"unwritten"_s}));
        for (const SweepState &s : ended)
            QVERIFY(s.status != SweepStatus::Running);
        QVERIFY(watch.poll().isEmpty()); // said once
    }
};

FERRY_TEST_APPLESS_MAIN(TestSweepWatch)
#include "tst_sweepwatch.moc"
