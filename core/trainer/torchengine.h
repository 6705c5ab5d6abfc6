#pragma once

#include <QString>

namespace ferry::trainer {

// Torch calls are kept here, behind plain functions, so Qt headers and torch headers never
// meet in one translation unit (both define names such as `slots`).
QString torchVersion();
int torchThreads();
void setTorchThreads(int threads);
int cudaDeviceCount();
// Fits y = 3x - 1 with SGD for a few steps; returns "" when the loss fell as it must.
QString fitTinyModel();

} // namespace ferry::trainer
