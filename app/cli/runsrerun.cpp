#include "cli/runsrerun.h"

#include "cli/rerunprovenance.h"
#include "cli/trainrerun.h"
#include "snapshot/snapshot.h"
#include "tracking/runlauncher.h"

using namespace Qt::StringLiterals;

namespace ferry::cli {

namespace {

// --hp NAME=VALUE: the parameter changed, or added. False: a malformed one (said).
bool applyHpOptions(const QCommandLineParser &parser, run::RunSpec &spec, Io &io)
{
    for (const QString &pair : parser.values(u"hp"_s)) {
        const qsizetype eq = pair.indexOf(u'=');
        if (eq <= 0) {
            io.err << "ferry runs rerun: --hp takes NAME=VALUE, not '" << pair << "'" << Qt::endl;
            return false;
        }
        const QString name = pair.left(eq), value = pair.mid(eq + 1);
        auto it = std::find_if(spec.hyperparameters.begin(), spec.hyperparameters.end(),
                               [&](const run::Hyperparameter &h) { return h.name == name; });
        if (it == spec.hyperparameters.end())
            spec.hyperparameters << run::Hyperparameter{name, value};
        else
            it->value = value;
    }
    return true;
}

} // namespace

int rerunRun(const QCommandLineParser &parser, RunContext &context, const run::RunRecord &record, Io &io)
{
    auto spec = run::RunSpec::fromJson(record.spec);
    if (!spec) {
        io.err << "ferry runs rerun: run " << record.id << ": " << spec.error().toString() << Qt::endl;
        return kExitUserError;
    }
    if (!applyHpOptions(parser, *spec, io))
        return kExitUserError;
    // The embedded trainer has no code to keep: its settings and data are the run.
    if (spec->target.kind == run::TargetKind::Embedded && !parser.isSet(u"target"_s))
        return rerunTraining(context, record, *spec, io);
    if (!spec->snapshot || spec->snapshot->tree.isEmpty()) {
        io.err << "ferry runs rerun: run " << record.id
               << " has no snapshot of its code (it started before Ferry kept them, or it could not be taken"
               << (spec->snapshot && !spec->snapshot->error.isEmpty() ? u": "_s + spec->snapshot->error : QString())
               << "); start it again as the code is now with 'ferry run " << spec->script << "'" << Qt::endl;
        return kExitUserError;
    }
    const run::RunSpec original = *spec;
    const QString tree = spec->snapshot->tree;
    const QString folder = snapshot::rerunSourceDir(original.sourceDir, tree);
    if (const auto written = snapshot::materialize(snapshot::objectsDirFor(context.workspace.runsDir()), tree, folder,
                                                   original.sourceDir);
        !written) {
        io.err << "ferry runs rerun: " << written.error().toString() << Qt::endl;
        return kExitUserError;
    }
    if (parser.isSet(u"target"_s)) {
        const auto target = run::TargetSpec::parse(parser.value(u"target"_s));
        if (!target) {
            io.err << "ferry runs rerun: " << target.error().toString() << Qt::endl;
            return kExitUserError;
        }
        if (target->kind != spec->target.kind || target->host != spec->target.host)
            spec->target = *target; // another target: its own options, not the first one's
    }
    spec->id.clear();
    spec->sourceDir = folder;
    spec->rerunOf = record.id;
    spec->sweep.clear();
    spec->trial = -1;
    spec->target.options.remove(u"arrayTask"_s);
    spec->snapshot->addedBytes = 0; // the same code: nothing new to keep
    spec->snapshot->addedObjects = 0;
    if (!prepareContainerRerun(record, *spec, original.sourceDir, folder, io))
        return kExitUserError;
    auto target = makeTarget(spec->target, io);
    if (!target)
        return kExitUserError;
    const auto launched = run::launchRun(*context.store, *target, context.workspace.runsDir(), *spec);
    if (!launched) {
        io.err << "ferry runs rerun: " << launched.error().toString() << Qt::endl;
        return kExitUserError;
    }
    io.err << "rerun of " << record.id << ": run " << launched->id << ", the code of snapshot " << tree.left(12)
           << " in " << folder << Qt::endl;
    if (const auto rerun = run::RunSpec::fromJson(launched->spec))
        compareData(original, *rerun, io);
    if (spec->target.kind == run::TargetKind::Container)
        comparePackages(context, record.id, launched->id, io);
    if (!parser.isSet(u"follow"_s)) {
        io.out << launched->id << Qt::endl;
        return kExitOk;
    }
    return followRun(context, *launched, io);
}

} // namespace ferry::cli
