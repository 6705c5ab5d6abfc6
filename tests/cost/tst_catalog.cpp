// The price catalog (cost/catalog.h): the shipped files read whole and dated, SkyPilot's own layout
// read, and every malformed row refused with its file and line while the good rows are kept.
#include "cost/catalog.h"
#include "support/files.h"
#include "support/testmain.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using ferry::cost::CatalogRead;
using ferry::cost::parseCatalog;

namespace {

const QByteArray kCatalogHeader =
    "InstanceType,vCPUs,MemoryGiB,AcceleratorName,AcceleratorCount,Region,Price,SpotPrice,Date,Source\n";
const QByteArray kCatalogGoodRow = "g5.xlarge,4,16,A10G,1,us-east-1,1.006,0.4177,2026-12-07,https://example.com/p\n";

QString firstLineOf(const ferry::Diagnostics &diagnostics)
{
    return diagnostics.isEmpty() ? QString() : diagnostics.first().toString().section(u'\n', 0, 0);
}

} // namespace

class TestCatalog : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // Every shipped row reads, each cloud has a dozen or more GPU instances, every price is dated
    // and names its public page.
    void shippedCatalogsReadWholeAndDated()
    {
        QTemporaryDir none; // no user catalogs: the shipped ones
        const ferry::cost::PriceCatalog catalog = ferry::cost::loadPriceCatalog(none.path());
        QVERIFY2(catalog.diagnostics.isEmpty(), qPrintable(firstLineOf(catalog.diagnostics)));
        for (const QString &cloud : ferry::cost::catalogClouds()) {
            int rows = 0;
            for (const ferry::cost::CatalogEntry &e : catalog.entries) {
                if (e.cloud != cloud)
                    continue;
                ++rows;
                QVERIFY2(e.date.isValid(), qPrintable(e.instanceType));
                QVERIFY2(e.source.startsWith(u"https://"_s), qPrintable(e.instanceType));
                QVERIFY2(e.price && *e.price > 0, qPrintable(e.instanceType));
                QVERIFY2(e.acceleratorCount >= 1 && !e.acceleratorName.isEmpty(), qPrintable(e.instanceType));
                QCOMPARE(e.file, ferry::cost::shippedCatalogName(cloud));
            }
            QVERIFY2(rows >= 12, qPrintable(u"%1: %2 rows"_s.arg(cloud).arg(rows)));
        }
        // SageMaker's own prices, not EC2's: what a SageMaker hand-off's money cap is priced at.
        const ferry::cost::CatalogEntry *g5 = catalog.find(u"sagemaker"_s, u"ml.g5.xlarge"_s);
        QVERIFY(g5);
        QCOMPARE(*g5->price, 1.408);
        QVERIFY(g5->source.startsWith(u"https://aws.amazon.com/sagemaker/pricing"_s));
        const ferry::cost::CatalogEntry *p3 = catalog.find(u"aws"_s, u"p3.2xlarge"_s, u"us-east-1"_s);
        QVERIFY(p3);
        QCOMPARE(*p3->price, 3.06);
        QCOMPARE(p3->dateText(), u"2026-12-07"_s);
    }

    // What is compiled in is the file in resources/ (a build that went stale would differ).
    void compiledInIsTheResourcesFile()
    {
        QTemporaryDir none;
        const ferry::cost::PriceCatalog shipped = ferry::cost::loadPriceCatalog(none.path());
        for (const QString &cloud : ferry::cost::catalogClouds()) {
            const QString path = QStringLiteral(FERRY_SOURCE_DIR "/resources/catalog/") + cloud + u".csv"_s;
            const CatalogRead file = parseCatalog(ferry::test::readFile(path), path, cloud);
            QVERIFY(file.diagnostics.isEmpty());
            QStringList fromFile, compiled;
            for (const auto &e : file.entries)
                fromFile << e.instanceType + u'@' + e.region + u'=' + QString::number(*e.price);
            for (const auto &e : shipped.entries) {
                if (e.cloud == cloud)
                    compiled << e.instanceType + u'@' + e.region + u'=' + QString::number(*e.price);
            }
            QCOMPARE(compiled, fromFile);
        }
    }

    void malformedRowIsRefusedWithFileAndLine_data()
    {
        QTest::addColumn<QByteArray>("row");
        QTest::addColumn<QString>("said");
        QTest::newRow("too few fields") << QByteArray("p3.2xlarge,8,61,V100,1,us-east-1,3.06\n") << u"7 fields"_s;
        QTest::newRow("too many fields") << QByteArray("p3.2xlarge,8,61,V100,1,us-east-1,3.06,,2026-12-07,x,y\n")
                                         << u"11 fields"_s;
        QTest::newRow("price not a number")
            << QByteArray("p3.2xlarge,8,61,V100,1,us-east-1,three,,2026-12-07,x\n") << u"Price 'three'"_s;
        QTest::newRow("negative price") << QByteArray("p3.2xlarge,8,61,V100,1,us-east-1,-3.06,,2026-12-07,x\n")
                                        << u"Price '-3.06'"_s;
        QTest::newRow("nan") << QByteArray("p3.2xlarge,8,61,V100,1,us-east-1,nan,,2026-12-07,x\n") << u"Price 'nan'"_s;
        QTest::newRow("infinite") << QByteArray("p3.2xlarge,8,61,V100,1,us-east-1,inf,,2026-12-07,x\n")
                                  << u"Price 'inf'"_s;
        QTest::newRow("beyond bound") << QByteArray("p3.2xlarge,8,61,V100,1,us-east-1,1e300,,2026-12-07,x\n")
                                      << u"Price '1e300'"_s;
        QTest::newRow("spot price words")
            << QByteArray("p3.2xlarge,8,61,V100,1,us-east-1,3.06,cheap,2026-12-07,x\n") << u"SpotPrice 'cheap'"_s;
        QTest::newRow("gpu count") << QByteArray("p3.2xlarge,8,61,V100,one,us-east-1,3.06,,2026-12-07,x\n")
                                   << u"AcceleratorCount 'one'"_s;
        QTest::newRow("no instance type")
            << QByteArray(",8,61,V100,1,us-east-1,3.06,,2026-12-07,x\n") << u"no InstanceType"_s;
        QTest::newRow("control character") << QByteArray("p3.2xlarge,8,61,V100,1,us-\x1b[2Jeast-1,3.06,,2026-12-07,x\n")
                                           << u"Region holds the control character U+001B"_s;
        QTest::newRow("bad date") << QByteArray("p3.2xlarge,8,61,V100,1,us-east-1,3.06,,2026-13-01,x\n")
                                  << u"Date '2026-13-01'"_s;
        QTest::newRow("long field") << QByteArray("p3.2xlarge,8,61,V100,1,us-east-1,3.06,,2026-12-07,") +
                                           QByteArray(600, 'x') + "\n"
                                    << u"Source is longer than 512"_s;
    }
    // The bad row is left out and said at line 4 (a comment, the header, a good row before it);
    // the good rows on either side are kept.
    void malformedRowIsRefusedWithFileAndLine()
    {
        QFETCH(QByteArray, row);
        QFETCH(QString, said);
        const QByteArray text = "# date: 2026-12-01\n" + kCatalogHeader + kCatalogGoodRow + row + kCatalogGoodRow;
        const CatalogRead read = parseCatalog(text, u"/tmp/aws.csv"_s, u"aws"_s);
        QCOMPARE(read.entries.size(), 2);
        QCOMPARE(read.diagnostics.size(), 1);
        const ferry::Error &e = read.diagnostics.first().where;
        QCOMPARE(e.path, u"/tmp/aws.csv"_s);
        QCOMPARE(e.line, 4);
        QVERIFY2(e.message.startsWith(u"malformed row: "_s) && e.message.contains(said), qPrintable(e.message));
        QCOMPARE(read.entries.last().line, 5);
    }

    // A quote never closed: nothing after it can be read as rows; the rows before are kept.
    void unclosedQuoteStopsAtItsLine()
    {
        const QByteArray text =
            kCatalogHeader + kCatalogGoodRow + "p3.2xlarge,8,61,\"V100,1,us-east-1,3.06,,,\n" + kCatalogGoodRow;
        const CatalogRead read = parseCatalog(text, u"c.csv"_s, u"aws"_s);
        QCOMPARE(read.entries.size(), 1);
        QCOMPARE(read.diagnostics.size(), 1);
        QCOMPARE(read.diagnostics.first().where.line, 3);
        QVERIFY(read.diagnostics.first().where.message.contains(u"never closed"_s));
    }

    void headerWithoutAColumnIsRefusedWhole()
    {
        const QByteArray text = "InstanceType,vCPUs,MemoryGiB,AcceleratorName,AcceleratorCount,Region,SpotPrice\n"
                                "g5.xlarge,4,16,A10G,1,us-east-1,0.4\n";
        const CatalogRead read = parseCatalog(text, u"c.csv"_s, u"aws"_s);
        QVERIFY(read.entries.isEmpty());
        QCOMPARE(read.diagnostics.size(), 1);
        QCOMPARE(read.diagnostics.first().where.line, 1);
        QVERIFY(read.diagnostics.first().where.message.contains(u"Price"_s));
        QVERIFY(!parseCatalog(QByteArray("# only a comment\n\n"), u"c.csv"_s, u"aws"_s).diagnostics.isEmpty());
    }

    // SkyPilot's own vms.csv (v7): its columns in its order, GpuInfo quoted with commas inside,
    // empty prices unknown (not 0), no dates (undated).
    void skyPilotsLayoutReads()
    {
        const QByteArray text =
            "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,"
            "AvailabilityZone\r\n"
            "p3.2xlarge,V100,1.0,8.0,61.0,\"{'Gpus': [{'Name': 'V100', 'Count': 1}], 'Total': 16384}\",3.06,0.5197,"
            "us-east-1,use1-az1\r\n"
            "p5e.48xlarge,H200,8.0,192.0,2048.0,\"{'Gpus': [{'Name': 'H200'}]}\",,,eu-north-1,eun1-az1\r\n";
        const CatalogRead read = parseCatalog(text, u"vms.csv"_s, u"aws"_s);
        QVERIFY2(read.diagnostics.isEmpty(), qPrintable(firstLineOf(read.diagnostics)));
        QCOMPARE(read.entries.size(), 2);
        QCOMPARE(read.entries[0].acceleratorName, u"V100"_s);
        QCOMPARE(read.entries[0].vcpus, 8.0);
        QCOMPARE(*read.entries[0].spotPrice, 0.5197);
        QCOMPARE(read.entries[0].dateText(), u"undated"_s);
        QVERIFY(!read.entries[1].price.has_value());
        QCOMPARE(read.entries[1].line, 3);
    }

    // A newer catalog the user puts in their folder replaces that cloud's shipped one; its bad
    // rows are said at its own path and line, the other clouds stay as shipped.
    void aUserCatalogReplacesTheShippedOne()
    {
        QTemporaryDir dir;
        const QString own = dir.filePath(u"aws.csv"_s);
        QVERIFY(ferry::test::writeFile(own, kCatalogHeader + kCatalogGoodRow + "bad,row\n"));
        const ferry::cost::PriceCatalog catalog = ferry::cost::loadPriceCatalog(dir.path());
        QCOMPARE(catalog.diagnostics.size(), 1);
        QCOMPARE(catalog.diagnostics.first().where.path, own);
        QCOMPARE(catalog.diagnostics.first().where.line, 3);
        int aws = 0, azure = 0;
        for (const auto &e : catalog.entries) {
            aws += e.cloud == u"aws"_s;
            azure += e.cloud == u"azure"_s;
        }
        QCOMPARE(aws, 1);
        QVERIFY(azure >= 12);
        QVERIFY(catalog.find(u"aws"_s, u"g5.xlarge"_s)->source.contains(u"example.com"_s));
    }

    // A file past the bound is refused before it is read; one that is not text too.
    void oversizedOrBinaryUserCatalogIsRefused()
    {
        QTemporaryDir dir;
        QFile big(dir.filePath(u"gcp.csv"_s));
        QVERIFY(big.open(QIODevice::WriteOnly));
        QVERIFY(big.resize(ferry::cost::kCatalogMaxBytes + 1)); // sparse: no 32 MB written
        big.close();
        QVERIFY(ferry::test::writeFile(dir.filePath(u"azure.csv"_s), QByteArray("Instance\0Type", 13)));
        const ferry::cost::PriceCatalog catalog = ferry::cost::loadPriceCatalog(dir.path());
        QCOMPARE(catalog.diagnostics.size(), 2);
        for (const auto &e : catalog.entries) // the shipped aws and sagemaker catalogs remain
            QVERIFY2(e.cloud == u"aws"_s || e.cloud == u"sagemaker"_s, qPrintable(e.cloud));
    }

    // Thousands of bad rows are counted, not each said.
    void manyMalformedRowsAreCounted()
    {
        QByteArray text = kCatalogHeader;
        for (int i = 0; i < 1000; ++i)
            text += "x,1\n";
        const CatalogRead read = parseCatalog(text, u"c.csv"_s, u"aws"_s);
        QCOMPARE(read.diagnostics.size(), 21);
        QVERIFY(read.diagnostics.last().where.message.contains(u"980 more"_s));
    }
};

FERRY_TEST_APPLESS_MAIN(TestCatalog)
#include "tst_catalog.moc"
