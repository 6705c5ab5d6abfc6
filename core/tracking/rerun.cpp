#include "tracking/rerun.h"

#include "common/safefile.h"
#include "env/environmentfile.h"
#include "env/formats.h"
#include "env/spechash.h"
#include "run/runenvironment.h"
#include "snapshot/snapshot.h"
#include "targets/containerengine.h"
#include "targets/containertarget.h"
#include "tracking/foreignrun.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonObject>
#include <QRegularExpression>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace ferry::run {

namespace {

// Where in the rerun's folder a container rerun's environment file goes: at the original file's
// place when that was inside the source folder (its relative paths then mean the snapshot's
// files), else at the folder's top. Only a clean relative path of single names is taken.
QString environmentPlace(const QString &sourceDir, const QString &environmentFile)
{
    if (sourceDir.isEmpty() || !environmentFile.startsWith(sourceDir + u'/'))
        return {};
    const QString relative = QDir(sourceDir).relativeFilePath(QFileInfo(environmentFile).absolutePath());
    return isPathOfNames(relative) ? relative : QString();
}

// The run's recorded environment (RunSpec::environmentSpec) as a file of the rerun's own folder,
// validated before it is written, named after the image tag computed here from its content, and
// created beneath the folder with no link followed (review H2): the file written and the
// environment it holds.
struct WrittenEnvironment {
    QString file;
    env::Environment environment;
};
Expected<WrittenEnvironment> writeRecordedEnvironment(const RunSpec &spec, const QString &folder, const QString &place)
{
    const env::EnvironmentRead read = env::parseEnvironmentYaml(spec.environmentSpec, u"environmentSpec"_s);
    for (const env::Diagnostic &d : read.diagnostics) {
        if (d.isError())
            return Error{u"its recorded environment is not valid here: "_s + d.toString(),
                         {},
                         0,
                         0,
                         u"start it again with an environment of yours (ferry run --env FILE)"_s};
    }
    static const QRegularExpression tagShape(u"^[a-z0-9][a-z0-9_.-]{0,127}$"_s);
    const QString tag = env::imageTag(read.environment);
    if (!tagShape.match(tag).hasMatch())
        return Error{u"its environment's image tag '%1' is not one Ferry makes"_s.arg(tag), {}, 0, 0, {}};
    const QString relative = (place.isEmpty() ? QString() : place + u'/') + u".ferry-env-"_s + tag + u".yml"_s;
    if (auto written = createNewFileBeneath(folder, relative, spec.environmentSpec.toUtf8()); !written)
        return withContext(u"cannot write the run's environment"_s, written.error());
    return WrittenEnvironment{folder + u'/' + relative, read.environment};
}

// A rerun of a run from elsewhere (foreignrun.h): nothing that grants or trusts comes from it.
// Its target, options, data and secrets are the ones the user gave now; its environment is its
// recorded content, whose variables that would run hidden code are left out.
Expected<void> takeOnlyWhatTheUserGave(RunSpec &spec, const RerunChanges &changes, const QString &folder,
                                       QStringList &notes)
{
    if (!changes.target && spec.target.onHost())
        return Error{u"run %1 came from elsewhere and ran on %2 there: name where its rerun runs"_s.arg(
                         spec.id, spec.target.toString()),
                     {},
                     0,
                     0,
                     u"give the target (--target ssh:HOST or slurm:HOST, or local, or container): the original's "
                     u"host and options are never used"_s};
    spec.target = TargetSpec{spec.target.kind, {}, {}};
    spec.channels.clear();
    spec.variables.clear();
    spec.secretVariables.clear();
    spec.interpreter = u"python3"_s;
    spec.environmentFile.clear();
    if (spec.environmentSpec.isEmpty())
        return {};
    const QJsonObject original = spec.imported[u"original"_s].toObject();
    const QString place =
        environmentPlace(original[u"sourceDir"_s].toString(), original[u"environmentFile"_s].toString());
    const auto written = writeRecordedEnvironment(spec, folder, place);
    if (!written)
        return written.error();
    applyEnvironment(spec, written->environment, written->file);
    QStringList hidden;
    spec.variables.removeIf([&](const std::pair<QString, QString> &v) {
        if (!runsHiddenCode(v.first))
            return false;
        hidden << v.first;
        return true;
    });
    if (!hidden.isEmpty())
        notes << u"left out its environment's variables %1: they would run code the script does not show"_s.arg(
            hidden.join(u", "_s));
    QStringList unnamed;
    for (const auto &[variable, secret] : spec.secretVariables)
        unnamed << u"%1 (keychain secret %2)"_s.arg(variable, secret);
    spec.secretVariables.clear();
    if (!unnamed.isEmpty())
        notes << u"its environment's secret variables %1 are not given: name the ones you mean it to have "
                 u"(--secret-env VARIABLE=SECRET)"_s.arg(unnamed.join(u", "_s));
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

Expected<RunSpec> rerunSpec(const RunRecord &record, const QString &objectsDir, const RerunChanges &changes,
                            QStringList *notes)
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
    // The code of its snapshot, in a new folder of this workspace's own (.ferry/reruns). A file not
    // kept is taken from the run's own source folder, never from one a run from elsewhere names.
    const bool foreign = spec->fromElsewhere();
    const QString tree = spec->snapshot->tree;
    const auto folder = snapshot::materialize(objectsDir, tree, snapshot::rerunsDirFor(objectsDir),
                                              foreign ? QString() : spec->sourceDir);
    if (!folder)
        return withContext(u"run "_s + record.id, folder.error());
    const auto failed = [&](const Error &e) -> Expected<RunSpec> {
        QDir(*folder).removeRecursively();
        return withContext(u"run "_s + record.id, e);
    };
    QStringList said;
    applyHyperparameters(*spec, changes.hyperparameters);
    const QString recordedSourceDir = spec->sourceDir;
    spec->sourceDir = *folder;
    if (foreign) {
        if (auto taken = takeOnlyWhatTheUserGave(*spec, changes, *folder, said); !taken)
            return failed(taken.error());
        applyGrants(*spec, changes);
    } else {
        RerunChanges grants = changes;
        if (grants.target && grants.target->kind == spec->target.kind && grants.target->host == spec->target.host &&
            grants.target->options.isEmpty())
            grants.target.reset(); // the same target: its own options
        applyGrants(*spec, grants);
        // A container run's image from its environment as it recorded it.
        if (spec->target.kind == TargetKind::Container && !spec->environmentSpec.isEmpty()) {
            const auto written =
                writeRecordedEnvironment(*spec, *folder, environmentPlace(recordedSourceDir, spec->environmentFile));
            if (!written)
                return failed(written.error());
            spec->environmentFile = written->file;
        }
    }
    // The container engine is this machine's setting's, never one a run recorded (review H1).
    spec->target.options.remove(targets::ContainerTarget::kEngineOption);
    spec->target.options.remove(u"arrayTask"_s);
    spec->id = newRunId(spec->script);
    spec->rerunOf = record.id;
    spec->imported = {};
    spec->sweep.clear();
    spec->trial = -1;
    spec->snapshot->addedBytes = 0; // the same code: nothing new to keep
    spec->snapshot->addedObjects = 0;
    if (notes)
        *notes = said;
    return *spec;
}

void applyGrants(RunSpec &rerun, const RerunChanges &changes)
{
    if (changes.target)
        rerun.target = *changes.target; // another target: its own options, not the first one's
    if (changes.channels)
        rerun.channels = *changes.channels;
    for (const auto &secret : changes.secretVariables)
        rerun.secretVariables.append(secret);
}

QString imageToRebuild(const RunSpec &rerun, const QString &configuredEngine)
{
    if (rerun.target.kind != TargetKind::Container || rerun.environmentFile.isEmpty())
        return {};
    const env::EnvironmentRead read = env::readEnvironment(rerun.environmentFile);
    if (env::hasErrors(read.diagnostics))
        return {};
    const QString image = env::imageReference(read.environment);
    const auto engine = targets::ContainerEngine::open(configuredEngine); // the settings', never a recorded one
    return engine && !engine->imageExists(image) ? image : QString();
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
