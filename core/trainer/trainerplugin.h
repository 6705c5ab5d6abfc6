// TrainerPlugin: the Qt plugin's root object, implementing core's TrainerEngine on libtorch.
#pragma once

#include "training/trainerengine.h"

#include <QObject>

namespace ferry::trainer {

// The plugin's root object: Qt's plugin loader creates it, core sees only TrainerEngine.
class TrainerPlugin : public QObject, public run::TrainerEngine {
    Q_OBJECT
    Q_PLUGIN_METADATA(IID FERRY_TRAINER_ENGINE_IID)
    Q_INTERFACES(ferry::run::TrainerEngine)

public:
    explicit TrainerPlugin(QObject *parent = nullptr);

    run::TrainerInfo info() const override;
    Expected<void> selfTest() override;
    run::TrainingResult train(const data::Dataset &dataset, const run::TrainingConfig &config,
                              run::TrainingControl &control, run::TrainingSink &sink) override;
    Expected<run::Predictions> predict(const QString &modelDir, const data::Dataset &input) override;
};

} // namespace ferry::trainer
