// Loads and detects image datasets laid out as one subfolder per class, decoding on several
// threads.
#pragma once

#include "data/dataset.h"

namespace ferry::data {

// A folder with one subfolder of images per class (the subfolder's name is the class name).
// Images are decoded by ImageOptions::threads threads while the calling thread reports
// progress and asks `cancelled`.
Expected<Dataset> loadImageFolder(const QString &path, const LoadOptions &options);

// Classes and their image counts, and the first image's size from its header: no decoding.
Expected<DatasetInfo> detectImageFolder(const QString &path);

// Whether the file name has the suffix of an image format this build reads.
bool hasImageSuffix(const QString &fileName);

} // namespace ferry::data
