// Run records with known times, for the tests of estimates and cost reports: a store's history
// made to order.
#pragma once

#include "run/runspec.h"
#include "store/runstore.h"

#include <QList>
#include <QString>

namespace ferry::test {

// What a past run was: its script (in `sourceDir`), target, parameters, and when it ran.
struct PastRun {
    PastRun(QString id_, QString script_, QString target_, QList<run::Hyperparameter> hyperparameters_,
            qint64 startedMs_ = 0, qint64 seconds_ = 0, run::RunStatus status_ = run::RunStatus::Succeeded,
            QJsonObject targetOptions_ = {}, QString environmentFile_ = {}, QString sweep_ = {}, QStringList tags_ = {})
        : id(std::move(id_)), script(std::move(script_)), target(std::move(target_)),
          hyperparameters(std::move(hyperparameters_)), startedMs(startedMs_), seconds(seconds_), status(status_),
          targetOptions(std::move(targetOptions_)), environmentFile(std::move(environmentFile_)),
          sweep(std::move(sweep_)), tags(std::move(tags_))
    {
    }
    QString id;
    QString script;
    QString target;
    QList<run::Hyperparameter> hyperparameters;
    qint64 startedMs;
    qint64 seconds;
    run::RunStatus status;
    QJsonObject targetOptions;
    QString environmentFile;
    QString sweep;
    QStringList tags;
};

// The spec such a run had, its source folder `sourceDir`.
inline run::RunSpec pastSpec(const PastRun &past, const QString &sourceDir)
{
    run::RunSpec spec;
    spec.id = past.id;
    spec.script = past.script;
    spec.sourceDir = sourceDir;
    spec.target = *run::TargetSpec::parse(past.target);
    spec.target.options = past.targetOptions;
    spec.hyperparameters = past.hyperparameters;
    spec.environmentFile = past.environmentFile;
    spec.sweep = past.sweep;
    return spec;
}

// Its record as the store keeps it: started at `startedMs`, ended `seconds` later.
inline run::RunRecord pastRecord(const PastRun &past, const QString &sourceDir)
{
    run::RunRecord record = run::newRunRecord(pastSpec(past, sourceDir));
    record.status = past.status;
    record.createdMs = past.startedMs;
    record.startedMs = past.startedMs;
    record.finishedMs = past.startedMs + past.seconds * 1000;
    record.tags = past.tags;
    return record;
}

// "epochs" = `value`.
inline QList<run::Hyperparameter> epochs(int value)
{
    return {run::Hyperparameter{QStringLiteral("epochs"), QString::number(value)}};
}

} // namespace ferry::test
