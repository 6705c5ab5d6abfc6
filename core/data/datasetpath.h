// Tells from a path's name (and an idx file's magic number) which dataset reader it is for.
#pragma once

#include "data/dataset.h"

namespace ferry::data {

// Which reader a path is for, from its name (and an idx file's magic number); no parsing.
// Errors say what exists and which formats Ferry reads.
Expected<DatasetKind> datasetKindOf(const QString &path);

// "Ferry reads CSV/TSV tables (.csv, .tsv, .txt), ...": for hints.
QString supportedFormats();

} // namespace ferry::data
