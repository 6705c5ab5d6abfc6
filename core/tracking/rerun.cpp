#include "tracking/rerun.h"

#include "snapshot/snapshot.h"

#include <QDir>
#include <QFileInfo>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace ferry::run {

void applyHyperparameters(RunSpec &spec, const QList<Hyperparameter> &changes)
{
    for (const Hyperparameter &change : changes) {
        auto it = std::find_if(spec.hyperparameters.begin(), spec.hyperparameters.end(),
                               [&](const Hyperparameter &h) { return h.name == change.name; });
        if (it == spec.hyperparameters.end())
            spec.hyperparameters << change;
        else
            it->value = change.value;
    }
}

Expected<RunSpec> rerunSpec(const RunRecord &record, const QString &objectsDir, const RerunChanges &changes)
{
    auto spec = RunSpec::fromJson(record.spec);
    if (!spec)
        return withContext(u"run "_s + record.id, spec.error());
    if (!spec->snapshot || spec->snapshot->tree.isEmpty()) {
        const QString why =
            spec->snapshot && !spec->snapshot->error.isEmpty() ? u": "_s + spec->snapshot->error : QString();
        return Error{u"run %1 has no snapshot of its code (it started before Ferry kept them, or it could not be "
                     "taken%2)"_s.arg(record.id, why),
                     {},
                     0,
                     0,
                     u"start it again as the code is now with 'ferry run %1'"_s.arg(spec->script)};
    }
    // A run imported from another machine (ferry runs import) has its source folder there: the
    // snapshot's files go into this workspace (<root>/.ferry/objects), under that folder's name.
    const QString original =
        QFileInfo(spec->sourceDir).isDir()
            ? spec->sourceDir
            : QDir(QDir::cleanPath(objectsDir + u"/../.."_s)).filePath(QFileInfo(spec->sourceDir).fileName());
    const QString tree = spec->snapshot->tree;
    const QString folder = snapshot::rerunSourceDir(original, tree);
    if (const auto written = snapshot::materialize(objectsDir, tree, folder, original); !written)
        return written.error();
    applyHyperparameters(*spec, changes.hyperparameters);
    if (changes.target && (changes.target->kind != spec->target.kind || changes.target->host != spec->target.host))
        spec->target = *changes.target; // another target: its own options, not the first one's
    spec->id = newRunId(spec->script);
    spec->sourceDir = folder;
    spec->rerunOf = record.id;
    spec->sweep.clear();
    spec->trial = -1;
    spec->target.options.remove(u"arrayTask"_s);
    spec->snapshot->addedBytes = 0; // the same code: nothing new to keep
    spec->snapshot->addedObjects = 0;
    return *spec;
}

} // namespace ferry::run
