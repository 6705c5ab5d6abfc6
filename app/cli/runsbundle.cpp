#include "cli/runsbundle.h"

#include "tracking/runbundle.h"

#include <QFileInfo>

using namespace Qt::StringLiterals;

namespace ferry::cli {

void addBundleOptions(QCommandLineParser &parser)
{
    parser.addOption(
        {u"bundle"_s, u"export: the run as one file to hand over (its code, metrics, log and model)."_s, u"FILE"_s});
    parser.addOption(
        {u"include-secrets"_s, u"export --bundle: keep the snapshot's secret-like files (.env, keys, credentials)."_s});
    parser.addOption({u"include-values"_s, u"export --bundle: keep the environment's variable values and this "
                                           u"machine's paths (source folder, environment file, data, SSH key)."_s});
}

int exportBundle(const QCommandLineParser &parser, RunContext &context, const run::RunRecord &record, Io &io)
{
    const QString path = parser.value(u"bundle"_s);
    if (parser.isSet(u"to"_s)) {
        io.err << "ferry runs export: --bundle or --to, not both" << Qt::endl;
        return kExitUserError;
    }
    run::BundleExportOptions options;
    options.includeSecrets = parser.isSet(u"include-secrets"_s);
    options.includeValues = parser.isSet(u"include-values"_s);
    const auto written = run::exportRunBundle(*context.store, context.workspace.runsDir(), record, path, options);
    if (!written) {
        io.err << "ferry runs export: " << written.error().toString() << Qt::endl;
        return kExitUserError;
    }
    if (!written->leftOut.isEmpty())
        io.err << "left out of the bundle as secret-like (--include-secrets keeps them): "
               << written->leftOut.join(u", "_s) << Qt::endl;
    else if (options.includeSecrets)
        io.err << "--include-secrets: the snapshot's secret-like files, if any, are in the bundle" << Qt::endl;
    if (!written->leftOutValues.isEmpty())
        io.err << "left out of the bundle as this machine's (--include-values keeps them): "
               << written->leftOutValues.join(u", "_s) << Qt::endl;
    io.err << "wrote " << path << ": run " << record.id << ", " << written->points << " metric points, "
           << written->objects << " snapshot objects"
           << (written->runFiles.isEmpty() ? QString() : u", "_s + written->runFiles.join(u", "_s))
           << "; import it with "
           << "'ferry runs import " << QFileInfo(path).fileName() << "'" << Qt::endl;
    return kExitOk;
}

int importBundle(const QCommandLineParser &parser, const QString &bundlePath, Io &io)
{
    if (bundlePath.isEmpty()) {
        io.err << "ferry runs import: name the bundle, ferry runs import FILE" << Qt::endl;
        return kExitUserError;
    }
    auto context = openRunContext(parser.value(u"workspace"_s), io);
    if (!context)
        return kExitUserError;
    const auto imported = run::importRunBundle(*context->store, context->workspace.runsDir(), bundlePath);
    if (!imported) {
        io.err << "ferry runs import: " << imported.error().toString() << Qt::endl;
        return kExitUserError;
    }
    if (!imported->leftOut.isEmpty())
        io.err << "note: the bundle was made without the snapshot's secret-like files ("
               << imported->leftOut.join(u", "_s) << "); a rerun runs without them" << Qt::endl;
    for (const QString &note : imported->notes)
        io.err << "kept aside as the original's, not applied: " << note << Qt::endl;
    io.err << "imported run " << imported->record.id << " (" << run::runStatusLabel(imported->record)
           << "): " << imported->points << " metric points, " << imported->objects << " snapshot objects ("
           << imported->addedObjects << " new here)" << Qt::endl;
    io.out << imported->record.id << Qt::endl;
    return kExitOk;
}

} // namespace ferry::cli
