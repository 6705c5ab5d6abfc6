#include "data/idxreader.h"

#include "common/memorybudget.h"
#include "data/filebytes.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <archive.h>
#include <archive_entry.h>

#include <array>
#include <memory>
#include <vector>

using namespace Qt::StringLiterals;

// The idx format (http://yann.lecun.com/exdb/mnist/): a big-endian magic number 00 00 TT DD
// (TT the value type, 08 for unsigned bytes; DD the number of dimensions), DD big-endian
// 32-bit sizes, then the values. Images are 3-dimensional (count, rows, columns), labels 1.

namespace ferry::data {

namespace {

constexpr qint64 maxBytes = qint64(4) << 30;
constexpr qint64 imagesHeaderBytes = 16;
constexpr qint64 labelsHeaderBytes = 8;

bool isGzip(const QString &path)
{
    return path.endsWith(u".gz"_s, Qt::CaseInsensitive);
}

// The bytes of one idx file: mapped, or decompressed when its name ends in .gz.
struct IdxBytes {
    std::unique_ptr<FileBytes> file;
    QByteArray buffer;
    const uchar *data = nullptr;
    qint64 size = 0;
};

// Decompresses at most `limit` bytes; `total`, when given, gets the whole decompressed size
// (the rest is decompressed and counted, not kept).
Expected<QByteArray> gunzip(const QString &path, qint64 limit, qint64 *total = nullptr)
{
    std::unique_ptr<archive, decltype(&archive_read_free)> reader(archive_read_new(), archive_read_free);
    archive *a = reader.get();
    archive_read_support_filter_gzip(a);
    archive_read_support_format_raw(a);
    const QByteArray name = QFile::encodeName(path);
    if (archive_read_open_filename(a, name.constData(), 1 << 16) != ARCHIVE_OK)
        return Error{u"cannot read: "_s + QString::fromLocal8Bit(archive_error_string(a)), path, 0, 0,
                     u"check the file's permissions"_s};
    if (archive_filter_code(a, 0) != ARCHIVE_FILTER_GZIP)
        return Error{u"not a gzip file, although its name ends in .gz"_s, path, 0, 0,
                     u"rename it without .gz, or compress it with gzip"_s};
    archive_entry *entry = nullptr;
    const int header = archive_read_next_header(a, &entry);
    if (header == ARCHIVE_EOF) {
        if (total)
            *total = 0;
        return QByteArray();
    }
    if (header != ARCHIVE_OK && header != ARCHIVE_WARN)
        return Error{u"cannot decompress: "_s + QString::fromLocal8Bit(archive_error_string(a)), path, 0, 0,
                     u"the file is damaged: download it again"_s};
    QByteArray out;
    qint64 size = 0;
    std::vector<char> block(1 << 16);
    while (out.size() < limit || total) {
        const la_ssize_t n = archive_read_data(a, block.data(), block.size());
        if (n < 0)
            return Error{u"cannot decompress: "_s + QString::fromLocal8Bit(archive_error_string(a)), path, 0, 0,
                         u"the file is damaged or cut short: download it again"_s};
        if (n == 0)
            break;
        size += n;
        if (out.size() < limit)
            out.append(block.data(), qsizetype(std::min<qint64>(n, limit - out.size())));
    }
    if (total)
        *total = size;
    return out;
}

// `total`, for a compressed file: its whole decompressed size, beyond `limit`.
Expected<void> readIdx(const QString &path, qint64 limit, IdxBytes &bytes, qint64 *total = nullptr)
{
    if (auto ok = checkRegularFile(path); !ok)
        return ok.error();
    if (isGzip(path)) {
        auto buffer = gunzip(path, limit, total);
        if (!buffer)
            return buffer.error();
        bytes.buffer = std::move(*buffer);
        bytes.data = reinterpret_cast<const uchar *>(bytes.buffer.constData());
        bytes.size = bytes.buffer.size();
        return {};
    }
    bytes.file = std::make_unique<FileBytes>();
    if (auto ok = bytes.file->open(path); !ok)
        return ok.error();
    bytes.data = reinterpret_cast<const uchar *>(bytes.file->data());
    bytes.size = bytes.file->size();
    return {};
}

quint32 bigEndian32(const uchar *p)
{
    return quint32(p[0]) << 24 | quint32(p[1]) << 16 | quint32(p[2]) << 8 | quint32(p[3]);
}

QString hexBytes(const uchar *data, qint64 size)
{
    QStringList bytes;
    for (qint64 i = 0; i < std::min<qint64>(size, 4); ++i)
        bytes.append(u"%1"_s.arg(data[i], 2, 16, QChar(u'0')));
    return bytes.join(u' ');
}

struct IdxHeader {
    qint64 count = 0;
    qint64 rows = 1;
    qint64 columns = 1;
    qint64 expectedBytes = 0;
};

// Checks the magic number (unsigned bytes, `dimensions` dimensions) and reads the sizes.
Expected<IdxHeader> readHeader(const IdxBytes &bytes, int dimensions, const QString &path)
{
    const bool images = dimensions == 3;
    const QString what = images ? u"images (idx3)"_s : u"labels (idx1)"_s;
    const QString wanted = images ? u"00 00 08 03"_s : u"00 00 08 01"_s;
    const uchar *data = bytes.data;
    if (bytes.size < 4 || data[0] != 0 || data[1] != 0 || (data[3] != 1 && data[3] != 3))
        return Error{u"not an MNIST %1 file: it starts with %2, not %3"_s.arg(what, hexBytes(data, bytes.size), wanted),
                     path, 0, 0,
                     images ? u"choose the *-images-idx3-ubyte file (a compressed one must end in .gz)"_s
                            : u"choose the *-labels-idx1-ubyte file (a compressed one must end in .gz)"_s};
    if (data[3] != dimensions)
        return Error{u"this idx file has %1; %2"_s.arg(data[3] == 1 ? u"1 dimension"_s : u"3 dimensions"_s,
                                                       images ? u"an images file has 3"_s : u"a labels file has 1"_s),
                     path, 0, 0, u"check that the images and labels files are not swapped"_s};
    if (data[2] != 0x08)
        return Error{u"idx values of type 0x%1: only unsigned bytes (0x08, as in MNIST) can be read"_s.arg(
                         data[2], 2, 16, QChar(u'0')),
                     path, 0, 0, u"convert the data to unsigned bytes"_s};
    const qint64 headerBytes = images ? imagesHeaderBytes : labelsHeaderBytes;
    if (bytes.size < headerBytes)
        return Error{u"the file is truncated: its header needs %1 bytes, it has %2"_s.arg(headerBytes).arg(bytes.size),
                     path, 0, 0, u"download the file again"_s};
    IdxHeader header;
    header.count = bigEndian32(data + 4);
    if (images) {
        header.rows = bigEndian32(data + 8);
        header.columns = bigEndian32(data + 12);
        if (header.rows == 0 || header.columns == 0 || header.rows > 65536 || header.columns > 65536)
            return Error{u"implausible image size %1×%2 in the header"_s.arg(header.rows).arg(header.columns), path, 0,
                         0, u"the file is damaged: download it again"_s};
    }
    const qint64 sampleBytes = header.rows * header.columns;
    if (header.count > (maxBytes - headerBytes) / sampleBytes)
        return Error{u"too large: %1 samples of %2 bytes"_s.arg(header.count).arg(sampleBytes), path, 0, 0,
                     u"is this the right file?"_s};
    header.expectedBytes = headerBytes + header.count * sampleBytes;
    return header;
}

Error sizeError(const IdxHeader &header, qint64 actual, bool images, const QString &path)
{
    const QString content = images
                                ? u"%1 images of %2×%3 pixels"_s.arg(header.count).arg(header.rows).arg(header.columns)
                                : u"%1 labels"_s.arg(header.count);
    if (actual < header.expectedBytes)
        return Error{
            u"the file is truncated: %1 need %2 bytes, it has %3"_s.arg(content).arg(header.expectedBytes).arg(actual),
            path, 0, 0, u"download the file again"_s};
    return Error{u"the file is longer than its header says: %1 need %2 bytes, it has %3"_s.arg(content)
                     .arg(header.expectedBytes)
                     .arg(actual),
                 path, 0, 0, u"the file is damaged: download it again"_s};
}

// Reads one idx file whole and checks its header and size.
Expected<IdxHeader> readWhole(const QString &path, int dimensions, IdxBytes &bytes)
{
    const bool images = dimensions == 3;
    IdxHeader header;
    qint64 size = 0;
    if (isGzip(path)) { // the header first, to know how much to decompress
        IdxBytes start;
        if (auto ok = readIdx(path, imagesHeaderBytes, start); !ok)
            return ok.error();
        auto parsed = readHeader(start, dimensions, path);
        if (!parsed)
            return parsed.error();
        header = *parsed;
        // A few MB of gzip can claim (and decompress to) gigabytes: checked before (L3).
        if (auto fits = checkMemoryBudget(header.expectedBytes, path,
                                          u"the decompressed file (%1 bytes)"_s.arg(header.expectedBytes));
            !fits)
            return fits.error();
        if (auto ok = readIdx(path, header.expectedBytes, bytes, &size); !ok)
            return ok.error();
    } else {
        if (auto ok = readIdx(path, maxBytes, bytes); !ok)
            return ok.error();
        auto parsed = readHeader(bytes, dimensions, path);
        if (!parsed)
            return parsed.error();
        header = *parsed;
        size = bytes.size;
    }
    if (size != header.expectedBytes)
        return sizeError(header, size, images, path);
    return header;
}

QString labelsNameFor(QString imagesName)
{
    imagesName.replace(u"images"_s, u"labels"_s, Qt::CaseInsensitive);
    imagesName.replace(u"idx3"_s, u"idx1"_s, Qt::CaseInsensitive);
    return imagesName;
}

QString imagesNameFor(QString labelsName)
{
    labelsName.replace(u"labels"_s, u"images"_s, Qt::CaseInsensitive);
    labelsName.replace(u"idx1"_s, u"idx3"_s, Qt::CaseInsensitive);
    return labelsName;
}

// `name` in `dir`, or the same name with or without ".gz".
QString existing(const QDir &dir, const QString &name)
{
    const QString other = isGzip(name) ? name.chopped(3) : name + u".gz"_s;
    for (const QString &candidate : {name, other}) {
        if (QFileInfo(dir.filePath(candidate)).isFile())
            return dir.filePath(candidate);
    }
    return {};
}

struct IdxPair {
    QString images;
    QString labels;
    QStringList notes;
};

Expected<IdxPair> findPair(const QString &path)
{
    const QFileInfo info(path);
    IdxPair pair;
    if (info.isDir()) {
        QDir dir(path);
        QStringList images;
        for (const QString &name : dir.entryList(QDir::Files, QDir::Name)) {
            const QString lower = name.toLower();
            if (isIdxFileName(lower) && (lower.contains(u"idx3-"_s) || lower.contains(u"idx3."_s)))
                images.append(name);
        }
        std::sort(images.begin(), images.end());
        if (images.isEmpty())
            return Error{u"no MNIST images file (*-images-idx3-ubyte) in the folder"_s, path, 0, 0,
                         u"put the images and labels files of one set into the folder"_s};
        // The training set when there are several; the uncompressed file when both are there.
        QString chosen = images.first();
        int best = -1;
        for (const QString &name : images) {
            const int score = (name.startsWith(u"train"_s, Qt::CaseInsensitive) ? 2 : 0) + (isGzip(name) ? 0 : 1);
            if (score > best) {
                best = score;
                chosen = name;
            }
        }
        if (images.size() > 1)
            pair.notes.append(u"the folder holds %1; used %2"_s.arg(images.join(u", "_s), chosen));
        pair.images = dir.filePath(chosen);
    } else {
        const QString name = info.fileName().toLower();
        if (name.contains(u"idx1"_s)) { // the labels file given: find its images
            pair.images = existing(info.dir(), imagesNameFor(info.fileName()));
            if (pair.images.isEmpty())
                return Error{u"this is a labels file, and no images file lies beside it (%1)"_s.arg(
                                 imagesNameFor(info.fileName())),
                             path, 0, 0, u"put the *-images-idx3-ubyte file of the same set beside it"_s};
        } else {
            pair.images = path;
        }
    }
    const QFileInfo images(pair.images);
    pair.labels = existing(images.dir(), labelsNameFor(images.fileName()));
    if (pair.labels.isEmpty())
        return Error{u"no labels file beside the images: expected %1"_s.arg(labelsNameFor(images.fileName())),
                     pair.images, 0, 0, u"put the *-labels-idx1-ubyte file of the same set beside it"_s};
    return pair;
}

} // namespace

bool isIdxFileName(const QString &fileName)
{
    QString name = fileName.toLower();
    if (name.endsWith(u".gz"_s))
        name.chop(3);
    return name.endsWith(u"idx3-ubyte"_s) || name.endsWith(u"idx1-ubyte"_s) || name.endsWith(u"idx3.ubyte"_s) ||
           name.endsWith(u"idx1.ubyte"_s);
}

Expected<Dataset> loadIdx(const QString &path, const LoadOptions &options)
{
    auto pair = findPair(path);
    if (!pair)
        return pair.error();
    // What the load takes, before a .gz is decompressed: the file itself, then the images as
    // floats and a class per image (security review L3).
    const auto need = [](const IdxHeader &header, bool compressed) {
        return (compressed ? header.expectedBytes : 0) +
               header.count * (header.rows * header.columns * qint64(sizeof(float)) + qint64(sizeof(std::int64_t)));
    };
    const auto content = [](const IdxHeader &header) {
        return u"%1 images of %2×%3 pixels"_s.arg(header.count).arg(header.rows).arg(header.columns);
    };
    if (isGzip(pair->images)) {
        IdxBytes start;
        if (auto ok = readIdx(pair->images, imagesHeaderBytes, start); !ok)
            return ok.error();
        if (auto header = readHeader(start, 3, pair->images); header) {
            if (auto fits = checkMemoryBudget(need(*header, true), pair->images, content(*header)); !fits)
                return fits.error();
        }
    }
    IdxBytes images;
    auto imagesHeader = readWhole(pair->images, 3, images);
    if (!imagesHeader)
        return imagesHeader.error();
    IdxBytes labels;
    auto labelsHeader = readWhole(pair->labels, 1, labels);
    if (!labelsHeader)
        return labelsHeader.error();
    const qint64 count = imagesHeader->count;
    if (labelsHeader->count != count)
        return Error{u"the labels file holds %1 labels for %2 images"_s.arg(labelsHeader->count).arg(count),
                     pair->labels, 0, 0, u"use the labels file of the same set as the images"_s};
    if (count == 0)
        return Error{u"the file holds no images"_s, pair->images, 0, 0, u"choose a file with images"_s};
    if (options.cancelled && options.cancelled())
        return Error{u"loading was cancelled"_s, path, 0, 0, {}};

    Dataset dataset;
    dataset.kind = DatasetKind::Idx;
    dataset.source = path;
    dataset.task = Task::Classification;
    dataset.count = count;
    dataset.shape = {1, int(imagesHeader->rows), int(imagesHeader->columns)};
    std::array<float, 256> scale;
    for (int i = 0; i < 256; ++i)
        scale[size_t(i)] = float(i) / 255.0f;
    const qint64 pixels = count * imagesHeader->rows * imagesHeader->columns;
    if (auto fits = checkMemoryBudget(need(*imagesHeader, false), pair->images, content(*imagesHeader)); !fits)
        return fits.error();
    dataset.x.resize(size_t(pixels));
    const uchar *from = images.data + imagesHeaderBytes;
    for (qint64 i = 0; i < pixels; ++i)
        dataset.x[size_t(i)] = scale[from[i]];

    // Classes: the distinct labels, in numeric order.
    const uchar *label = labels.data + labelsHeaderBytes;
    std::array<qint64, 256> perLabel{};
    for (qint64 i = 0; i < count; ++i)
        ++perLabel[label[i]];
    std::array<std::int64_t, 256> classOf{};
    for (int value = 0; value < 256; ++value) {
        if (perLabel[size_t(value)] > 0) {
            classOf[size_t(value)] = dataset.classNames.size();
            dataset.classNames.append(QString::number(value));
        }
    }
    dataset.classes.resize(size_t(count));
    for (qint64 i = 0; i < count; ++i)
        dataset.classes[size_t(i)] = classOf[label[i]];
    dataset.notes.append(u"read %1 images of %2×%3 pixels from %4, labels from %5 (%6 classes)"_s.arg(count)
                             .arg(imagesHeader->rows)
                             .arg(imagesHeader->columns)
                             .arg(QFileInfo(pair->images).fileName(), QFileInfo(pair->labels).fileName())
                             .arg(dataset.classNames.size()));
    dataset.notes += pair->notes;
    if (options.progress)
        options.progress(count, count);
    return dataset;
}

Expected<DatasetInfo> detectIdx(const QString &path)
{
    auto pair = findPair(path);
    if (!pair)
        return pair.error();
    IdxBytes start;
    if (auto ok = readIdx(pair->images, imagesHeaderBytes, start); !ok)
        return ok.error();
    auto header = readHeader(start, 3, pair->images);
    if (!header)
        return header.error();
    DatasetInfo info;
    info.kind = DatasetKind::Idx;
    info.path = path;
    info.format = u"mnist-idx"_s;
    info.samples = header->count;
    info.shape = {1, int(header->rows), int(header->columns)};
    info.bytes = QFileInfo(pair->images).size() + QFileInfo(pair->labels).size();
    info.problems += pair->notes;
    if (!isGzip(pair->images) && start.size != header->expectedBytes)
        info.problems.append(QFileInfo(pair->images).fileName() + u": "_s +
                             sizeError(*header, start.size, true, pair->images).message);
    // The labels are small (one byte per image): read them for the class counts.
    IdxBytes labels;
    auto labelsHeader = readWhole(pair->labels, 1, labels);
    if (!labelsHeader) {
        info.problems.append(QFileInfo(pair->labels).fileName() + u": "_s + labelsHeader.error().message);
        return info;
    }
    if (labelsHeader->count != header->count)
        info.problems.append(
            u"the labels file holds %1 labels for %2 images"_s.arg(labelsHeader->count).arg(header->count));
    std::array<qint64, 256> perLabel{};
    for (qint64 i = 0; i < labelsHeader->count; ++i)
        ++perLabel[labels.data[labelsHeaderBytes + i]];
    for (int value = 0; value < 256; ++value) {
        if (perLabel[size_t(value)] > 0)
            info.classCounts.append({QString::number(value), perLabel[size_t(value)]});
    }
    return info;
}

} // namespace ferry::data
