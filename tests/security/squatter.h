#pragma once

// Another local user's traps for M9 and L4: folders at the names Ferry (or Qt's fallback) once
// used in the shared /tmp, owned by `nobody` and open to all (0777), and listening sockets in
// them, owned by `nobody` too, that count who connects. The tests run as root, so they can
// plant files as another user; what they plant they remove.
#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QList>
#include <QString>

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

namespace ferry::test {

constexpr uid_t kNobody = 65534;

// A folder at `path` owned by nobody, mode 0777. False (with the reason in `why`) when
// something that is not an earlier plant of ours is there already.
inline bool plantSquattedFolder(const QString &path, QString &why)
{
    const QByteArray name = QFile::encodeName(path);
    struct stat st {};
    if (::lstat(name.constData(), &st) == 0) {
        if (!S_ISDIR(st.st_mode) || st.st_uid != kNobody) {
            why = path + QStringLiteral(" exists and is not a squat of this test: remove it first");
            return false;
        }
    } else if (::mkdir(name.constData(), 0777) != 0) {
        why = path + QStringLiteral(": ") + QString::fromLocal8Bit(std::strerror(errno));
        return false;
    }
    if (::chown(name.constData(), kNobody, kNobody) != 0 || ::chmod(name.constData(), 0777) != 0) {
        why = path + QStringLiteral(": ") + QString::fromLocal8Bit(std::strerror(errno));
        return false;
    }
    return true;
}

// A socket that listens at `path`, owned by nobody (mode 0777), and counts connections.
class SquatterSocket {
public:
    explicit SquatterSocket(const QString &path) : m_path(path)
    {
        const QByteArray name = QFile::encodeName(path);
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        if (name.size() >= qsizetype(sizeof address.sun_path))
            return;
        std::memcpy(address.sun_path, name.constData(), size_t(name.size()));
        ::unlink(name.constData());
        m_fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (m_fd < 0 || ::bind(m_fd, reinterpret_cast<sockaddr *>(&address), sizeof address) != 0 ||
            ::listen(m_fd, 16) != 0 || ::chown(name.constData(), kNobody, kNobody) != 0 ||
            ::chmod(name.constData(), 0777) != 0) {
            close();
        }
    }
    ~SquatterSocket()
    {
        close();
        ::unlink(QFile::encodeName(m_path).constData());
    }
    SquatterSocket(const SquatterSocket &) = delete;
    SquatterSocket &operator=(const SquatterSocket &) = delete;

    bool listening() const { return m_fd >= 0; }
    // Connections made to it so far (each taken and closed).
    int connections()
    {
        while (m_fd >= 0) {
            const int client = ::accept4(m_fd, nullptr, nullptr, SOCK_CLOEXEC);
            if (client < 0)
                break;
            ::close(client);
            ++m_connections;
        }
        return m_connections;
    }

private:
    void close()
    {
        if (m_fd >= 0)
            ::close(m_fd);
        m_fd = -1;
    }

    QString m_path;
    int m_fd = -1;
    int m_connections = 0;
};

// What a folder holds, but `.` and `..`.
inline QStringList entriesOf(const QString &dir)
{
    return QDir(dir).entryList(QDir::AllEntries | QDir::System | QDir::Hidden | QDir::NoDotAndDotDot);
}

} // namespace ferry::test
