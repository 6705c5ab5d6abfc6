// Fuzz target for discoverScriptParameters, a training script's argparse calls read from its
// source text (tests/fuzz/run.sh; replayed by fuzz_script_parameters_replay).
#include "run/scriptparameters.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QString text = QString::fromUtf8(reinterpret_cast<const char *>(data), static_cast<qsizetype>(size));
    for (const auto &parameter : ferry::run::discoverScriptParameters(text)) {
        if (parameter.name.isEmpty() || parameter.line < 1)
            __builtin_trap(); // every parameter found has a name and a line
        (void)parameter.defaultText();
    }
    return 0;
}
