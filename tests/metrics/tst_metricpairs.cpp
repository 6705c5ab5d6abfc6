// One metric against another of the same run: each point paired with the other's value at its step.
#include "metrics/metricpairs.h"
#include "support/testmain.h"

#include <QTest>

#include <cmath>
#include <vector>

using namespace ferry::run;

namespace {

struct Paired {
    std::vector<qsizetype> index;
    std::vector<double> x;
};

Paired pair(const std::vector<double> &xSteps, const std::vector<double> &xValues, const std::vector<double> &ySteps)
{
    Paired p;
    pairByStep(xSteps.data(), xValues.data(), qsizetype(xSteps.size()), ySteps.data(), qsizetype(ySteps.size()),
               p.index, p.x);
    return p;
}

} // namespace

class TestMetricPairs : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // Loss against tokens seen, both at every step: x is the tokens of the loss's own step.
    void sameSteps()
    {
        const Paired p = pair({0, 1, 2}, {0, 512, 1024}, {0, 1, 2});
        QCOMPARE(p.index, (std::vector<qsizetype>{0, 1, 2}));
        QCOMPARE(p.x, (std::vector<double>{0, 512, 1024}));
    }

    // x logged less often (an epoch metric): it holds from its step to its next point; y points
    // before x's first have no x and are left out.
    void xHoldsUntilItsNextPoint()
    {
        const Paired p = pair({10, 20}, {1, 2}, {5, 10, 15, 20, 25});
        QCOMPARE(p.index, (std::vector<qsizetype>{1, 2, 3, 4}));
        QCOMPARE(p.x, (std::vector<double>{1, 1, 2, 2}));
    }

    // Of several x points at one step the last counts; NaN values and steps are no x.
    void lastOfAStepAndNoNan()
    {
        const double nan = std::nan("");
        const Paired p = pair({nan, 1, 1, 2, 3}, {99, 5, 6, nan, 8}, {nan, 1, 2, 3});
        QCOMPARE(p.index, (std::vector<qsizetype>{1, 3}));
        QCOMPARE(p.x, (std::vector<double>{6, 8}));
        QVERIFY(pair({}, {}, {1, 2}).index.empty());
    }
};

FERRY_TEST_APPLESS_MAIN(TestMetricPairs)
#include "tst_metricpairs.moc"
