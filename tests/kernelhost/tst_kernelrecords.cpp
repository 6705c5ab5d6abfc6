// A kernel's records as Ferry reads them (core/kernelhost/kernelfolder.h, kernelhost.h): the
// keeper's kernel-exit.json said in words for each reason, and the GPUs a kernel uses from the last
// block of its run's system.samples; the idle-GPU rule over a live kernel's samples (kernelidle.h).
#include "common/safefile.h"
#include "kernelhost/kernelfolder.h"
#include "kernelhost/kernelhost.h"
#include "kernelhost/kernelidle.h"
#include "metrics/systemsamples.h"
#include "run/rundirectory.h"

#include "support/testmain.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace ferry::kernels;

namespace {

constexpr qint64 kMinute = 60 * 1000;
constexpr qint64 kT0 = 1'765'000'000'000; // the first sample's wall clock

// Samples of two GPUs every 5 s over [fromMs, toMs), as the sampler writes them (one block each,
// appended): GPU 0 at `gpu0` %, GPU 1 busy at 30 %.
QByteArray samples(qint64 &n, qint64 fromMs, qint64 toMs, const char *gpu0)
{
    const QByteArray header = "index, utilization.gpu [%], memory.used [MiB], power.draw [W]\n";
    QByteArray bytes;
    for (qint64 ms = fromMs; ms < toMs; ms += 5000)
        bytes +=
            ferry::run::systemSampleBlock(n++, ms, 1.0, 1 << 20, header + "0, " + gpu0 + ", 100, 50\n1, 30, 200, 60\n");
    return bytes;
}

} // namespace

