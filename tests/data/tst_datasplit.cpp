// Train/validation splits and standardisation (core/data/dataset.cpp): the same split on every
// machine for a seed, statistics from the training rows only.
#include "data/dataset.h"
#include "support/testmain.h"

#include <QTest>

#include <algorithm>
#include <cmath>
#include <limits>

using namespace Qt::StringLiterals;
using namespace ferry::data;

namespace {

constexpr float missing = std::numeric_limits<float>::quiet_NaN();

Dataset table(int features, const std::vector<float> &x)
{
    Dataset data;
    data.kind = DatasetKind::Table;
    data.shape = {features};
    data.x = x;
    data.count = qsizetype(x.size()) / features;
    return data;
}

} // namespace

class TestDataSplit : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void names()
    {
        QCOMPARE(kindName(DatasetKind::Table), u"table"_s);
        QCOMPARE(kindName(DatasetKind::ImageFolder), u"image-folder"_s);
        QCOMPARE(kindName(DatasetKind::Idx), u"idx"_s);
        QCOMPARE(taskName(Task::Classification), u"classification"_s);
        QCOMPARE(taskName(Task::Regression), u"regression"_s);
    }

    void sameSeedSameSplit()
    {
        const Split a = splitIndices(100, 0.2, 42);
        const Split b = splitIndices(100, 0.2, 42);
        QCOMPARE(a.train, b.train);
        QCOMPARE(a.validation, b.validation);
        QCOMPARE(a.train.size(), size_t(80));
        QCOMPARE(a.validation.size(), size_t(20));
        std::vector<qsizetype> all = a.train;
        all.insert(all.end(), a.validation.begin(), a.validation.end());
        std::sort(all.begin(), all.end());
        for (qsizetype i = 0; i < 100; ++i)
            QCOMPARE(all[size_t(i)], i);                          // every sample once
        QVERIFY(!std::is_sorted(a.train.begin(), a.train.end())); // shuffled
    }

    void differentSeedDifferentSplit()
    {
        const Split a = splitIndices(100, 0.2, 1);
        const Split b = splitIndices(100, 0.2, 2);
        QVERIFY(a.validation != b.validation);
    }

    // The split is Fisher–Yates over std::mt19937_64 (whose sequence the standard fixes) with
    // a bounded draw of Ferry's own: these values are the same with any compiler or library
    // (checked against an independent Python implementation of MT19937-64).
    void pinnedSequence()
    {
        const Split split = splitIndices(10, 0.3, 2024);
        QCOMPARE(split.validation, std::vector<qsizetype>({1, 3, 6}));
        QCOMPARE(split.train, std::vector<qsizetype>({0, 2, 8, 7, 5, 9, 4}));
    }

    void fractions_data()
    {
        QTest::addColumn<qsizetype>("count");
        QTest::addColumn<double>("fraction");
        QTest::addColumn<int>("train");
        QTest::addColumn<int>("validation");
        QTest::newRow("none") << qsizetype(10) << 0.0 << 10 << 0;
        QTest::newRow("rounded") << qsizetype(100) << 0.29 << 71 << 29;
        QTest::newRow("nearly all") << qsizetype(5) << 0.999 << 1 << 4;
        QTest::newRow("all asked") << qsizetype(5) << 1.0 << 1 << 4;
        QTest::newRow("negative") << qsizetype(5) << -0.5 << 5 << 0;
        QTest::newRow("not a number") << qsizetype(5) << std::nan("") << 5 << 0;
        QTest::newRow("one sample") << qsizetype(1) << 0.5 << 1 << 0;
        QTest::newRow("no samples") << qsizetype(0) << 0.5 << 0 << 0;
    }
    void fractions()
    {
        QFETCH(qsizetype, count);
        QFETCH(double, fraction);
        QFETCH(int, train);
        QFETCH(int, validation);
        const Split split = splitIndices(count, fraction, 7);
        QCOMPARE(int(split.train.size()), train);
        QCOMPARE(int(split.validation.size()), validation);
    }

    void trainRowsOnly()
    {
        Dataset data = table(2, {1, 10, 3, 30, 1000, -5, 1000, 7});
        const Normalization n = computeNormalization(data, {0, 1});
        QCOMPARE(n.mean, std::vector<float>({2, 20}));
        QCOMPARE(n.std, std::vector<float>({1, 10}));
        // The validation rows (2, 3) may hold anything: the statistics do not move.
        data.x[4] = -1e6f;
        data.x[7] = 123;
        QCOMPARE(computeNormalization(data, {0, 1}), n);
        QVERIFY(!(computeNormalization(data, {0, 1, 2}) == n));

        applyNormalization(data, n);
        QCOMPARE(data.x[0], -1.0f);
        QCOMPARE(data.x[1], -1.0f);
        QCOMPARE(data.x[2], 1.0f);
        QCOMPARE(data.x[3], 1.0f);
        QCOMPARE(data.x[7], 10.3f); // (123 - 20) / 10: validation rows use the training statistics
    }

    void constantAndMissing()
    {
        Dataset data = table(3, {5, 1, missing, 5, 3, 4, 5, missing, missing});
        const Normalization n = computeNormalization(data, {0, 1, 2});
        QCOMPARE(n.mean, std::vector<float>({5, 2, 4}));
        QCOMPARE(n.std, std::vector<float>({1, 1, 1})); // constant; std of {1, 3} = 1; a single 4
        applyNormalization(data, n);
        QCOMPARE(data.x, std::vector<float>({0, -1, 0, 0, 1, 0, 0, 0, 0})); // NaN → 0 (the mean)

        Dataset empty = table(2, {missing, 1, missing, 1});
        const Normalization none = computeNormalization(empty, {0, 1});
        QCOMPARE(none.mean, std::vector<float>({0, 1}));
        QCOMPARE(none.std, std::vector<float>({1, 1}));
    }

    void perChannel()
    {
        Dataset images;
        images.kind = DatasetKind::ImageFolder;
        images.shape = {2, 1, 2}; // two channels of 1×2 pixels
        images.count = 2;
        images.x = {0, 1, 10, 10, 1, 0, 30, 30};
        const Normalization n = computeNormalization(images, {0, 1});
        QCOMPARE(n.mean, std::vector<float>({0.5f, 20}));
        QCOMPARE(n.std, std::vector<float>({0.5f, 10}));
        applyNormalization(images, n);
        QCOMPARE(images.x, std::vector<float>({-1, 1, -1, -1, 1, -1, 1, 1}));
    }

    void mismatchedStatistics()
    {
        Dataset data = table(2, {1, 2});
        Normalization wrong;
        wrong.mean = {1};
        wrong.std = {1};
        applyNormalization(data, wrong); // another dataset's statistics: left alone, no crash
        QCOMPARE(data.x, std::vector<float>({1, 2}));
        QCOMPARE(computeNormalization(data, {5, -1}).mean, std::vector<float>({0, 0}));
    }
};

FERRY_TEST_APPLESS_MAIN(TestDataSplit)
#include "tst_datasplit.moc"
