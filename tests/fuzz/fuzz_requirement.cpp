// Fuzz target for parseRequirement, one PEP 508 string (tests/fuzz/run.sh; replayed by
// fuzz_requirement_replay).
#include "env/pip/requirement.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QString text = QString::fromUtf8(reinterpret_cast<const char *>(data), static_cast<qsizetype>(size));
    const auto requirement = ferry::env::parseRequirement(text);
    if (requirement)
        (void)requirement->canonical();
    return 0;
}
