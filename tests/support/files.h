// Whole-file writes and reads for a test's set-up.
#pragma once

#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QString>
#include <QTemporaryDir>

// Whole-file writes and reads for test set-up; the code under test uses core/common/safefile.h.
namespace ferry::test {

// Writes `bytes` to `path` (replacing what was there), making the folders above it first.
inline bool writeFile(const QString &path, const QByteArray &bytes)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

// The same for set-up the test cannot go on without: a failure stops the test program.
inline void writeFileOrStop(const QString &path, const QByteArray &bytes)
{
    if (!writeFile(path, bytes))
        qFatal("cannot write %s", qPrintable(path));
}

// Ferry's settings of the test's own while it lives (XDG_CONFIG_HOME in an empty folder, the one
// before given back at its end): no rate, no month's budget, no host of the user's.
class OwnSettings {
public:
    OwnSettings() : m_before(qgetenv("XDG_CONFIG_HOME")) { qputenv("XDG_CONFIG_HOME", m_dir.path().toLocal8Bit()); }
    ~OwnSettings() { qputenv("XDG_CONFIG_HOME", m_before); }
    OwnSettings(const OwnSettings &) = delete;
    OwnSettings &operator=(const OwnSettings &) = delete;

private:
    QTemporaryDir m_dir;
    QByteArray m_before;
};

// A file of the tests' data (tests/data/, FERRY_TEST_DATA): testData(u"notebooks/x.ipynb"_s).
inline QString testData(const QString &relative)
{
    return QStringLiteral(FERRY_TEST_DATA "/") + relative;
}

// What `path` holds; `whenMissing` (empty unless given) when it cannot be read, so that a
// comparison's failure can say the file was not there (kMissing).
inline const QByteArray kMissing = QByteArrayLiteral("<missing>");
inline QByteArray readFile(const QString &path, const QByteArray &whenMissing = {})
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : whenMissing;
}

} // namespace ferry::test
