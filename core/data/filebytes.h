// FileBytes: a whole file's bytes, memory-mapped where possible, for parsers that read in place.
#pragma once

#include "common/error.h"

#include <QByteArray>
#include <QFile>
#include <QString>

namespace ferry::data {

// A whole file's bytes, memory-mapped where the file system allows it (read otherwise), so
// parsers read straight from the page cache without copying.
class FileBytes {
public:
    FileBytes() = default;
    FileBytes(const FileBytes &) = delete;
    FileBytes &operator=(const FileBytes &) = delete;
    ~FileBytes();

    // Errors name the path: no such file, a folder, not a regular file, cannot read.
    Expected<void> open(const QString &path);

    const char *data() const { return m_data; }
    qint64 size() const { return m_size; }
    const char *end() const { return m_data + m_size; }

private:
    QFile m_file;
    QByteArray m_buffer;
    uchar *m_map = nullptr;
    const char *m_data = "";
    qint64 m_size = 0;
};

// Checks that `path` names a regular, readable file (the first checks of FileBytes::open).
Expected<void> checkRegularFile(const QString &path);

// How many '\n' bytes lie in [begin, end): memchr, so it runs at memory speed.
qint64 countNewlines(const char *begin, const char *end);

} // namespace ferry::data
