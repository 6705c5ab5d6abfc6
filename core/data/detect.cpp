#include "data/csvreader.h"
#include "data/datasetpath.h"
#include "data/idxreader.h"
#include "data/imagefolder.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

using namespace Qt::StringLiterals;

namespace ferry::data {

QString supportedFormats()
{
    return u"Ferry reads CSV/TSV tables (.csv, .tsv, .txt), image folders (one subfolder of images per class) and "
           "MNIST idx files (*-images-idx3-ubyte with *-labels-idx1-ubyte, or .gz)"_s;
}

Expected<DatasetKind> datasetKindOf(const QString &path)
{
    const QFileInfo info(path);
    if (path.isEmpty() || !info.exists())
        return Error{u"no such file or folder"_s, path, 0, 0, u"check the path"_s};
    if (info.isDir()) {
        const QStringList idx = QDir(path).entryList({u"*idx3-ubyte*"_s, u"*idx3.ubyte*"_s}, QDir::Files);
        return idx.isEmpty() ? DatasetKind::ImageFolder : DatasetKind::Idx;
    }
    const QString name = info.fileName().toLower();
    const QString suffix = info.suffix().toLower();
    if (suffix == u"csv"_s || suffix == u"tsv"_s || suffix == u"tab"_s || suffix == u"txt"_s || suffix == u"data"_s)
        return DatasetKind::Table;
    if (isIdxFileName(name))
        return DatasetKind::Idx;
    if (info.isFile()) {
        QFile file(path);
        if (file.open(QIODevice::ReadOnly)) {
            const QByteArray magic = file.read(4);
            if (magic == QByteArrayView("\x00\x00\x08\x03", 4) || magic == QByteArrayView("\x00\x00\x08\x01", 4))
                return DatasetKind::Idx;
        }
    }
    if (hasImageSuffix(name))
        return Error{u"a single image is not a dataset"_s, path, 0, 0,
                     u"choose the folder that holds one subfolder of images per class"_s};
    const QString what = suffix.isEmpty() ? u"this file type"_s : u"'.%1' files"_s.arg(suffix);
    return Error{u"Ferry cannot read %1 as a dataset"_s.arg(what), path, 0, 0, supportedFormats()};
}

Expected<DatasetInfo> detectDataset(const QString &path)
{
    const auto kind = datasetKindOf(path);
    if (!kind)
        return kind.error();
    switch (*kind) {
    case DatasetKind::Table:
        return detectTable(path);
    case DatasetKind::ImageFolder:
        return detectImageFolder(path);
    case DatasetKind::Idx:
        return detectIdx(path);
    }
    return Error{u"unknown dataset kind"_s, path, 0, 0, supportedFormats()};
}

} // namespace ferry::data
