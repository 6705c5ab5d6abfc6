// Fuzz target for the sweep file (docs/sweep-format.md) and its samplers. Beyond not crashing:
// what Ferry writes it reads back to the same spec, and every trial a sampler plans for an
// accepted file is inside the file's space.
#include "sweep/sampler.h"
#include "sweep/sweepfile.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    using namespace ferry::sweep;
    const QString text = QString::fromUtf8(reinterpret_cast<const char *>(data), static_cast<qsizetype>(size));
    const SweepRead read = parseSweepYaml(text, QStringLiteral("/nonexistent/sweep.yml"));
    if (ferry::hasErrors(read.diagnostics))
        return 0;
    const QString written = toSweepYaml(read.spec);
    SweepRead back = parseSweepYaml(written, QStringLiteral("back.yml"));
    for (int i = 0; i < back.spec.parameters.size() && i < read.spec.parameters.size(); ++i)
        back.spec.parameters[i].line = read.spec.parameters[i].line;
    if (ferry::hasErrors(back.diagnostics) || !(back.spec == read.spec)) {
        std::fprintf(stderr, "Ferry does not read back what it wrote:\n%s\n", qPrintable(written));
        std::abort();
    }
    const Sampler sampler(read.spec);
    std::vector<Observation> done;
    for (int n = 0; n < std::min(read.spec.plannedTrials(), 14); ++n) {
        const auto point = sampler.sample(n, done);
        if (!point)
            std::abort(); // a planned trial always has parameters
        for (int p = 0; p < read.spec.parameters.size(); ++p) {
            const double c = (*point)[std::size_t(p)];
            if (!(c >= sampler.low(p) && c <= sampler.high(p)))
                std::abort();
        }
        const auto hp = sampler.hyperparameters(*point);
        if (hp.size() != read.spec.parameters.size())
            std::abort();
        done.push_back({*point, double(n % 5)});
    }
    return 0;
}
