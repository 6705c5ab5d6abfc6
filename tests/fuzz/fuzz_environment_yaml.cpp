// Fuzz target for Ferry's environment YAML. Beyond not crashing: what Ferry writes, it must
// read back exactly. (The first read may still differ from the raw input where yaml-cpp
// itself normalises, e.g. a byte-order mark inside a flow mapping; the real files in
// tests/data/env/ pin the input round trip.)
#include "env/environmentfile.h"
#include "env/formats.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    using namespace ferry::env;
    const QString text = QString::fromUtf8(reinterpret_cast<const char *>(data), static_cast<qsizetype>(size));
    const EnvironmentRead read = parseEnvironmentYaml(text, QStringLiteral("/nonexistent/fuzz.yml"));
    if (hasErrors(read.diagnostics))
        return 0;
    const QString written = writeEnvironmentYaml(read.environment);
    const EnvironmentRead second = parseEnvironmentYaml(written, QStringLiteral("second.yml"));
    if (hasErrors(second.diagnostics)) {
        std::fprintf(stderr, "Ferry cannot read what it wrote:\n%s\n", qPrintable(written));
        std::abort();
    }
    const EnvironmentRead third =
        parseEnvironmentYaml(writeEnvironmentYaml(second.environment), QStringLiteral("third.yml"));
    if (!(third.environment == second.environment)) {
        const Environment &a = second.environment;
        const Environment &b = third.environment;
        std::fprintf(stderr, "differs: docker=%d python=%d variables=%d extra=%d\nwritten:\n%s\nread back:\n%s\n",
                     !(a.docker == b.docker), !(a.python == b.python), a.variables != b.variables, a.extra != b.extra,
                     qPrintable(writeEnvironmentYaml(a)), qPrintable(writeEnvironmentYaml(b)));
        std::abort();
    }
    for (const Format format :
         {Format::Conda, Format::Pip, Format::AzureMlV1, Format::AzureMlV2, Format::Dockerfile, Format::Devcontainer})
        (void)exportEnvironment(read.environment, format, QStringLiteral("/nonexistent"));
    return 0;
}
