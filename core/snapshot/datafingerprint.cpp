#include "snapshot/datafingerprint.h"

#include <QCryptographicHash>
#include <QDir>
#include <QDirIterator>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace ferry::snapshot {

namespace {

constexpr qint64 kEdge = 64 * 1024; // read at each end of a file
constexpr qint64 kBlock = 4 * 1024; // a block read between the ends
constexpr int kBlocks = 16;         // blocks between the ends

// The bytes of `file` the fingerprint reads: all of a small file, else its ends and blocks.
void hashSample(QCryptographicHash &hash, QFile &file, qint64 size)
{
    if (size <= 2 * kEdge + kBlocks * kBlock) {
        hash.addData(file.readAll());
        return;
    }
    hash.addData(file.read(kEdge));
    const qint64 middle = size - 2 * kEdge;
    for (int i = 0; i < kBlocks; ++i) {
        // Evenly spread over the middle, each block whole inside it.
        if (file.seek(kEdge + (middle - kBlock) * i / (kBlocks - 1)))
            hash.addData(file.read(kBlock));
    }
    if (file.seek(size - kEdge))
        hash.addData(file.read(kEdge));
}

// One file into the fingerprint: its name, size, and its sample.
void addFile(QCryptographicHash &hash, const QString &name, const QString &path, qint64 size)
{
    hash.addData(name.toUtf8());
    hash.addData(QByteArrayView("\0", 1));
    hash.addData(QByteArray::number(size));
    hash.addData(QByteArrayView("\0", 1));
    QFile file(path);
    if (file.open(QIODevice::ReadOnly))
        hashSample(hash, file, size);
    else
        hash.addData("unreadable");
    hash.addData(QByteArrayView("\0", 1));
}

} // namespace

bool DataFingerprint::sameData(const DataFingerprint &other) const
{
    return !fingerprint.isEmpty() && fingerprint == other.fingerprint && bytes == other.bytes && files == other.files;
}

QJsonObject DataFingerprint::toJson() const
{
    QJsonObject json{{u"channel"_s, channel},
                     {u"path"_s, path},
                     {u"bytes"_s, static_cast<double>(bytes)},
                     {u"files"_s, static_cast<double>(files)},
                     {u"fingerprint"_s, fingerprint},
                     {u"elapsedMs"_s, static_cast<double>(elapsedMs)}};
    if (!error.isEmpty())
        json[u"error"_s] = error;
    return json;
}

DataFingerprint DataFingerprint::fromJson(const QJsonObject &json)
{
    DataFingerprint d;
    d.channel = json[u"channel"_s].toString();
    d.path = json[u"path"_s].toString();
    d.bytes = static_cast<qint64>(json[u"bytes"_s].toDouble());
    d.files = static_cast<qint64>(json[u"files"_s].toDouble());
    d.fingerprint = json[u"fingerprint"_s].toString();
    d.elapsedMs = static_cast<qint64>(json[u"elapsedMs"_s].toDouble());
    d.error = json[u"error"_s].toString();
    return d;
}

DataFingerprint fingerprintData(const QString &channel, const QString &path)
{
    QElapsedTimer clock;
    clock.start();
    DataFingerprint d{channel, path, 0, 0, {}, 0, {}};
    const QFileInfo top(path);
    if (!top.exists()) {
        d.error = u"%1 does not exist"_s.arg(path);
        return d;
    }
    QCryptographicHash hash(QCryptographicHash::Sha256);
    if (top.isFile()) {
        d.files = 1;
        d.bytes = top.size();
        addFile(hash, top.fileName(), top.absoluteFilePath(), d.bytes);
    } else {
        // Sorted, so the order a file system lists them in does not matter.
        QList<std::pair<QString, qint64>> files;
        QDirIterator it(path, QDir::Files | QDir::Hidden | QDir::System, QDirIterator::Subdirectories);
        const QDir root(top.absoluteFilePath());
        while (it.hasNext()) {
            const QFileInfo info = it.nextFileInfo();
            if (info.isFile()) // a link to a file is its target; a socket or device is not data
                files.append({root.relativeFilePath(info.absoluteFilePath()), info.size()});
        }
        std::sort(files.begin(), files.end());
        for (const auto &[name, size] : files) {
            addFile(hash, name, root.filePath(name), size);
            d.bytes += size;
        }
        d.files = files.size();
    }
    d.fingerprint = u"fp1:"_s + QString::fromLatin1(hash.result().toHex());
    d.elapsedMs = clock.elapsed();
    return d;
}

} // namespace ferry::snapshot
