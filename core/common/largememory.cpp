#include "common/largememory.h"

#include <cstdlib>
#include <new>

#if __has_include(<sys/mman.h>)
#include <sys/mman.h>
#endif

namespace ferry {

void *allocateLarge(std::size_t bytes)
{
    const std::size_t rounded = (bytes + kLargeBytes - 1) / kLargeBytes * kLargeBytes;
    void *p = std::aligned_alloc(kLargeBytes, rounded);
    if (!p)
        throw std::bad_alloc();
#if defined(MADV_HUGEPAGE)
    madvise(p, rounded, MADV_HUGEPAGE); // a hint: without huge pages the memory is as usual
#endif
    return p;
}

void freeLarge(void *p, std::size_t)
{
    std::free(p);
}

} // namespace ferry
