// The keeper (keeper.py beside this file), compiled into Ferry: what a kernel's run folder gets.
#pragma once

#include <QByteArray>

namespace ferry::kernels {

// The text of core/kernels/keeper.py (docs/kernels.md: the keeper's contract).
QByteArray keeperSource();

} // namespace ferry::kernels
