// Fuzz target for parseRequirementsText, a whole requirements.txt (tests/fuzz/run.sh; replayed
// by fuzz_requirements_text_replay). The path lies in a folder that does not exist, so relative
// `-r`/`-c` includes find nothing on disk.
#include "env/pip/requirementsfile.h"

#include <cstddef>
#include <cstdint>

using namespace Qt::StringLiterals;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QString text = QString::fromUtf8(reinterpret_cast<const char *>(data), static_cast<qsizetype>(size));
    const auto file = ferry::env::parseRequirementsText(text, u"/nonexistent-ferry-fuzz/requirements.txt"_s);
    for (const auto &requirement : file.requirements)
        (void)requirement.canonical();
    return 0;
}
