// Saves and restores training checkpoints (weights, optimiser, position, random state) atomically,
// for resumed runs.
#pragma once

#include "trainer/flatoptimizer.h"
#include "trainer/models.h"

#include <QString>

#include <torch/torch.h>

#include <cstdint>
#include <limits>
#include <vector>

namespace ferry::trainer {

// Checkpoints: weights, optimiser state, where the training was, and the random state
// (dropout), written to a temporary file and renamed, so a crash never leaves half of one.
// Early stopping's best weights go in too, so a resumed run ends with the same model.
struct Position {
    int epochsDone = 0;
    std::int64_t step = 0;
    double bestValLoss = std::numeric_limits<double>::infinity();
    int epochsWithoutBetter = 0;
    int bestEpoch = 0;
    std::vector<torch::Tensor> best; // the weights of the best validation loss; empty: none kept
};

// Writes <dir>/checkpoint.pt (through checkpoint.pt.tmp).
void saveCheckpoint(const QString &dir, Net &net, const FlatOptimizer &optimizer, const Position &p);

// The weights go into `net` (before its parameters become views of the optimiser's buffer);
// the optimiser's state is read by loadOptimizerState once it exists.
Position loadCheckpoint(const QString &path, Net &net, torch::serialize::InputArchive &archive);

} // namespace ferry::trainer
