// An allocator that maps big arrays straight from the system, so freeing a chart's columns returns
// the memory at once.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

namespace ferry {

// Memory for big arrays (a chart's columns, a series read from the store: 8 MB a column for a
// million points) mapped straight from the system and unmapped when freed, so a chart that lets
// go of a gigabyte of columns gives it back at once instead of leaving it in the heap. Small
// arrays use the ordinary heap.
void *allocateLarge(std::size_t bytes);
void freeLarge(void *p, std::size_t bytes);
inline constexpr std::size_t kLargeBytes = std::size_t(2) << 20; // from here on an array is large

template <typename T> struct LargeAllocator {
    using value_type = T;
    LargeAllocator() = default;
    template <typename U> LargeAllocator(const LargeAllocator<U> &) noexcept {}
    T *allocate(std::size_t n)
    {
        if (n * sizeof(T) < kLargeBytes)
            return std::allocator<T>().allocate(n);
        return static_cast<T *>(allocateLarge(n * sizeof(T)));
    }
    void deallocate(T *p, std::size_t n) noexcept
    {
        if (n * sizeof(T) < kLargeBytes)
            std::allocator<T>().deallocate(p, n);
        else
            freeLarge(p, n * sizeof(T));
    }
    template <typename U> bool operator==(const LargeAllocator<U> &) const noexcept { return true; }
};

template <typename T> using LargeVector = std::vector<T, LargeAllocator<T>>;

} // namespace ferry
