// FileLock: an exclusive flock(2) held while the object lives, released by the kernel however the
// process dies.
#pragma once

#include "common/error.h"

#include <QString>

#include <optional>

namespace ferry {

// An exclusive advisory lock on a file (flock(2)), held while the object lives and let go by
// the kernel when the process dies, however it dies: no stale lock to judge, unlike a pid in a
// file. The descriptor is close-on-exec, so a program the holder starts never inherits it. A
// sweep's controller holds its sweep's lock (core/sweep): one controller per sweep.
class FileLock {
public:
    // Takes the lock on `path` (created 0600 if missing; a link at the name is refused) without
    // waiting: nullopt when another process holds it.
    static Expected<std::optional<FileLock>> tryLock(const QString &path);
    // Whether some process holds the lock on `path` now (false when there is no such file).
    static bool isHeld(const QString &path);

    FileLock(FileLock &&other) noexcept;
    FileLock &operator=(FileLock &&other) noexcept;
    FileLock(const FileLock &) = delete;
    FileLock &operator=(const FileLock &) = delete;
    ~FileLock();

private:
    explicit FileLock(int fd) : m_fd(fd) {}
    int m_fd = -1;
};

} // namespace ferry
