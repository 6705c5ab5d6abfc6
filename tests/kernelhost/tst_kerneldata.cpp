// Data dropped on a notebook's cell, as its kernel reaches it (core/kernelhost/kerneldata.h): in a
// data channel through the contract's SM_CHANNEL_ variable on every target, under the working
// folder by its relative path, elsewhere on this machine by its absolute path, and refused (with
// the way to give it) on a target that cannot see it; the loading code of each dataset kind is
// Python that compiles (checked by Python itself).
#include "kernelhost/kerneldata.h"

#include "support/files.h"
#include "support/process.h"
#include "support/testmain.h"

#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;

class TestKernelData : public QObject {
    Q_OBJECT

    static ferry::run::RunSpec spec(const QString &target, const QString &source)
    {
        ferry::run::RunSpec s;
        s.target = *ferry::run::TargetSpec::parse(target);
        s.sourceDir = source;
        s.channels = {{u"training"_s, u"/data/mnist"_s}};
        return s;
    }

    static void compiles(const QString &code)
    {
        const auto compiled = ferry::test::runCommand(
            u"/usr/bin/python3"_s, {u"-c"_s, u"import sys; compile(sys.stdin.read(), 'cell', 'exec')"_s}, {},
            code.toUtf8());
        QVERIFY2(compiled.code == 0, qPrintable(code + u"\n"_s + QString::fromUtf8(compiled.err)));
    }

private Q_SLOTS:
    void whereTheKernelSeesIt()
    {
        for (const QString &target : {u"local"_s, u"container"_s, u"ssh:gpu1"_s, u"slurm:login"_s}) {
            const ferry::run::RunSpec s = spec(target, u"/home/me/project"_s);
            QCOMPARE(*ferry::kernels::kernelPathExpression(s, u"/data/mnist/train.idx"_s),
                     u"os.path.join(os.environ[\"SM_CHANNEL_TRAINING\"], \"train.idx\")"_s);
            QCOMPARE(*ferry::kernels::kernelPathExpression(s, u"/data/mnist"_s),
                     u"os.environ[\"SM_CHANNEL_TRAINING\"]"_s);
            QCOMPARE(*ferry::kernels::kernelPathExpression(s, u"/home/me/project/data/iris \"a\".csv"_s),
                     target == u"local"_s ? u"\"/home/me/project/data/iris \\\"a\\\".csv\""_s
                                          : u"\"data/iris \\\"a\\\".csv\""_s);
            const auto outside = ferry::kernels::kernelPathExpression(s, u"/srv/other.csv"_s);
            if (target == u"local"_s) {
                QCOMPARE(*outside, u"\"/srv/other.csv\""_s);
            } else {
                QVERIFY(!outside);
                QVERIFY2(outside.error().hint.contains(u"--data"_s), qPrintable(outside.error().toString()));
            }
        }
        // Not fooled by a common prefix: /home/me/project2 is not under /home/me/project.
        QVERIFY(!ferry::kernels::kernelPathExpression(spec(u"container"_s, u"/home/me/project"_s),
                                                      u"/home/me/project2/a.csv"_s));
    }

    void loadingCodeCompiles()
    {
        ferry::data::DatasetInfo table;
        table.kind = ferry::data::DatasetKind::Table;
        table.format = u"tsv"_s;
        table.path = u"/x/2019 Sales-data.tsv"_s;
        const QString tableCode = ferry::kernels::datasetLoadingCode(table, u"\"data/sales.tsv\""_s);
        QVERIFY2(tableCode.contains(u"pd.read_csv(\"data/sales.tsv\", sep=\"\\t\")"_s), qPrintable(tableCode));
        QVERIFY(tableCode.contains(u"df = "_s)); // "2019..." is no Python name
        compiles(tableCode);
        ferry::data::DatasetInfo images;
        images.kind = ferry::data::DatasetKind::ImageFolder;
        images.path = u"/x/pets"_s;
        const QString imageCode = ferry::kernels::datasetLoadingCode(
            images, u"os.path.join(os.environ[\"SM_CHANNEL_TRAINING\"], \"pets\")"_s);
        QVERIFY(imageCode.startsWith(u"import os\n"_s));
        QVERIFY(imageCode.contains(u"pets = "_s));
        compiles(imageCode);
        ferry::data::DatasetInfo idx;
        idx.kind = ferry::data::DatasetKind::Idx;
        idx.path = u"/x/train-images-idx3-ubyte"_s;
        compiles(ferry::kernels::datasetLoadingCode(idx, u"\"train-images-idx3-ubyte\""_s));
    }
};

FERRY_TEST_GUILESS_MAIN(TestKernelData)
#include "tst_kerneldata.moc"
