// Fuzz target for Ferry's environment YAML. Beyond not crashing: an input that reads without
// errors must survive writeEnvironmentYaml → parseEnvironmentYaml unchanged.
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
    const EnvironmentRead again =
        parseEnvironmentYaml(writeEnvironmentYaml(read.environment), QStringLiteral("again.yml"));
    if (hasErrors(again.diagnostics) || !(again.environment == read.environment)) {
        // The round trip lost or changed something: show both sides, then fail.
        std::fprintf(stderr, "written:\n%s\nread back:\n%s\n", qPrintable(writeEnvironmentYaml(read.environment)),
                     qPrintable(writeEnvironmentYaml(again.environment)));
        std::abort();
    }
    for (const Format format :
         {Format::Conda, Format::Pip, Format::AzureMlV1, Format::AzureMlV2, Format::Dockerfile, Format::Devcontainer})
        (void)exportEnvironment(read.environment, format, QStringLiteral("/nonexistent"));
    return 0;
}
