// Plain functions around the torch calls the plugin needs, so Qt and torch headers never meet in
// one translation unit.
#pragma once

#include "common/error.h"

#include <QString>

namespace ferry::trainer {

// Torch calls are kept here, behind plain functions, so Qt headers and torch headers never
// meet in one translation unit (both define names such as `slots`).
QString torchVersion();
int torchThreads();
void setTorchThreads(int threads);
int cudaDeviceCount();
// Fits y = 3x - 1 with SGD for a few steps: success when the loss fell as it must.
Expected<void> fitTinyModel();

} // namespace ferry::trainer
