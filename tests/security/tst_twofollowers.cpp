// M5 and L13 (issue 14, item 5): two followers never double a point. A local run prints
// thousands of numbered metric points (a JSON line with its step, and a step-less `tick=` line
// each) for several seconds while two real `ferry runs attach ID` processes follow it and
// `ferry runs list` (whose refresh follows every unfinished run once) is called again and again.
// Before the fix each follower appended the same lines from its own offset (a blind
// `UPDATE runs SET log_offset`), so points were stored twice and step-less counts went on past
// the run's. Now every step is stored exactly once (count = distinct = expected), the step-less
// metric has exactly one point per line with x = 0..N-1, and both attach processes printed every
// line of the run, in order.
#include "store/runstore.h"
#include "support/testenv.h"
#include "support/testmain.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace ferry;

namespace {

constexpr int kPoints = 6000;

const QByteArray kPointsScript = "import json, sys, time\n"
                                 "n = int(sys.argv[sys.argv.index('--points') + 1])\n"
                                 "time.sleep(3)  # the followers are started by now\n"
                                 "for i in range(n):\n"
                                 "    print(json.dumps({'step': i, 'loss': 1.0 / (i + 1)}))\n"
                                 "    print('tick=%d' % i)\n"
                                 "    if i % 100 == 99:\n"
                                 "        sys.stdout.flush()\n"
                                 "        time.sleep(0.05)\n"
                                 "print('done', flush=True)\n";

} // namespace

class TestTwoFollowers : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_ws;

    QProcess *ferry(const QStringList &arguments)
    {
        auto *p = new QProcess(this);
        p->setWorkingDirectory(m_ws);
        p->start(ferry::test::ferryBinary(), arguments);
        return p;
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_ws = m_dir.filePath(u"ws"_s);
        QVERIFY(QDir().mkpath(m_ws + u"/environments"_s));
        QFile script(m_ws + u"/points.py"_s);
        QVERIFY(script.open(QIODevice::WriteOnly));
        script.write(kPointsScript);
        script.close();
        QFile env(m_ws + u"/environments/local.yml"_s);
        QVERIFY(env.open(QIODevice::WriteOnly));
        env.write("ferry: 1\nname: m5-local\npython:\n  interpreter: /usr/bin/python3\n  user_managed: true\n");
    }

    void everyPointOnceWithManyFollowers()
    {
        QProcess *start = ferry({u"run"_s, u"points.py"_s, u"--env"_s, u"environments/local.yml"_s, u"--hp"_s,
                                 u"points=%1"_s.arg(kPoints)});
        QVERIFY(start->waitForFinished(120000));
        QVERIFY2(start->exitCode() == 0, start->readAllStandardError().constData());
        const QString id = QString::fromUtf8(start->readAllStandardOutput()).trimmed();
        QVERIFY(!id.isEmpty());

        QProcess *first = ferry({u"runs"_s, u"attach"_s, id});
        QProcess *second = ferry({u"runs"_s, u"attach"_s, id});
        int lists = 0;
        // What each attach printed, read as it comes: a full pipe would stop a follower.
        QHash<QProcess *, QByteArray> printed;
        const auto drain = [&] {
            for (QProcess *attach : {first, second}) {
                attach->waitForReadyRead(0);
                printed[attach] += attach->readAllStandardOutput();
            }
        };
        // `ferry runs list` again and again while the attach processes follow (a hang guard only).
        for (int i = 0; i < 600 && (first->state() != QProcess::NotRunning || second->state() != QProcess::NotRunning);
             ++i) {
            QProcess *list = ferry({u"runs"_s, u"list"_s});
            while (!list->waitForFinished(50))
                drain();
            QCOMPARE(list->exitCode(), 0);
            ++lists;
            delete list;
            drain();
        }
        for (QProcess *attach : {first, second}) // waitForFinished is false for one that has ended already
            QVERIFY(attach->state() == QProcess::NotRunning || attach->waitForFinished(60000));
        drain();
        QCOMPARE(first->exitCode(), 0);
        QCOMPARE(second->exitCode(), 0);
        QVERIFY2(lists >= 3, "the run ended before the followers raced");
        QProcess *show = ferry({u"runs"_s, u"show"_s, id, u"--json"_s});
        QVERIFY(show->waitForFinished(60000));
        QCOMPARE(QJsonDocument::fromJson(show->readAllStandardOutput()).object()[u"status"_s].toString(),
                 u"succeeded"_s);

        auto store = run::RunStore::open(m_ws + u"/.ferry/runs.sqlite"_s);
        QVERIFY(store);
        for (const QString &name : {u"loss"_s, u"step"_s, u"tick"_s}) {
            const QList<run::MetricPoint> points = (*store)->metrics(id, name);
            if (name == u"step"_s && points.isEmpty())
                continue; // the step is the x axis, not a metric of its own
            QSet<qint64> steps;
            for (const run::MetricPoint &p : points)
                steps.insert(static_cast<qint64>(p.step));
            QCOMPARE(points.size(), kPoints);
            QCOMPARE(steps.size(), kPoints);
            QVERIFY(steps.contains(0) && steps.contains(kPoints - 1));
        }
        QCOMPARE((*store)->metricCount(id, u"tick"_s), kPoints);
        QVERIFY((*store)->integrityCheck());

        // Each follower printed what it followed, in order, each line once.
        for (QProcess *attach : {first, second}) {
            const QByteArrayList lines = printed.value(attach).split('\n');
            // (From where the store stood when it started: a slow start misses nothing after that.)
            qsizetype ticks = 0;
            qint64 last = -1;
            for (const QByteArray &line : lines) {
                if (!line.startsWith("tick="))
                    continue;
                const qint64 n = line.mid(5).toLongLong();
                if (ticks > 0)
                    QCOMPARE(n, last + 1);
                last = n;
                ++ticks;
            }
            QVERIFY(ticks > 0);
            QCOMPARE(last, kPoints - 1);
        }
    }
};

FERRY_TEST_GUILESS_MAIN(TestTwoFollowers)
#include "tst_twofollowers.moc"
