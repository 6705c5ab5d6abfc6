// The libtorch training loop and prediction behind the trainer plugin.
#pragma once

#include "training/training.h"

namespace ferry::trainer {

// The training loop and prediction, on libtorch (see run::TrainerEngine for the contract).
run::TrainingResult trainModel(const data::Dataset &dataset, const run::TrainingConfig &config,
                               run::TrainingControl &control, run::TrainingSink &sink);
Expected<run::Predictions> predictWithModel(const QString &modelDir, const data::Dataset &input);

} // namespace ferry::trainer
