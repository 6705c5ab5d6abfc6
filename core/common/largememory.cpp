#include "common/largememory.h"

#include <cstdlib>
#include <new>

#if __has_include(<sys/mman.h>)
#include <sys/mman.h>
#define FERRY_LARGE_MMAP 1
#endif

namespace ferry {

namespace {
std::size_t rounded(std::size_t bytes)
{
    return (bytes + kLargeBytes - 1) / kLargeBytes * kLargeBytes;
}
} // namespace

void *allocateLarge(std::size_t bytes)
{
#if defined(FERRY_LARGE_MMAP)
    // Straight from the system, on 4 KB pages: no MADV_HUGEPAGE. On the project's machines (a
    // KVM guest) faulting in a gigabyte of huge pages took 2.6-2.9 s of system time against
    // 0.5-0.6 s for 4 KB pages; populating at map time (MAP_POPULATE) saved a little on a load
    // but made every growth of a live column fault in its whole new capacity
    // (docs/metric-store.md).
    void *p = mmap(nullptr, rounded(bytes), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        throw std::bad_alloc();
    return p;
#else
    void *p = std::malloc(bytes);
    if (!p)
        throw std::bad_alloc();
    return p;
#endif
}

void freeLarge(void *p, std::size_t bytes)
{
#if defined(FERRY_LARGE_MMAP)
    munmap(p, rounded(bytes)); // given back to the system at once, not kept in the heap
#else
    (void)bytes;
    std::free(p);
#endif
}

} // namespace ferry
