// A run's system metrics (metrics/systemsamples.h): the blocks the supervisor and the remote
// runners write, read into system/ metrics (CPU % from two samples, nvidia-smi's columns by
// name, a block being written waits), and a real process group's CPU time and memory.
#include "metrics/systemsamples.h"
#include "support/testmain.h"

#include <QElapsedTimer>
#include <QTest>

#include <cmath>
#include <csignal>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace Qt::StringLiterals;
using namespace ferry::run;

namespace {

const QByteArray kSmi = "index, utilization.gpu [%], memory.used [MiB], power.draw [W]\n"
                        "0, 87, 30512, 251.43\n"
                        "1, 12, 1024, [N/A]\n";

double valueOf(const QList<MetricPoint> &points, const QString &name)
{
    for (const MetricPoint &p : points) {
        if (p.name == name)
            return p.value;
    }
    return -1;
}

} // namespace

class TestSystemSamples : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void blocksBecomeSystemMetrics()
    {
        const QByteArray file = systemSampleBlock(0, 10000, 2.0, 512ll << 20, kSmi) +
                                systemSampleBlock(1, 15000, 9.5, 768ll << 20, {}) + // nvidia-smi failed this once
                                systemSampleBlock(2, 20000, 12.0, 1ll << 30, kSmi);
        SystemSamplesReader reader;
        // In pieces: a block waits for its "end" line.
        QList<MetricPoint> points;
        for (qsizetype at = 0; at < file.size(); at += 7) {
            points << reader.feed(QByteArrayView(file).sliced(
                reader.bytesRead(), std::min<qsizetype>(file.size(), at + 7) - reader.bytesRead()));
        }
        QCOMPARE(reader.bytesRead(), file.size());
        QList<MetricPoint> first, second, third;
        for (const MetricPoint &p : points)
            (p.step == 0 ? first : p.step == 1 ? second : third) << p;
        QCOMPARE(valueOf(first, u"system/cpu_percent"_s), -1.0); // one sample gives no rate
        QCOMPARE(valueOf(first, u"system/memory_rss_mib"_s), 512.0);
        QCOMPARE(valueOf(first, u"system/gpu0/utilization_percent"_s), 87.0);
        QCOMPARE(valueOf(first, u"system/gpu0/memory_used_mib"_s), 30512.0);
        QVERIFY(std::isnan(valueOf(first, u"system/gpu1/power_watts"_s)));
        QCOMPARE(valueOf(second, u"system/cpu_percent"_s), 150.0); // 7.5 CPU s in 5 s: one and a half cores
        QCOMPARE(valueOf(second, u"system/gpu0/utilization_percent"_s), -1.0);
        QCOMPARE(valueOf(third, u"system/cpu_percent"_s), 50.0);
        QCOMPARE(third.first().wallMs, 20000);
        // A garbled block is skipped, the next one read.
        SystemSamplesReader again;
        const QByteArray garbled = QByteArray("sample x y\nend\n") + systemSampleBlock(5, 1, 0, 1 << 20, {});
        const QList<MetricPoint> after = again.feed(garbled);
        QCOMPARE(after.size(), 1);
        QCOMPARE(after.first().step, 5.0);
    }

    void aProcessGroupsUsageIsMeasured()
    {
        // A busy child in a group of its own, as the supervisor starts the script.
        posix_spawnattr_t attr;
        posix_spawnattr_init(&attr);
        posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
        posix_spawnattr_setpgroup(&attr, 0);
        char python[] = "/usr/bin/python3";
        char dashC[] = "-c";
        char busy[] = "import time\nx = bytearray(64 << 20)\nt = time.time()\nwhile time.time() - t < 20: pass";
        char *argv[] = {python, dashC, busy, nullptr};
        pid_t pid = 0;
        QCOMPARE(posix_spawn(&pid, python, nullptr, &attr, argv, environ), 0);
        posix_spawnattr_destroy(&attr);
        QElapsedTimer clock;
        clock.start();
        ProcessGroupUsage usage;
        while (clock.elapsed() < 15000 && (usage.cpuSeconds < 0.5 || usage.rssBytes < (64ll << 20))) {
            QTest::qWait(100);
            usage = processGroupUsage(pid);
        }
        ::kill(pid, SIGKILL);
        ::waitpid(pid, nullptr, 0);
        QCOMPARE(usage.processes, 1);
        QVERIFY2(usage.cpuSeconds >= 0.5, qPrintable(QString::number(usage.cpuSeconds)));
        QVERIFY2(usage.rssBytes >= (64ll << 20), qPrintable(QString::number(usage.rssBytes)));
        QCOMPARE(processGroupUsage(pid).processes, 0); // gone
    }
};

FERRY_TEST_GUILESS_MAIN(TestSystemSamples)
#include "tst_systemsamples.moc"
