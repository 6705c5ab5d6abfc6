// Fuzz target for parseMatchSpec (tests/fuzz/run.sh; replayed by fuzz_matchspec_replay).
// Besides not crashing, a parsed spec's canonical form must read back as itself, and an error
// must point into the text.
#include "env/conda/matchspec.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QString text = QString::fromUtf8(reinterpret_cast<const char *>(data), static_cast<qsizetype>(size));
    const auto spec = ferry::env::parseMatchSpec(text);
    if (!spec) {
        if (spec.error().column < 1 || spec.error().column > text.size() + 1)
            std::abort();
        return 0;
    }
    const QString canonical = spec->canonical();
    const auto again = ferry::env::parseMatchSpec(canonical);
    if (!again || again->canonical() != canonical)
        std::abort();
    return 0;
}
