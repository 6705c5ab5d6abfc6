#include "common/filelock.h"

#include <QFile>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>
#include <utility>

using namespace Qt::StringLiterals;

namespace ferry {

namespace {

int openLockFile(const QString &path, int flags)
{
    const QByteArray name = QFile::encodeName(path);
    int fd = -1;
    do {
        fd = ::open(name.constData(), flags | O_CLOEXEC | O_NOFOLLOW, 0600);
    } while (fd < 0 && errno == EINTR);
    return fd;
}

bool tryFlock(int fd)
{
    int done = -1;
    do {
        done = ::flock(fd, LOCK_EX | LOCK_NB);
    } while (done != 0 && errno == EINTR);
    return done == 0;
}

} // namespace

Expected<std::optional<FileLock>> FileLock::tryLock(const QString &path)
{
    const int fd = openLockFile(path, O_RDWR | O_CREAT);
    if (fd < 0)
        return Error{
            u"cannot open the lock file: %1"_s.arg(QString::fromLocal8Bit(std::strerror(errno))), path, 0, 0, {}};
    if (tryFlock(fd))
        return std::optional<FileLock>(FileLock(fd));
    const int why = errno;
    ::close(fd);
    if (why == EWOULDBLOCK)
        return std::optional<FileLock>();
    return Error{u"cannot lock the file: %1"_s.arg(QString::fromLocal8Bit(std::strerror(why))), path, 0, 0, {}};
}

bool FileLock::isHeld(const QString &path)
{
    const int fd = openLockFile(path, O_RDONLY);
    if (fd < 0)
        return false;
    const bool free = tryFlock(fd); // let go at once by the close below
    ::close(fd);
    return !free;
}

FileLock::FileLock(FileLock &&other) noexcept : m_fd(std::exchange(other.m_fd, -1)) {}

FileLock &FileLock::operator=(FileLock &&other) noexcept
{
    if (this != &other) {
        if (m_fd >= 0)
            ::close(m_fd);
        m_fd = std::exchange(other.m_fd, -1);
    }
    return *this;
}

FileLock::~FileLock()
{
    if (m_fd >= 0)
        ::close(m_fd); // lets go of the lock
}

} // namespace ferry
