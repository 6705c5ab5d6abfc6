#include "data/filebytes.h"

#include <QFileInfo>

#include <cstring>

using namespace Qt::StringLiterals;

namespace ferry::data {

Expected<void> checkRegularFile(const QString &path)
{
    const QFileInfo info(path);
    if (!info.exists())
        return Error{u"no such file"_s, path, 0, 0, u"check the path"_s};
    if (info.isDir())
        return Error{u"is a folder, not a file"_s, path, 0, 0, u"name the file inside it"_s};
    if (!info.isFile()) // a pipe or a device could block forever or never end
        return Error{u"not a regular file (a device, pipe or socket)"_s, path, 0, 0, u"save the content to a file"_s};
    return {};
}

FileBytes::~FileBytes()
{
    if (m_map)
        m_file.unmap(m_map);
}

Expected<void> FileBytes::open(const QString &path)
{
    if (auto ok = checkRegularFile(path); !ok)
        return ok.error();
    m_file.setFileName(path);
    if (!m_file.open(QIODevice::ReadOnly))
        return Error{u"cannot read: "_s + m_file.errorString(), path, 0, 0, u"check the file's permissions"_s};
    const qint64 size = m_file.size();
    if (size == 0)
        return {};
    m_map = m_file.map(0, size);
    if (m_map) {
        m_data = reinterpret_cast<const char *>(m_map);
        m_size = size;
        return {};
    }
    m_buffer = m_file.readAll(); // a file system that cannot map (some FUSE mounts)
    if (m_file.error() != QFileDevice::NoError)
        return Error{u"cannot read: "_s + m_file.errorString(), path, 0, 0, u"check the file's permissions"_s};
    m_data = m_buffer.constData();
    m_size = m_buffer.size();
    return {};
}

qint64 countNewlines(const char *begin, const char *end)
{
    qint64 count = 0;
    const char *p = begin;
    while (p < end) {
        p = static_cast<const char *>(std::memchr(p, '\n', static_cast<size_t>(end - p)));
        if (!p)
            break;
        ++count;
        ++p;
    }
    return count;
}

} // namespace ferry::data
