// Loads and detects MNIST idx image/label file pairs, gzip-compressed or not.
#pragma once

#include "data/dataset.h"

namespace ferry::data {

// MNIST idx files: `*-images-idx3-ubyte` with its `*-labels-idx1-ubyte`, each optionally
// gzip-compressed (.gz). `path` is either file of the pair, or a folder holding a pair (the
// train-* pair when it holds several).
Expected<Dataset> loadIdx(const QString &path, const LoadOptions &options);
Expected<DatasetInfo> detectIdx(const QString &path);

// A name in the MNIST pattern: "...idx3-ubyte", "...idx1-ubyte" (or ".idx3-ubyte"), ".gz" allowed.
bool isIdxFileName(const QString &fileName);

} // namespace ferry::data
