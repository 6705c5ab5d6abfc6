// Records what data a run read: each channel's size, file count and a fast content fingerprint
// taken at launch.
#pragma once

// What data a run read: each data channel's path, its size, its file count and a fast content
// fingerprint, taken at launch (docs/snapshots.md, "Data"). The fingerprint reads, of every
// regular file under the path (links to files followed, links to folders not), its path
// relative to the channel, its size and bytes at fixed places: the first and the last 64 KiB
// and 16 blocks of 4 KiB spread evenly between. It leaves modification times out, so a copy of
// the same data fingerprints the same; it misses a change that keeps a file's size and falls
// between the blocks it reads.
#include <QJsonObject>
#include <QString>

namespace ferry::snapshot {

struct DataFingerprint {
    QString channel;     // "training"
    QString path;        // as the run was given it
    qint64 bytes = 0;    // the files' sizes together
    qint64 files = 0;    // regular files under the path (1 for a file)
    QString fingerprint; // "fp1:" and 64 hex digits (SHA-256 of what was read); empty: not taken
    qint64 elapsedMs = 0;
    QString error; // why there is no fingerprint (the path is gone, unreadable)
    bool operator==(const DataFingerprint &) const = default;

    // The same data as far as the fingerprint tells (the same fingerprint, size and count).
    bool sameData(const DataFingerprint &other) const;
    QJsonObject toJson() const;
    static DataFingerprint fromJson(const QJsonObject &json);
};

// Blocking: reads the path as above. A file it cannot open is counted in `files` and in the
// fingerprint by its name and size alone.
DataFingerprint fingerprintData(const QString &channel, const QString &path);

} // namespace ferry::snapshot
