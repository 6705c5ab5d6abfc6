// Fuzz target for what a run bundle's spec.json becomes on import (tracking/foreignrun.h, second
// review: an imported run is data): every text checked (control characters, lengths, list sizes),
// then read as a run spec and kept as data. Beyond not crashing: what is kept grants nothing (no
// target option, data path, secret, variable, source folder or interpreter of the bundle's), its
// script stays inside its folder, and the kept spec reads back as itself and passes the same check.
#include "run/runspec.h"
#include "tracking/foreignrun.h"

#include <QJsonDocument>
#include <QJsonObject>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace {

void fail(const char *why)
{
    std::fprintf(stderr, "kept spec: %s\n", why);
    std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    using namespace ferry::run;
    const QJsonDocument document =
        QJsonDocument::fromJson(QByteArray::fromRawData(reinterpret_cast<const char *>(data), qsizetype(size)));
    if (!document.isObject())
        return 0;
    const QStringList multiline{QStringLiteral("environmentSpec")};
    if (!checkForeignText(document.object(), {}, multiline))
        return 0;
    const auto spec = RunSpec::fromJson(document.object());
    if (!spec)
        return 0;
    const auto kept = keepForeignSpec(*spec, QStringLiteral("fuzz.tar.gz"), 0);
    if (!kept)
        return 0;
    const RunSpec &k = kept->spec;
    if (!k.target.options.isEmpty() || !k.channels.isEmpty() || !k.secretVariables.isEmpty() ||
        !k.variables.isEmpty() || !k.sourceDir.isEmpty() || !k.environmentFile.isEmpty() ||
        k.interpreter != QStringLiteral("python3") || !k.fromElsewhere())
        fail("it grants something of the bundle's");
    if (k.target.kind != TargetKind::Embedded &&
        (k.script.startsWith(u'/') || k.script.split(u'/').contains(QStringLiteral(".."))))
        fail("its script leaves its folder");
    if (k.metricDefinitions.size() > kMostMetricDefinitions)
        fail("too many metric definitions");
    const auto again = RunSpec::fromJson(k.toJson());
    if (!again || !(*again == k))
        fail("it does not read back as itself");
    if (!checkForeignText(k.toJson(), {}, multiline))
        fail("it does not pass the check it passed");
    validateRunSpec(k, SpecChecks::NamesOnly);
    return 0;
}
