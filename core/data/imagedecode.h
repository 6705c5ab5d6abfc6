// Image decoding and header reading, the data module's only use of Qt Gui (refused clearly in
// GUI-less builds).
#pragma once

#include "data/dataset.h"

#include <QStringList>

// The only part of the data module that needs Qt Gui (QImage): imagedecode_qt.cpp in builds
// with the GUI, imagedecode_none.cpp (which refuses clearly) in builds without it.

namespace ferry::data {

bool canDecodeImages();

// The file suffixes (lowercase, no dot) of the image formats this build reads.
QStringList imageSuffixes();

// Decodes the image at `path`, resizes it to options.width × options.height (smoothly) and
// writes channels × height × width values in [0, 1] to `out` (1 channel for grayscale, else RGB).
Expected<void> decodeImage(const QString &path, const ImageOptions &options, float *out);

// What the file's header says, without decoding the pixels.
struct ImageHeader {
    int width = 0;
    int height = 0;
    int channels = 3; // 1 for grayscale and monochrome formats
};
Expected<ImageHeader> readImageHeader(const QString &path);

} // namespace ferry::data
