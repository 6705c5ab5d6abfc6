// UniqueFd: a file descriptor closed when it goes out of scope, for walks that open folders
// relative to their parent.
#pragma once

// A file descriptor closed when it goes out of scope: for the walks that open each folder from
// its parent's descriptor (untrustedtree.cpp, snapshot::materialize), never through a path.
#include <unistd.h>
#include <utility>

namespace ferry {

class UniqueFd {
public:
    explicit UniqueFd(int fd = -1) : m_fd(fd) {}
    UniqueFd(const UniqueFd &) = delete;
    UniqueFd &operator=(const UniqueFd &) = delete;
    UniqueFd(UniqueFd &&other) noexcept : m_fd(std::exchange(other.m_fd, -1)) {}
    UniqueFd &operator=(UniqueFd &&other) noexcept
    {
        std::swap(m_fd, other.m_fd);
        return *this;
    }
    ~UniqueFd()
    {
        if (m_fd >= 0)
            ::close(m_fd);
    }
    int get() const { return m_fd; }
    bool valid() const { return m_fd >= 0; }

private:
    int m_fd;
};

} // namespace ferry
