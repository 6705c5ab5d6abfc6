// The nvidia-smi CSV parser on recorded outputs: no GPU, one, several, and garbage.
#include "metrics/systemsamples.h"
#include "support/testmain.h"
#include "targets/gpuinfo.h"

#include <QTest>

#include <cmath>

using namespace Qt::StringLiterals;
using ferry::run::parseNvidiaSmiSamples;
using ferry::targets::GpuInfo;
using ferry::targets::parseNvidiaSmi;

Q_DECLARE_METATYPE(QList<GpuInfo>)

class TestGpuInfo : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void parses_data()
    {
        QTest::addColumn<QByteArray>("output");
        QTest::addColumn<QList<GpuInfo>>("gpus");
        QTest::newRow("nothing (no nvidia-smi output)") << QByteArray() << QList<GpuInfo>{};
        QTest::newRow("driver without GPU") << QByteArray("No devices were found\n") << QList<GpuInfo>{};
        QTest::newRow("one A100") << QByteArray("NVIDIA A100-SXM4-80GB, 81920 MiB, 535.104.05\n")
                                  << QList<GpuInfo>{{u"NVIDIA A100-SXM4-80GB"_s, 81920, u"535.104.05"_s}};
        QTest::newRow("eight H100, CRLF")
            << QByteArray("NVIDIA H100 80GB HBM3, 81559 MiB, 550.54.15\r\n").repeated(8)
            << QList<GpuInfo>(8, GpuInfo{u"NVIDIA H100 80GB HBM3"_s, 81559, u"550.54.15"_s});
        QTest::newRow("mixed, blank lines")
            << QByteArray("\nTesla T4, 15360 MiB, 470.82.01\nNVIDIA GeForce RTX 3090, 24576 MiB, 470.82.01\n\n")
            << QList<GpuInfo>{{u"Tesla T4"_s, 15360, u"470.82.01"_s},
                              {u"NVIDIA GeForce RTX 3090"_s, 24576, u"470.82.01"_s}};
        QTest::newRow("a comma in the name")
            << QByteArray("Odd, GPU, 1024 MiB, 1.0\n") << QList<GpuInfo>{{u"Odd, GPU"_s, 1024, u"1.0"_s}};
    }
    void parses()
    {
        QFETCH(QByteArray, output);
        QFETCH(QList<GpuInfo>, gpus);
        const auto parsed = parseNvidiaSmi(output);
        QVERIFY2(parsed, qPrintable(parsed ? QString() : parsed.error().toString()));
        QCOMPARE(*parsed, gpus);
    }

    void refusesGarbage_data()
    {
        QTest::addColumn<QByteArray>("output");
        QTest::addColumn<QString>("message");
        QTest::newRow("driver failure")
            << QByteArray("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n")
            << u"line 1"_s;
        QTest::newRow("no memory size") << QByteArray("Tesla T4, lots, 470.82.01\n") << u"no memory size"_s;
        QTest::newRow("second line cut") << QByteArray("Tesla T4, 15360 MiB, 470.82.01\nTesla T4, 153\n")
                                         << u"line 2"_s;
        QTest::newRow("empty driver") << QByteArray("Tesla T4, 15360 MiB, \n") << u"an empty field"_s;
    }
    void refusesGarbage()
    {
        QFETCH(QByteArray, output);
        QFETCH(QString, message);
        const auto parsed = parseNvidiaSmi(output);
        QVERIFY(!parsed);
        QVERIFY2(parsed.error().message.contains(message), qPrintable(parsed.error().message));
        QVERIFY(!parsed.error().hint.isEmpty());
    }

    // The sampling query's output, found by header name: any column order, [N/A] read as NaN.
    void samplesByHeaderName()
    {
        const QByteArray two = "index, utilization.gpu [%], memory.used [MiB], power.draw [W]\n"
                               "0, 97, 40211, 312.45\r\n"
                               "1, 0, 3, [N/A]\n";
        const auto parsed = parseNvidiaSmiSamples(two);
        QVERIFY2(parsed, qPrintable(parsed ? QString() : parsed.error().toString()));
        QCOMPARE(parsed->size(), 2);
        QCOMPARE(parsed->at(0).index, 0);
        QCOMPARE(parsed->at(0).utilizationPercent, 97.0);
        QCOMPARE(parsed->at(0).memoryUsedMiB, 40211.0);
        QCOMPARE(parsed->at(0).powerWatts, 312.45);
        QCOMPARE(parsed->at(1).index, 1);
        QVERIFY(std::isnan(parsed->at(1).powerWatts));

        const auto reordered = parseNvidiaSmiSamples("power.draw [W], memory.used [MiB], index, utilization.gpu [%], "
                                                     "name\n[Not Supported], 512, 3, 12, Tesla T4\n");
        QVERIFY2(reordered, qPrintable(reordered ? QString() : reordered.error().toString()));
        QCOMPARE(reordered->size(), 1);
        QCOMPARE(reordered->at(0).index, 3);
        QCOMPARE(reordered->at(0).utilizationPercent, 12.0);
        QCOMPARE(reordered->at(0).memoryUsedMiB, 512.0);
        QVERIFY(std::isnan(reordered->at(0).powerWatts));

        QVERIFY(parseNvidiaSmiSamples({})->isEmpty());
        QVERIFY(parseNvidiaSmiSamples("No devices were found\n")->isEmpty());
        QVERIFY(parseNvidiaSmiSamples("index, utilization.gpu [%], memory.used [MiB], power.draw [W]\n")->isEmpty());
        QCOMPARE(ferry::run::nvidiaSmiSampleQuery().last(), u"--format=csv,nounits"_s);
    }

    void samplesRefuseGarbage_data()
    {
        QTest::addColumn<QByteArray>("output");
        QTest::addColumn<QString>("message");
        QTest::newRow("driver failure")
            << QByteArray("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n")
            << u"line 1: not the query's header"_s;
        QTest::newRow("a column missing")
            << QByteArray("index, utilization.gpu [%], memory.used [MiB]\n0, 5, 10\n") << u"no column power.draw"_s;
        QTest::newRow("a line cut") << QByteArray(
                                           "index, utilization.gpu [%], memory.used [MiB], power.draw [W]\n0, 5\n")
                                    << u"line 2"_s;
        QTest::newRow("not a number")
            << QByteArray("index, utilization.gpu [%], memory.used [MiB], power.draw [W]\n0, lots, 1, 2\n")
            << u"utilization.gpu is not a number"_s;
    }
    void samplesRefuseGarbage()
    {
        QFETCH(QByteArray, output);
        QFETCH(QString, message);
        const auto parsed = parseNvidiaSmiSamples(output);
        QVERIFY(!parsed);
        QVERIFY2(parsed.error().message.contains(message), qPrintable(parsed.error().message));
    }
};

FERRY_TEST_APPLESS_MAIN(TestGpuInfo)
#include "tst_gpuinfo.moc"
