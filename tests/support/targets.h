// Helpers the target tests share: readable RunState failures, probing a run, reading its log,
// waiting.
#pragma once

// Shared by the target tests: the scripts they run, readable QCOMPARE failures for RunState, a
// target's probe of a run, its log, and the polling wait (support/wait.h).
#include "run/rundirectory.h"
#include "run/runspec.h"
#include "support/files.h"
#include "support/testenv.h"
#include "support/wait.h"
#include "targets/localtarget.h"
#include "targets/target.h"

#include <QTest>

namespace ferry::targets {
inline char *toString(RunState state)
{
    return qstrdup(qPrintable(stateName(state)));
}
} // namespace ferry::targets

namespace ferry::test {

// The scripts runs run (tests/data/runs/scripts) and the SageMaker example (its train.py and data).
inline const QString kScripts = QStringLiteral(FERRY_TEST_DATA "/runs/scripts");
inline const QString kSageMaker = QStringLiteral(FERRY_TEST_DATA "/runs/sagemaker");

// The local target, starting runs with the built `ferry`.
inline targets::LocalTarget localTarget()
{
    return targets::LocalTarget(ferryBinary());
}

// The hyperparameters of the SageMaker example (tests/data/runs/sagemaker/train.py): its
// settings, and where it must find its run folder and its two channels on the target (the
// script checks them itself).
inline QList<run::Hyperparameter> sageMakerHyperparameters(const QString &runDir, const QString &training,
                                                           const QString &validation)
{
    return {{QStringLiteral("epochs"), QStringLiteral("3")},
            {QStringLiteral("learning-rate"), QStringLiteral("0.05")},
            {QStringLiteral("optimizer"), QStringLiteral("adam")},
            {QStringLiteral("layers"), QStringLiteral("[16, 8]")},
            {QStringLiteral("use-bias"), QStringLiteral("true")},
            {QStringLiteral("expected-run-dir"), runDir},
            {QStringLiteral("expected-training"), training},
            {QStringLiteral("expected-validation"), validation}};
}

// The target's probe of a run, or a lost probe whose detail says why there was none.
inline targets::RunProbe probeOf(targets::Target &target, const QString &runDir)
{
    const auto p = target.probe(runDir);
    if (!p) {
        targets::RunProbe lost;
        lost.detail = p.error().toString();
        return lost;
    }
    return *p;
}

// The same for a target made for the one probe.
inline targets::RunProbe probeOf(targets::Target &&target, const QString &runDir)
{
    return probeOf(target, runDir);
}

inline QString errorOf(const Expected<void> &e)
{
    return e ? QString() : e.error().toString();
}

// The run's log as it is now in its local folder.
inline QByteArray logOf(const QString &runDir)
{
    return readFile(run::RunDirectory(runDir).logFile());
}

} // namespace ferry::test
