#include "cli/runsrerun.h"

#include "cli/remoteoptions.h"
#include "cli/rerunprovenance.h"
#include "cli/trainrerun.h"
#include "snapshot/snapshot.h"
#include "targets/containerengine.h"
#include "tracking/foreignrun.h"
#include "tracking/rerun.h"
#include "tracking/runlauncher.h"

#include <QDateTime>
#include <QDir>
#include <QJsonArray>
#include <QSettings>

using namespace Qt::StringLiterals;

namespace ferry::cli {

namespace {

// The --hp, --target, remote and grant options as a rerun's changes; prints the first bad one.
// A run from elsewhere takes its target's kind from its record unless --target names one, and
// every option from the command line alone.
std::optional<run::RerunChanges> changesOf(const QCommandLineParser &parser, const run::RunSpec &original, Io &io)
{
    run::RerunChanges changes;
    const auto hps = optionPairs(parser.values(u"hp"_s), u"hp"_s, u"runs rerun"_s, io);
    if (!hps)
        return std::nullopt;
    for (const auto &[name, value] : *hps)
        changes.hyperparameters << run::Hyperparameter{name, value};
    run::TargetSpec target{original.target.kind, {}, {}};
    if (parser.isSet(u"target"_s)) {
        auto parsed = run::TargetSpec::parse(parser.value(u"target"_s));
        if (!parsed) {
            io.err << "ferry runs rerun: " << parsed.error().toString() << Qt::endl;
            return std::nullopt;
        }
        target = *parsed;
    } else if (!original.fromElsewhere()) {
        target = original.target;
    }
    // A target of the user's: the one --target names, or a run from elsewhere's kind (a host it
    // ran on is never taken: rerunSpec then asks for one).
    const bool chosen = parser.isSet(u"target"_s) || original.fromElsewhere();
    const bool named = !target.onHost() || !target.host.isEmpty();
    if (chosen && named && !applyRemoteOptions(parser, target, io))
        return std::nullopt;
    const auto grants = grantOptions(parser, target, u"runs rerun"_s, io);
    if (!grants)
        return std::nullopt;
    if ((chosen && named) || (!chosen && target.options != original.target.options))
        changes.target = target; // or --allow-run-arguments on the run's own target
    if (parser.isSet(u"data"_s) || original.fromElsewhere())
        changes.channels = grants->channels;
    changes.secretVariables = grants->secretVariables;
    return changes;
}

// What a run from elsewhere is, and what a rerun of it will run: said before it starts (on stderr,
// which shows control characters escaped, cli/safeterminaloutput.h).
void describeForeign(const run::RunSpec &original, const run::RunSpec &rerun, const QStringList &notes, Io &io)
{
    const QJsonObject imported = original.imported;
    io.err << "run " << original.id << " came from elsewhere (bundle " << imported[u"bundle"_s].toString()
           << ", imported "
           << QDateTime::fromMSecsSinceEpoch(imported[u"importedMs"_s].toInteger()).toString(Qt::ISODate)
           << "): a rerun runs its code here, with only what you give it" << Qt::endl;
    for (const QJsonValue &note : imported[u"notes"_s].toArray())
        io.err << "  kept aside: " << note.toString() << Qt::endl;
    for (const QString &note : notes)
        io.err << "  " << note << Qt::endl;
    io.err << "it will run:" << Qt::endl;
    for (const QString &line : run::launchSummary(rerun))
        io.err << "  " << line << Qt::endl;
}

} // namespace

int rerunRun(const QCommandLineParser &parser, RunContext &context, const run::RunRecord &record, Io &io)
{
    auto original = run::RunSpec::fromJson(record.spec);
    if (!original) {
        io.err << "ferry runs rerun: run " << record.id << ": " << original.error().toString() << Qt::endl;
        return kExitUserError;
    }
    const auto changes = changesOf(parser, *original, io);
    if (!changes)
        return kExitUserError;
    // The embedded trainer has no code to keep: its settings and data are the run.
    if (original->target.kind == run::TargetKind::Embedded && !changes->target) {
        run::RunSpec spec = *original;
        run::applyHyperparameters(spec, changes->hyperparameters);
        return rerunTraining(context, record, spec, io);
    }
    QStringList notes;
    auto spec = run::rerunSpec(record, snapshot::objectsDirFor(context.workspace.runsDir()), *changes, &notes);
    if (!spec) {
        io.err << "ferry runs rerun: " << spec.error().toString() << Qt::endl;
        return kExitUserError;
    }
    if (original->fromElsewhere()) {
        describeForeign(*original, *spec, notes, io);
        if (!parser.isSet(u"accept-foreign"_s)) {
            QDir(spec->sourceDir).removeRecursively();
            io.err << "ferry runs rerun: nothing started; read its code first (ferry runs show " << record.id
                   << "), then add --accept-foreign to run it as shown" << Qt::endl;
            return kExitUserError;
        }
    }
    if (const QString image = run::imageToRebuild(*spec, targets::kContainerEngineSetting.get(QSettings()));
        !image.isEmpty())
        io.err << "image " << image << " is gone: rebuilding it from the run's environment" << Qt::endl;
    auto target = makeTarget(spec->target, io);
    if (!target)
        return kExitUserError;
    const auto launched = run::launchRun(*context.store, *target, context.workspace.runsDir(), *spec);
    if (!launched) {
        io.err << "ferry runs rerun: " << launched.error().toString() << Qt::endl;
        return kExitUserError;
    }
    io.err << "rerun of " << record.id << ": run " << launched->id << ", the code of snapshot "
           << spec->snapshot->tree.left(12) << " in " << spec->sourceDir << Qt::endl;
    if (const auto rerun = run::RunSpec::fromJson(launched->spec))
        compareData(*original, *rerun, io);
    if (spec->target.kind == run::TargetKind::Container)
        comparePackages(context, record.id, launched->id, io);
    if (!parser.isSet(u"follow"_s)) {
        io.out << launched->id << Qt::endl;
        return kExitOk;
    }
    return followRun(context, *launched, io);
}

} // namespace ferry::cli