class TestKernelRecords : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void endInWords_data()
    {
        QTest::addColumn<QByteArray>("record");
        QTest::addColumn<QString>("text");
        QTest::newRow("oom") << QByteArray(
                                    "{\"reason\": \"out-of-memory\", \"signal\": 9, \"peakMemoryBytes\": 314572800}")
                             << u"the kernel ended: out of memory (peak memory 300 MB)"_s;
        QTest::newRow("signal") << QByteArray("{\"reason\": \"signal\", \"exitCode\": -1, \"signal\": 11}")
                                << u"the kernel ended: killed by signal 11 (SIGSEGV)"_s;
        QTest::newRow("exited") << QByteArray("{\"reason\": \"exited\", \"exitCode\": 3, \"signal\": 0}")
                                << u"the kernel ended: exited with code 3"_s;
        QTest::newRow("time limit") << QByteArray("{\"reason\": \"time-limit\", \"detail\": \"Slurm: TIMEOUT\"}")
                                    << u"the kernel ended: time limit reached; Slurm: TIMEOUT"_s;
        QTest::newRow("idle") << QByteArray("{\"reason\": \"idle\"}")
                              << u"the kernel ended: stopped after being idle"_s;
        QTest::newRow("stopped") << QByteArray("{\"reason\": \"stopped\", \"detail\": \"at Ferry's request\"}")
                                 << u"the kernel ended: stopped"_s;
    }
    void endInWords()
    {
        QFETCH(QByteArray, record);
        QFETCH(QString, text);
        QTemporaryDir dir;
        const KernelFolder folder(dir.path());
        QVERIFY(QDir().mkpath(folder.keeperDir()));
        QFile file(folder.endFile());
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(record);
        file.close();
        const auto end = folder.readEnd();
        QVERIFY(end && *end);
        QCOMPARE(endSentence(**end), text);
    }

    // A kernel whose Slurm job hit its time limit: the keeper, killed with it, wrote "terminated";
    // the run's exit record says why in a word, and that is the kernel's end.
    void theJobsCauseWins()
    {
        QTemporaryDir dir;
        const ferry::run::RunDirectory run(dir.path());
        ferry::run::RunSpec spec;
        spec.id = u"20261207-080000-kernel-0001"_s;
        spec.sourceDir = dir.path();
        spec.target = *ferry::run::TargetSpec::parse(u"slurm:login"_s);
        spec.keeperArguments = {u"run"_s, u"{kernel}"_s};
        QVERIFY(run.writeSpec(spec));
        const KernelFolder folder(dir.path());
        QVERIFY(QDir().mkpath(folder.keeperDir()));
        QFile end(folder.endFile());
        QVERIFY(end.open(QIODevice::WriteOnly));
        end.write("{\"reason\": \"terminated\", \"signal\": 15}");
        end.close();
        QVERIFY(run.writeExit({1, 0, 0, false, u"the job reached its time limit (--time)"_s, u"time-limit"_s}));
        const auto summary = describeKernel(dir.path(), u"ferry"_s);
        QVERIFY(summary);
        QCOMPARE(summary->state, u"dead"_s);
        QCOMPARE(summary->end->reason, u"time-limit"_s);
        QCOMPARE(endSentence(*summary->end),
                 u"the kernel ended: time limit reached; the job reached its time limit (--time)"_s);
    }

    void gpusOfTheLastSample()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(u"system.samples"_s);
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        const QByteArray header = "index, utilization.gpu [%], memory.used [MiB], power.draw [W]\n";
        file.write(ferry::run::systemSampleBlock(0, 1000, 1.0, 1 << 20, header + "0, 10, 100, 50\n1, 20, 200, 60\n"));
        file.write(ferry::run::systemSampleBlock(1, 6000, 2.0, 1 << 20, header + "0, 30, 1000, 50\n1, 50, 3000, 60\n"));
        file.close();
        const auto use = lastGpuUse(path);
        QVERIFY(use);
        QCOMPARE(use->gpus, 2);
        QCOMPARE(use->memoryUsedMiB, 4000.0);
        QCOMPARE(use->utilizationPercent, 40.0);
        QCOMPARE(use->idleMs, qint64(0)); // busy
        QFile none(dir.filePath(u"cpu-only.samples"_s));
        QVERIFY(none.open(QIODevice::WriteOnly));
        none.write(ferry::run::systemSampleBlock(0, 1000, 1.0, 1 << 20, {}));
        none.close();
        QVERIFY(!lastGpuUse(none.fileName()));
        QVERIFY(!lastGpuUse(dir.filePath(u"missing"_s)));
    }

    // How long a kernel's GPUs have all been idle, as `ferry kernel list` says it: the idle-GPU
    // rule's count (a gap restarts it; one GPU busy: not idle).
    void idleTimeOfTheLastSample()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(u"system.samples"_s);
        qint64 n = 0;
        QVERIFY(ferry::appendToFileSafely(path, samples(n, kT0, kT0 + 5 * kMinute, "0")));
        QCOMPARE(lastGpuUse(path)->idleMs, qint64(0)); // GPU 1 busy
        const QByteArray header = "index, utilization.gpu [%], memory.used [MiB], power.draw [W]\n";
        QByteArray idle;
        const qint64 from = kT0 + 7 * kMinute; // after a 2 min gap
        for (qint64 ms = from; ms <= from + 12 * kMinute; ms += 5000)
            idle += ferry::run::systemSampleBlock(n++, ms, 1.0, 1 << 20, header + "0, 0, 100, 50\n1, 0, 200, 60\n");
        QVERIFY(ferry::appendToFileSafely(path, idle));
        QCOMPARE(lastGpuUse(path)->idleMs, 12 * kMinute);
    }

    // The idle-GPU rule (tracking/idlegpu.h, the runs' rule) over a live kernel's system.samples
    // read as they grow: a gap (the sampler stopped) starts the count again, one notification per
    // stretch, a busy sample ends it, a block half written waits, a stretch of the file's past that
    // ended is not said, a kernel that ended is not watched.
    void idleGpuOfAKernel()
    {
        QTemporaryDir dir;
        const QString kernelsDir = dir.path();
        const QString id = u"20261207-071500-kernel-3f2a"_s;
        const QString folder = KernelFolder::pathFor(kernelsDir, id);
        QVERIFY(QDir().mkpath(folder));
        const QString file = ferry::run::RunDirectory(folder).systemSamplesFile();
        const auto append = [&](const QByteArray &bytes) { return bool(ferry::appendToFileSafely(file, bytes)); };
        qint64 n = 0;
        KernelIdleWatch watch(15 * kMinute);
        QVERIFY(watch.poll(kernelsDir).isEmpty()); // no samples yet

        // 10 min at 0 %, 2 min without samples, 10 min at 0 %: 22 min, but only 10 since the gap.
        QVERIFY(append(samples(n, kT0, kT0 + 10 * kMinute, "0")));
        const qint64 afterGap = kT0 + 12 * kMinute;
        QVERIFY(append(samples(n, afterGap, afterGap + 10 * kMinute, "0")));
        QVERIFY(watch.poll(kernelsDir).isEmpty());
        // 5 min more, the last block half written: not yet; once whole, 15 min since the gap.
        QByteArray more = samples(n, afterGap + 10 * kMinute, afterGap + 15 * kMinute + 5000, "0");
        const qsizetype half = more.size() - 20;
        QVERIFY(append(more.first(half)));
        QVERIFY(watch.poll(kernelsDir).isEmpty());
        QVERIFY(append(more.sliced(half)));
        auto idle = watch.poll(kernelsDir);
        QCOMPARE(idle.size(), 1);
        QCOMPARE(idle[0].kernelId, id);
        QCOMPARE(idle[0].folder, folder);
        QCOMPARE(idle[0].gpu, 0);
        QCOMPARE(idle[0].sinceMs, afterGap);
        // Still idle: said once per stretch.
        qint64 t = afterGap + 15 * kMinute + 10000;
        QVERIFY(append(samples(n, t, t + 5 * kMinute, "0")));
        QVERIFY(watch.poll(kernelsDir).isEmpty());
        // Busy once, then idle again for 15 min: a new stretch, said again; "[N/A]" ends one too.
        t += 5 * kMinute;
        QVERIFY(append(samples(n, t, t + 5000, "40")));
        QVERIFY(append(samples(n, t + 5000, t + 10000, "[N/A]")));
        const qint64 second = t + 10000;
        QVERIFY(append(samples(n, second, second + 15 * kMinute + 5000, "0")));
        idle = watch.poll(kernelsDir);
        QCOMPARE(idle.size(), 1);
        QCOMPARE(idle[0].sinceMs, second);

        // A new watch (the window opened later) over a file whose idle stretch has since ended:
        // nothing; over the one above, whose stretch goes on: said.
        const QString other = u"20261207-081500-kernel-77aa"_s;
        QVERIFY(QDir().mkpath(KernelFolder::pathFor(kernelsDir, other)));
        qint64 m = 0;
        const QString otherFile =
            ferry::run::RunDirectory(KernelFolder::pathFor(kernelsDir, other)).systemSamplesFile();
        QVERIFY(ferry::appendToFileSafely(otherFile, samples(m, kT0, kT0 + 20 * kMinute, "0")));
        QVERIFY(ferry::appendToFileSafely(otherFile, samples(m, kT0 + 20 * kMinute, kT0 + 21 * kMinute, "75")));
        KernelIdleWatch later(15 * kMinute);
        idle = later.poll(kernelsDir);
        QCOMPARE(idle.size(), 1);
        QCOMPARE(idle[0].kernelId, id);
        QCOMPARE(idle[0].sinceMs, second);

        // The kernel ended (its keeper's record): no longer watched, whatever its samples say.
        QFile end(KernelFolder(folder).endFile());
        QVERIFY(QDir().mkpath(QFileInfo(end.fileName()).path()));
        QVERIFY(end.open(QIODevice::WriteOnly));
        end.write("{\"reason\": \"stopped\"}");
        end.close();
        KernelIdleWatch afterEnd(15 * kMinute);
        QVERIFY(afterEnd.poll(kernelsDir).isEmpty());
    }
};

FERRY_TEST_GUILESS_MAIN(TestKernelRecords)
#include "tst_kernelrecords.moc"
