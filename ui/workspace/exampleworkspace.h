// Copies the built-in example workspace (a dataset, a training script, an environment) into a
// folder.
#pragma once

#include "common/error.h"

#include <QString>

namespace ferry::ui {

// The example workspace (resources/example, built into the binary): a dataset, a training
// script written for the contract and an environment. Copies it to `folder` unless it is there
// already; files the user changed there are left alone.
Expected<void> copyExampleWorkspace(const QString &folder);

// The dataset the example trains on, relative to its folder.
inline constexpr char16_t kExampleDataset[] = u"data/flowers.csv";

} // namespace ferry::ui
