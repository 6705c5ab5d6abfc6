#pragma once

#include <QByteArray>
#include <QFile>
#include <QString>

// Whole-file writes and reads for test set-up; the code under test uses core/common/safefile.h.
namespace ferry::test {

inline bool writeFile(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

inline QByteArray readFile(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace ferry::test
