#include "cli/rerunprovenance.h"

#include "common/safefile.h"
#include "env/environmentfile.h"
#include "env/formats.h"
#include "env/spechash.h"
#include "targets/containerengine.h"
#include "targets/containertarget.h"
#include "targets/imagerecord.h"

#include <QDir>
#include <QFileInfo>
#include <QSettings>

using namespace Qt::StringLiterals;

namespace ferry::cli {

namespace {

// Where the rerun's environment file goes: at the original's place in the snapshot's folder
// when it was in the source folder (its relative paths then mean the snapshot's files), else
// beside the original; hidden and named after the image tag.
QString rerunEnvironmentFile(const run::RunSpec &spec, const QString &originalSourceDir, const QString &folder)
{
    const QFileInfo original(spec.environmentFile);
    const QString name = u".ferry-env-"_s + spec.environmentTag + u".yml"_s;
    if (spec.environmentFile.startsWith(originalSourceDir + u'/')) {
        const QString relative = QDir(originalSourceDir).relativeFilePath(original.absolutePath());
        return QDir::cleanPath(folder + u'/' + relative + u'/' + name);
    }
    return original.absolutePath() + u'/' + name;
}

} // namespace

bool prepareContainerRerun(const run::RunRecord &original, run::RunSpec &spec, const QString &originalSourceDir,
                           const QString &folder, Io &io)
{
    if (spec.target.kind != run::TargetKind::Container || spec.environmentSpec.isEmpty())
        return true; // a run of an earlier Ferry: its environment file as it is now
    const QString file = rerunEnvironmentFile(spec, originalSourceDir, folder);
    if (const auto written = replaceFileSafely(file, spec.environmentSpec.toUtf8()); !written) {
        io.err << "ferry runs rerun: cannot write the run's environment: " << written.error().toString() << Qt::endl;
        return false;
    }
    const env::EnvironmentRead read = env::readEnvironment(file);
    if (env::hasErrors(read.diagnostics)) {
        io.err << "ferry runs rerun: run " << original.id << "'s environment cannot be read back from " << file
               << Qt::endl;
        return false;
    }
    spec.environmentFile = file;
    const QString image = env::imageReference(read.environment);
    const targets::ContainerEngine engine(targets::ContainerTarget::engineSettingFor(spec.target, QSettings()));
    if (!engine.imageExists(image))
        io.err << "image " << image << " is gone: rebuilding it from the run's environment" << Qt::endl;
    return true;
}

void comparePackages(const RunContext &context, const QString &originalId, const QString &rerunId, Io &io)
{
    const auto before = targets::readRunPackages(runDirOf(context, originalId));
    const auto after = targets::readRunPackages(runDirOf(context, rerunId));
    if (!before || !after)
        return;
    const QStringList changes = targets::packageChanges(*before, *after);
    if (changes.isEmpty())
        return;
    io.err << "warning: the image resolved other packages than run " << originalId << "'s (" << changes.size()
           << " lines differ):" << Qt::endl;
    for (const QString &line : changes.mid(0, 40))
        io.err << "  " << line << Qt::endl;
}

void compareData(const run::RunSpec &original, const run::RunSpec &rerun, Io &io)
{
    for (const snapshot::DataFingerprint &now : rerun.data) {
        for (const snapshot::DataFingerprint &then : original.data) {
            if (then.channel == now.channel && !then.sameData(now))
                io.err << "warning: the data of channel " << now.channel << " (" << now.path << ") is not what run "
                       << original.id << " read: " << then.files << " files, " << then.bytes << " bytes, "
                       << then.fingerprint.left(16) << " then; " << now.files << " files, " << now.bytes << " bytes, "
                       << now.fingerprint.left(16) << " now" << Qt::endl;
        }
    }
}

} // namespace ferry::cli
