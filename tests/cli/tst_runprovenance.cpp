// What a local run records besides its code (docs/snapshots.md), through the built `ferry` on
// real runs: each data channel's size, file count and fingerprint, and the host as the run saw
// it (this machine's name, cores, memory), in `ferry runs show`; `ferry runs diff` says a
// channel whose data changed between two runs and the host that did not; a rerun after the data
// changed warns.
#include "run/hostfacts.h"
#include "support/cli.h"
#include "support/files.h"
#include "support/testmain.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace ferry;

namespace {

const char *const kScript = R"(import os
d = os.environ["SM_CHANNEL_TRAINING"]
print("files:", sorted(os.listdir(d)))
)";

QString startRun(const QString &ws)
{
    const auto r = test::runFerry(ws, {u"run"_s, u"train.py"_s, u"--data"_s, u"training=data"_s, u"--follow"_s});
    if (r.exitCode != 0)
        qWarning("ferry run: %s", qPrintable(r.err));
    const auto list = test::runFerry(ws, {u"runs"_s, u"list"_s, u"--json"_s});
    return QJsonDocument::fromJson(list.out.toUtf8()).array().first()[u"id"_s].toString();
}

QString firstLine(const QString &path)
{
    return QString::fromUtf8(test::readFile(path)).section(u'\n', 0, 0).trimmed();
}

} // namespace

class TestRunProvenance : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void dataAndHostAreRecordedShownAndCompared()
    {
        QTemporaryDir dir;
        const QString ws = dir.path();
        test::writeFileOrStop(ws + u"/train.py"_s, kScript);
        test::writeFileOrStop(ws + u"/data/a.csv"_s, "x,y\n1,2\n");
        test::writeFileOrStop(ws + u"/data/b.csv"_s, "x,y\n3,4\n");
        const QString a = startRun(ws);
        QVERIFY(!a.isEmpty());

        const auto show = test::runFerry(ws, {u"runs"_s, u"show"_s, a});
        QVERIFY2(show.exitCode == 0, qPrintable(show.err));
        const QString data = QDir(ws).filePath(u"data"_s);
        QVERIFY2(show.out.contains(u"data:      training: %1, 2 files, 16 bytes, fp1:"_s.arg(data)),
                 qPrintable(show.out));
        // The host as this machine is: its name, its cores.
        const auto facts = run::readHostFacts(ws + u"/.ferry/runs/"_s + a);
        QVERIFY(facts);
        QCOMPARE(facts->hostname, firstLine(u"/proc/sys/kernel/hostname"_s));
        QVERIFY(facts->cores >= 1);
        QVERIFY(facts->memoryKiB > 0);
        QVERIFY(!facts->os.isEmpty());
        QVERIFY2(show.out.contains(u"host:      gpu "_s + facts->gpuText()), qPrintable(show.out));
        QVERIFY2(show.out.contains(u"hostname "_s + facts->hostname), qPrintable(show.out));

        // The same data: the same; one byte changed: changed, with both sides.
        const QString same = startRun(ws);
        test::writeFileOrStop(ws + u"/data/b.csv"_s, "x,y\n3,5\n");
        const QString b = startRun(ws);
        QVERIFY(!same.isEmpty() && !b.isEmpty() && same != a && b != same);
        const auto unchanged = test::runFerry(ws, {u"runs"_s, u"diff"_s, a, same});
        QVERIFY2(unchanged.out.contains(u"data training: the same (2 files, 16 bytes, fp1:"_s),
                 qPrintable(unchanged.out));
        QVERIFY2(unchanged.out.contains(u"host: the same\n"_s), qPrintable(unchanged.out));
        const auto diff = test::runFerry(ws, {u"runs"_s, u"diff"_s, a, b});
        QVERIFY2(diff.out.contains(u"data training: changed: 2 files, 16 bytes, fp1:"_s), qPrintable(diff.out));
        QVERIFY2(diff.out.contains(u"host: the same\n"_s), qPrintable(diff.out));
        const QJsonObject json = test::jsonObject(test::runFerry(ws, {u"runs"_s, u"diff"_s, a, b, u"--json"_s}));
        const QJsonObject channel = json[u"data"_s][0].toObject();
        QCOMPARE(channel[u"channel"_s].toString(), u"training"_s);
        QCOMPARE(channel[u"same"_s].toBool(), false);
        QCOMPARE(channel[u"filesA"_s].toInt(), 2);
        QVERIFY(channel[u"fingerprintA"_s].toString() != channel[u"fingerprintB"_s].toString());
        QVERIFY(!json[u"host"_s].toArray().isEmpty());
        for (const QJsonValue &f : json[u"host"_s].toArray())
            QVERIFY2(!f[u"differs"_s].toBool(), qPrintable(f[u"field"_s].toString()));

        // A rerun of the first run reads other data now, and says so.
        const auto rerun = test::runFerry(ws, {u"runs"_s, u"rerun"_s, a, u"--follow"_s});
        QVERIFY2(rerun.exitCode == 0, qPrintable(rerun.err));
        QVERIFY2(
            rerun.err.contains(u"warning: the data of channel training (%1) is not what run %2 read"_s.arg(data, a)),
            qPrintable(rerun.err));
    }
};

FERRY_TEST_APPLESS_MAIN(TestRunProvenance)
#include "tst_runprovenance.moc"
