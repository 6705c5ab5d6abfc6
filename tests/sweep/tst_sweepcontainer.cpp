// Sweeps on the container target against the real Docker engine of the `docker` fixture,
// through the built `ferry`: a grid of 6 and a random sweep of 12, two at a time (checked from
// the scripts' own start and end times, stamped into the logs), one injected GPU per trial, the
// image built once for all; a cancel that leaves no container.
#include "support/container.h"
#include "support/sweep.h"
#include "support/testmain.h"

#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace ferry::test;

class TestSweepContainer : public QObject {
    Q_OBJECT
    QString m_image;

private Q_SLOTS:
    void initTestCase()
    {
        const QString missing = connectToDocker();
        QVERIFY2(missing.isEmpty(), qPrintable(missing));
    }
    void cleanupTestCase()
    {
        if (!m_image.isEmpty())
            docker({u"rmi"_s, u"-f"_s, m_image});
    }

    void gridOfSixInContainersTwoAtATime()
    {
        QTemporaryDir dir;
        m_image = writeTestEnvironment(dir.filePath(u"env.yml"_s), u"sweep-container-test"_s);
        QVERIFY(!m_image.isEmpty());
        writeSweepWorkspace(dir.path(), u"grid"_s, uR"(ferry-sweep: 1
script: trial.py
environment: env.yml
target: container
hyperparameters: {steps: 8, pause: 0.2}
method: grid
metric: val_loss
parameters:
  lr: [0.001, 0.01, 0.1]
  layers: ["64", "128"]
max_parallel: 2
)"_s);
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(u"FERRY_GPUS"_s, u"3,7"_s);
        const CliResult run =
            sweepCommand(dir.path(), {u"start"_s, u"sweeps/grid.yml"_s, u"--wait"_s}, environment, 900000);
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const QString id = run.out.trimmed();
        const QJsonObject sweep = sweepShow(dir.path(), id);
        QCOMPARE(sweep[u"status"_s].toString(), u"finished"_s);
        QCOMPARE(trialStatuses(sweep), QStringList(6, u"succeeded"_s));
        QCOMPARE(sweep[u"best"_s].toInt(), 2); // lr 0.01
        QCOMPARE(sweepRuns(dir.path(), id).keys(), (QList<int>{0, 1, 2, 3, 4, 5}));
        const auto stamps = trialStamps(dir.path(), sweep);
        // Two at once: the scripts never more (a container's start-up may keep two short scripts
        // apart on a loaded machine), the controller exactly two.
        QVERIFY(mostAtOnce(stamps) <= 2);
        QCOMPARE(mostInFlight(sweep), 2);
        checkOneGpuPerTrial(stamps, {u"3"_s, u"7"_s});
        if (QTest::currentTestFailed())
            return;
        for (const TrialStamp &a : stamps)
            QVERIFY(containersLabelled(a.runId).isEmpty());
        // The image was built by the first trial only; the others found it.
        int builds = 0;
        for (const TrialStamp &s : stamps) {
            const QByteArray log = readFile(dir.filePath(u".ferry/runs/%1/log"_s.arg(s.runId)));
            builds += log.contains("is up to date: no build") ? 0 : 1;
        }
        QVERIFY2(builds <= 1, qPrintable(u"%1 trials built the image"_s.arg(builds)));
    }

    void randomTwelveInContainersTwoAtATime()
    {
        QTemporaryDir dir;
        m_image = writeTestEnvironment(dir.filePath(u"env.yml"_s), u"sweep-container-test"_s);
        QVERIFY(!m_image.isEmpty());
        writeSweepWorkspace(dir.path(), u"random"_s, uR"(ferry-sweep: 1
script: trial.py
environment: env.yml
target: container
hyperparameters: {steps: 4, pause: 0.1}
method: random
metric: val_loss
parameters:
  lr: {distribution: log_uniform, min: 1.0e-4, max: 1.0}
max_trials: 12
max_parallel: 2
seed: 11
)"_s);
        const CliResult run = sweepCommand(dir.path(), {u"start"_s, u"sweeps/random.yml"_s, u"--wait"_s},
                                           QProcessEnvironment::systemEnvironment(), 900000);
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const QJsonObject sweep = sweepShow(dir.path(), run.out.trimmed());
        QCOMPARE(trialStatuses(sweep), QStringList(12, u"succeeded"_s));
        QCOMPARE(sweepRuns(dir.path(), sweep[u"id"_s].toString()).size(), 12);
        QVERIFY(mostAtOnce(trialStamps(dir.path(), sweep)) <= 2);
    }

    void cancelLeavesNoContainer()
    {
        QTemporaryDir dir;
        m_image = writeTestEnvironment(dir.filePath(u"env.yml"_s), u"sweep-container-test"_s);
        writeSweepWorkspace(dir.path(), u"long"_s, uR"(ferry-sweep: 1
script: trial.py
environment: env.yml
target: container
hyperparameters: {steps: 600, pause: 0.1}
method: random
metric: val_loss
parameters:
  lr: {distribution: log_uniform, min: 1.0e-4, max: 1.0}
max_trials: 6
max_parallel: 2
)"_s);
        const QString id = startSweep(dir.path(), u"sweeps/long.yml"_s);
        QVERIFY(!id.isEmpty());
        QVERIFY(waitForTwoRunningTrials(dir.path(), id, 600000));
        const auto running = trialStamps(dir.path(), sweepShow(dir.path(), id));
        for (const TrialStamp &s : running)
            QCOMPARE(containersLabelled(s.runId).size(), 1);
        const CliResult cancelled = sweepCommand(dir.path(), {u"cancel"_s, id});
        QVERIFY2(cancelled.exitCode == 0, qPrintable(cancelled.err));
        QVERIFY(waitForSweep(dir.path(), id));
        const QJsonObject sweep = sweepShow(dir.path(), id);
        QCOMPARE(sweep[u"status"_s].toString(), u"cancelled"_s);
        QCOMPARE(trialStatuses(sweep), QStringList(2, u"cancelled"_s));
        for (const TrialStamp &s : running)
            QVERIFY2(containersLabelled(s.runId).isEmpty(), qPrintable(u"trial %1's container is left"_s.arg(s.trial)));
        QCOMPARE(controllerPid(id), 0);
    }
};

FERRY_TEST_GUILESS_MAIN(TestSweepContainer)
#include "tst_sweepcontainer.moc"
