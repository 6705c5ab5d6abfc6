#include "cli/runsrerun.h"

#include "cli/rerunprovenance.h"
#include "cli/trainrerun.h"
#include "snapshot/snapshot.h"
#include "targets/containerengine.h"
#include "tracking/rerun.h"
#include "tracking/runlauncher.h"

#include <QSettings>

using namespace Qt::StringLiterals;

namespace ferry::cli {

namespace {

// The --hp and --target options as a rerun's changes; an Error names the bad one.
Expected<run::RerunChanges> changesOf(const QCommandLineParser &parser)
{
    run::RerunChanges changes;
    for (const QString &pair : parser.values(u"hp"_s)) {
        const qsizetype eq = pair.indexOf(u'=');
        if (eq <= 0)
            return Error{u"--hp takes NAME=VALUE, not '%1'"_s.arg(pair), {}, 0, 0, {}};
        changes.hyperparameters << run::Hyperparameter{pair.left(eq), pair.mid(eq + 1)};
    }
    if (parser.isSet(u"target"_s)) {
        auto target = run::TargetSpec::parse(parser.value(u"target"_s));
        if (!target)
            return target.error();
        changes.target = *target;
    }
    return changes;
}

} // namespace

int rerunRun(const QCommandLineParser &parser, RunContext &context, const run::RunRecord &record, Io &io)
{
    const auto changes = changesOf(parser);
    if (!changes) {
        io.err << "ferry runs rerun: " << changes.error().toString() << Qt::endl;
        return kExitUserError;
    }
    auto original = run::RunSpec::fromJson(record.spec);
    if (!original) {
        io.err << "ferry runs rerun: run " << record.id << ": " << original.error().toString() << Qt::endl;
        return kExitUserError;
    }
    // The embedded trainer has no code to keep: its settings and data are the run.
    if (original->target.kind == run::TargetKind::Embedded && !changes->target) {
        run::RunSpec spec = *original;
        run::applyHyperparameters(spec, changes->hyperparameters);
        return rerunTraining(context, record, spec, io);
    }
    auto spec = run::rerunSpec(record, snapshot::objectsDirFor(context.workspace.runsDir()), *changes);
    if (!spec) {
        io.err << "ferry runs rerun: " << spec.error().toString() << Qt::endl;
        return kExitUserError;
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
