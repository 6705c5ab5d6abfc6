#include "tracking/rerun.h"

#include "common/safefile.h"
#include "env/environmentfile.h"
#include "env/formats.h"
#include "env/spechash.h"
#include "snapshot/snapshot.h"
#include "targets/containerengine.h"
#include "targets/containertarget.h"

#include <QDir>
#include <QFileInfo>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace ferry::run {

namespace {

// Where a container rerun's environment file goes (see rerunSpec): `recordedSourceDir` is the
// source folder the run recorded, `folder` the snapshot's. An original file whose folder is gone
// (a run imported from another machine) puts it at the snapshot folder's top.
QString rerunEnvironmentFile(const RunSpec &spec, const QString &recordedSourceDir, const QString &folder)
{
    const QFileInfo original(spec.environmentFile);
    const QString name = u".ferry-env-"_s + spec.environmentTag + u".yml"_s;
    if (spec.environmentFile.startsWith(recordedSourceDir + u'/')) {
        const QString relative = QDir(recordedSourceDir).relativeFilePath(original.absolutePath());
        return QDir::cleanPath(folder + u'/' + relative + u'/' + name);
    }
    if (!QFileInfo(original.absolutePath()).isDir())
        return folder + u'/' + name;
    return original.absolutePath() + u'/' + name;
}

// The recorded environment of a container run written where its rerun reads it; a run of an
// earlier Ferry (none recorded) keeps its environment file as it is now.
Expected<void> useRecordedEnvironment(RunSpec &spec, const QString &recordedSourceDir, const QString &folder)
{
    if (spec.target.kind != TargetKind::Container || spec.environmentSpec.isEmpty())
        return {};
    const QString file = rerunEnvironmentFile(spec, recordedSourceDir, folder);
    if (const auto written = replaceFileSafely(file, spec.environmentSpec.toUtf8()); !written)
        return withContext(u"cannot write the run's environment"_s, written.error());
    if (env::hasErrors(env::readEnvironment(file).diagnostics))
        return Error{u"the run's recorded environment cannot be read back from %1"_s.arg(file), file, 0, 0, {}};
    spec.environmentFile = file;
    return {};
}

} // namespace

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
    const QString recordedSourceDir = spec->sourceDir;
    spec->sourceDir = folder;
    spec->rerunOf = record.id;
    spec->sweep.clear();
    spec->trial = -1;
    spec->target.options.remove(u"arrayTask"_s);
    spec->snapshot->addedBytes = 0; // the same code: nothing new to keep
    spec->snapshot->addedObjects = 0;
    if (const auto environment = useRecordedEnvironment(*spec, recordedSourceDir, folder); !environment)
        return withContext(u"run "_s + record.id, environment.error());
    return *spec;
}

QString imageToRebuild(const RunSpec &rerun, const QString &configuredEngine)
{
    if (rerun.target.kind != TargetKind::Container || rerun.environmentFile.isEmpty())
        return {};
    const env::EnvironmentRead read = env::readEnvironment(rerun.environmentFile);
    if (env::hasErrors(read.diagnostics))
        return {};
    const QString image = env::imageReference(read.environment);
    const targets::ContainerEngine engine(targets::ContainerTarget::engineSettingFor(rerun.target, configuredEngine));
    return engine.imageExists(image) ? QString() : image;
}

QStringList dataChanges(const RunSpec &original, const RunSpec &rerun)
{
    QStringList lines;
    for (const snapshot::DataFingerprint &now : rerun.data) {
        for (const snapshot::DataFingerprint &then : original.data) {
            if (then.channel == now.channel && !then.sameData(now))
                lines << u"the data of channel %1 (%2) is not what run %3 read: %4 files, %5 bytes, %6 then; %7 files, "
                         "%8 bytes, %9 now"_s.arg(now.channel, now.path, original.id, QString::number(then.files),
                                                  QString::number(then.bytes), then.fingerprint.left(16),
                                                  QString::number(now.files), QString::number(now.bytes),
                                                  now.fingerprint.left(16));
        }
    }
    return lines;
}

} // namespace ferry::run
