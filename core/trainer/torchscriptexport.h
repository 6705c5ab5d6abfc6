// Writes a trained net as self-contained TorchScript that standardises raw samples itself.
#pragma once

#include "common/error.h"
#include "trainer/models.h"
#include "training/training.h"

namespace ferry::trainer {

// Writes the trained net as TorchScript (`torch.jit.load(path)` in Python, `torch::jit::load`
// in C++), self-contained: it takes raw samples (table columns in the card's feature order, or
// images as N x C x H x W in 0..1), standardises them with the training statistics (NaN -> the
// mean) and returns class logits (classes in model.json) or, for regression, the value in the
// target's own units. Dropout is left out (inference).
Expected<void> writeTorchScript(Net &net, const run::ModelCard &card, const QString &path);

} // namespace ferry::trainer
