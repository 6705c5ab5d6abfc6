#include "workspace/filekind.h"

#include "data/datasetpath.h"
#include "env/formats.h"
#include "workspace/workspace.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>

using namespace Qt::StringLiterals;

namespace ferry::workspace {

namespace {

constexpr qint64 kHeadBytes = 256 * 1024; // enough for any environment file's keys

bool isYaml(const QString &suffix)
{
    return suffix == "yml"_L1 || suffix == "yaml"_L1;
}

// A top-level key at the start of a line (after comments): how Ferry's own files name their kind.
bool hasTopLevelKey(const QString &text, QLatin1StringView magic)
{
    const QRegularExpression key(u"(?:^|\\n)"_s + QRegularExpression::escape(QString(magic)));
    return key.match(text).hasMatch();
}

QString head(const QString &path)
{
    QFile file(path); // the user's own file, named on the command line: a link to it is fine
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QString::fromUtf8(file.read(kHeadBytes));
}

} // namespace

bool isEnvironmentName(const QFileInfo &file)
{
    const QString name = file.fileName().toLower();
    if (name.startsWith(u"requirements"_s) && name.endsWith(u".txt"_s))
        return true;
    if (name == "environment.yml"_L1 || name == "environment.yaml"_L1 || name == "conda.yml"_L1 ||
        name == "conda.yaml"_L1 || name.endsWith(u".ferry.yml"_s) || name.endsWith(u".ferry.yaml"_s))
        return true;
    if (name.endsWith(u".json"_s) && name.contains(u"environment"_s))
        return true;
    // environments/<name>.yml inside a workspace, and AzureML v2 environment YAMLs.
    return (name.endsWith(u".yml"_s) || name.endsWith(u".yaml"_s)) &&
           (file.absolutePath().endsWith(u"/environments"_s) || name.contains(u"env"_s));
}

Expected<FileKind> fileKindOf(const QString &path)
{
    const QFileInfo info(path);
    if (path.isEmpty() || !info.exists())
        return Error{u"no such file or folder"_s, path, 0, 0, u"check the path"_s};
    if (info.isDir())
        return FileKind::Folder;
    const QString suffix = info.suffix().toLower();
    const QString name = info.fileName().toLower();
    if (suffix == "ipynb"_L1)
        return FileKind::Notebook;
    const QString text = head(path);
    if (hasTopLevelKey(text, kSweepMagic) || name.endsWith(u".ferry-sweep.yml"_s) ||
        name.endsWith(u".ferry-sweep.yaml"_s))
        return FileKind::Sweep;
    if (hasTopLevelKey(text, kEnvironmentMagic) || isEnvironmentName(info))
        return FileKind::Environment;
    // Other YAML is an environment when its keys say so (conda's dependencies, AzureML's image);
    // a YAML the readers cannot place (compose.yml, say) is not one.
    if (isYaml(suffix)) {
        const auto format = env::detectFormat(path, text);
        if (format && *format != env::Format::Ferry)
            return FileKind::Environment;
    }
    if (data::datasetKindOf(path))
        return FileKind::Dataset;
    return Error{u"not a file Ferry opens"_s, path, 0, 0, u"Ferry opens "_s + openableKinds()};
}

QString enclosingWorkspaceRoot(const QString &path)
{
    const QFileInfo info(path);
    QDir dir(info.isDir() ? info.absoluteFilePath() : info.absolutePath());
    for (;;) {
        if (QFileInfo(dir.filePath(Workspace::stateDirName())).isDir())
            return QDir::cleanPath(dir.absolutePath());
        if (!dir.cdUp())
            return {};
    }
}

QString environmentWorkspaceRoot(const QString &environmentFile)
{
    const QFileInfo info(environmentFile);
    const QDir folder = info.absoluteDir();
    if (folder.dirName() == "environments"_L1)
        return QDir::cleanPath(folder.absoluteFilePath(u".."_s));
    const QString enclosing = enclosingWorkspaceRoot(environmentFile);
    return enclosing.isEmpty() ? QDir::cleanPath(folder.absolutePath()) : enclosing;
}

QString openableKinds()
{
    return u"folders (as workspaces), environment files (Ferry, conda environment.yml, requirements.txt, "
           u"AzureML), notebooks (.ipynb) and datasets. "_s +
           data::supportedFormats();
}

} // namespace ferry::workspace
