// A kernel's records as Ferry reads them (core/kernelhost/kernelfolder.h, kernelhost.h): the
// keeper's kernel-exit.json said in words for each reason, and the GPUs a kernel uses from the last
// block of its run's system.samples.
#include "kernelhost/kernelfolder.h"
#include "kernelhost/kernelhost.h"
#include "metrics/systemsamples.h"
#include "run/rundirectory.h"

#include "support/testmain.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace ferry::kernels;

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
        QFile none(dir.filePath(u"cpu-only.samples"_s));
        QVERIFY(none.open(QIODevice::WriteOnly));
        none.write(ferry::run::systemSampleBlock(0, 1000, 1.0, 1 << 20, {}));
        none.close();
        QVERIFY(!lastGpuUse(none.fileName()));
        QVERIFY(!lastGpuUse(dir.filePath(u"missing"_s)));
    }
};

FERRY_TEST_GUILESS_MAIN(TestKernelRecords)
#include "tst_kernelrecords.moc"
