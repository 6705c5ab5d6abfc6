// Fuzz target for AzureML v1 azureml_environment.json.
#include "env/azureml.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    using namespace ferry::env;
    const QString text = QString::fromUtf8(reinterpret_cast<const char *>(data), static_cast<qsizetype>(size));
    const EnvironmentRead read = parseAzureMlV1Json(text, QStringLiteral("/nonexistent/azureml_environment.json"));
    if (!hasErrors(read.diagnostics))
        (void)writeAzureMlV1Json(read.environment);
    return 0;
}
