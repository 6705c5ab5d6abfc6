// TrainerEngine: the interface core declares for the libtorch trainer plugin, so only the plugin
// links torch.
#pragma once

#include "common/error.h"
#include "training/training.h"

#include <QString>
#include <QtPlugin>

namespace ferry::run {

// What the loaded trainer reports about itself and the torch library under it.
struct TrainerInfo {
    QString torchVersion;
    int threads = 0; // intra-op threads torch will use
    bool cudaAvailable = false;
    int cudaDevices = 0;
    QString blasLibrary; // the libblas the process mapped, e.g. OpenBLAS or the slow reference one
};

// The embedded libtorch trainer, implemented by the ferry_trainer plugin. Core declares it
// so that nothing but the plugin links libtorch: the plugin (and libtorch, ~0.4 s to load)
// is loaded on first use through TrainerLoader.
class TrainerEngine {
public:
    virtual ~TrainerEngine() = default;

    virtual TrainerInfo info() const = 0;
    // Fits a tiny model for a few steps: success when the loss went down as it must, otherwise
    // what went wrong. Proves the library really computes.
    virtual Expected<void> selfTest() = 0;

    // Trains on `dataset` (split, normalised with training statistics, batched) in the calling
    // thread, reporting to `sink`; stops within one optimiser step of a cancel, waits while
    // paused. Checkpoints each epoch into config.checkpointDir and continues from
    // config.resumeFrom; at the end writes the weights and model.json into config.modelDir.
    // The same seed on the same machine gives the same loss sequence, bit for bit.
    virtual TrainingResult train(const data::Dataset &dataset, const TrainingConfig &config, TrainingControl &control,
                                 TrainingSink &sink) = 0;
    // Applies the model in `modelDir` (weights + model.json) to `input`, which must fit the
    // card (ModelCard::accepts); table columns are matched by name.
    virtual Expected<Predictions> predict(const QString &modelDir, const data::Dataset &input) = 0;
};

} // namespace ferry::run

// Bump the trailing number whenever TrainerEngine changes: a stale plugin is then refused
// with a clear message instead of crashing.
#define FERRY_TRAINER_ENGINE_IID "dev.ferry.TrainerEngine/4"
Q_DECLARE_INTERFACE(ferry::run::TrainerEngine, FERRY_TRAINER_ENGINE_IID)
