#include "data/imagedecode.h"

using namespace Qt::StringLiterals;

namespace ferry::data {

namespace {

Error noImages(const QString &path)
{
    return Error{u"this build of Ferry was made without Qt Gui and cannot decode images"_s, path, 0, 0,
                 u"install the full build of Ferry"_s};
}

} // namespace

bool canDecodeImages()
{
    return false;
}

QStringList imageSuffixes()
{
    // The formats of a full build, so that folders are still listed and counted.
    return {u"bmp"_s, u"gif"_s, u"jpeg"_s, u"jpg"_s, u"pbm"_s, u"pgm"_s, u"png"_s, u"ppm"_s, u"xbm"_s, u"xpm"_s};
}

Expected<void> decodeImage(const QString &path, const ImageOptions &, float *)
{
    return noImages(path);
}

Expected<ImageHeader> readImageHeader(const QString &path)
{
    return noImages(path);
}

} // namespace ferry::data
