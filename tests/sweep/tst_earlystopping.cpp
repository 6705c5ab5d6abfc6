// Early stopping (core/sweep/earlystopping.h) on synthetic learning curves: value(step) =
// q + 1 / (1 + step / 100), trial t's floor q = t / 10, so trial 9 is hopeless and trial 0 the best.
#include "support/testmain.h"
#include "sweep/earlystopping.h"

#include <QTest>

using namespace Qt::StringLiterals;
using namespace ferry::sweep;

namespace {

TrialCurve curve(int trial, double upTo, double noise = 0)
{
    TrialCurve c;
    c.trial = trial;
    for (double step = 0; step <= upTo; step += 50)
        c.points.push_back({step, trial / 10.0 + 1 / (1 + step / 100) + (int(step / 50) % 2 ? noise : 0)});
    return c;
}

std::vector<TrialCurve> finished(std::initializer_list<int> trials, double upTo = 1000)
{
    std::vector<TrialCurve> out;
    for (int t : trials)
        out.push_back(curve(t, upTo));
    return out;
}

EarlyStopping rule(StoppingRule r, qint64 minSteps)
{
    EarlyStopping e;
    e.rule = r;
    e.minSteps = minSteps;
    return e;
}

} // namespace

class TestEarlyStopping : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void bestUpToIgnoresLaterSteps()
    {
        const TrialCurve c = curve(0, 300, 5); // every other point far worse: the best counts
        QCOMPARE(c.bestUpTo(100), 0.5);
        QVERIFY(std::isnan(c.bestUpTo(-1)));
        QCOMPARE(c.lastStep(), 300.0);
    }

    void medianStopsTheHopelessAfterMinSteps()
    {
        const EarlyStopping median = rule(StoppingRule::Median, 200);
        const auto others = finished({0, 1, 2, 3, 4});
        QVERIFY(!shouldStop(median, curve(9, 150), others).stop); // before min_steps
        const StoppingDecision late = shouldStop(median, curve(9, 300), others);
        QVERIFY(late.stop);
        QVERIFY2(late.reason.contains(u"median of 5 other trials"_s), qPrintable(late.reason));
        QVERIFY(!shouldStop(median, curve(1, 300), others).stop);
        QVERIFY(!shouldStop(median, curve(9, 300), finished({0, 1})).stop); // too few to judge
        // Peers behind the trial: judged at the furthest step three of them reached, from min_steps on.
        const StoppingDecision behind = shouldStop(median, curve(9, 300), finished({0, 1, 2, 3}, 250));
        QVERIFY(behind.stop);
        QVERIFY2(behind.reason.startsWith(u"at step 250 "_s), qPrintable(behind.reason));
        QVERIFY(!shouldStop(median, curve(9, 300), finished({0, 1, 2, 3}, 150)).stop); // before min_steps
        QVERIFY(!shouldStop(median, curve(1, 300), finished({0, 2, 3, 4}, 250)).stop); // better than them
        QVERIFY(!shouldStop(rule(StoppingRule::None, 0), curve(9, 1000), others).stop);
    }

    void ashaKeepsTheBestThirdAtEachRung()
    {
        EarlyStopping asha = rule(StoppingRule::Asha, 100);
        asha.reductionFactor = 3;
        const auto others = finished({0, 1, 2, 3, 4, 5, 6, 7, 8}); // with the trial: 10 at rung 300
        QVERIFY(shouldStop(asha, curve(9, 300), others).stop);
        QVERIFY(shouldStop(asha, curve(3, 300), others).stop);  // 4th of 10: out
        QVERIFY(!shouldStop(asha, curve(2, 300), others).stop); // 3rd of 10: kept
        QVERIFY2(shouldStop(asha, curve(9, 300), others).reason.contains(u"rung 300"_s),
                 qPrintable(shouldStop(asha, curve(9, 300), others).reason));
        QVERIFY(!shouldStop(asha, curve(9, 50), others).stop);         // before the first rung
        QVERIFY(!shouldStop(asha, curve(9, 300), finished({0})).stop); // 2 at the rung: fewer than 3
    }

    void banditStopsWhatTrailsTheBestBeyondItsSlack()
    {
        EarlyStopping bandit = rule(StoppingRule::Bandit, 100);
        bandit.slack = 0.1;
        const auto others = finished({0});
        // At step 300 the best is 0.25; 0.275 is the limit: trial 1 (0.35) stops.
        QVERIFY(shouldStop(bandit, curve(1, 300), others).stop);
        bandit.slack = 0.5; // limit 0.375
        QVERIFY(!shouldStop(bandit, curve(1, 300), others).stop);
        QVERIFY(!shouldStop(bandit, curve(0, 300), finished({1, 2})).stop); // it is the best
    }

    // A sweep of 12 trials, 4 at a time, each reporting every 50 steps up to 1,000, checked at
    // every report: median stopping stops the hopeless half and never the best trial.
    void aSweepStopsItsHopelessTrials()
    {
        const EarlyStopping median = rule(StoppingRule::Median, 200);
        const std::vector<int> order = {5, 11, 0, 8, 3, 10, 1, 9, 7, 2, 6, 4}; // floors in random order
        std::vector<TrialCurve> done;
        std::vector<int> stopped;
        for (std::size_t wave = 0; wave < order.size(); wave += 4) {
            std::vector<int> running(order.begin() + qsizetype(wave), order.begin() + qsizetype(wave + 4));
            for (double step = 0; step <= 1000 && !running.empty(); step += 50) {
                for (auto it = running.begin(); it != running.end();) {
                    std::vector<TrialCurve> others = done;
                    for (int r : running) {
                        if (r != *it)
                            others.push_back(curve(r, step));
                    }
                    if (shouldStop(median, curve(*it, step), others).stop) {
                        stopped.push_back(*it);
                        done.push_back(curve(*it, step));
                        it = running.erase(it);
                    } else {
                        ++it;
                    }
                }
            }
            for (int r : running)
                done.push_back(curve(r, 1000));
        }
        QVERIFY(std::find(stopped.begin(), stopped.end(), 0) == stopped.end());
        for (int hopeless : {9, 10, 11})
            QVERIFY2(std::find(stopped.begin(), stopped.end(), hopeless) != stopped.end(),
                     qPrintable(QString::number(hopeless)));
    }
};

FERRY_TEST_GUILESS_MAIN(TestEarlyStopping)
#include "tst_earlystopping.moc"
