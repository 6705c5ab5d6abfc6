// The embedded trainer's torch models: an MLP and a small CNN with an MLP head.
#pragma once

#include "training/training.h"

#include <torch/torch.h>

namespace ferry::trainer {

// The embedded trainer's models.
// MLP: [flatten] → (linear → activation → dropout) per hidden layer → linear to the outputs.
// CNN: per block conv 3x3 (same padding) → ReLU → max-pool 2, then the MLP as the head.
struct NetImpl : torch::nn::Module {
    NetImpl(const run::TrainingConfig &config, const QList<int> &inputShape, int outputs);
    torch::Tensor forward(torch::Tensor x);

    torch::nn::Sequential features{nullptr};
    torch::nn::Sequential head{nullptr};
    bool cnn = false;
};
TORCH_MODULE(Net);

} // namespace ferry::trainer
