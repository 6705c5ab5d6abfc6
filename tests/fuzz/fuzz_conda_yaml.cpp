// Fuzz target for conda environment.yml, and for AzureML v2 YAML (the same bytes read both ways).
#include "env/azureml.h"
#include "env/condafile.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    using namespace ferry::env;
    const QString text = QString::fromUtf8(reinterpret_cast<const char *>(data), static_cast<qsizetype>(size));
    const EnvironmentRead conda = parseCondaYaml(text, QStringLiteral("/nonexistent/environment.yml"));
    if (!hasErrors(conda.diagnostics))
        (void)writeCondaYaml(conda.environment);
    const EnvironmentRead v2 = parseAzureMlV2Yaml(text, QStringLiteral("/nonexistent/env.yml"));
    if (!hasErrors(v2.diagnostics))
        (void)writeAzureMlV2(v2.environment, QStringLiteral("env.conda.yml"));
    return 0;
}
