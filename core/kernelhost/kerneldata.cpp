#include "kernelhost/kerneldata.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>

using namespace Qt::StringLiterals;

namespace ferry::kernels {

namespace {

// A Python string literal of `text` (double quotes, backslashes and quotes escaped).
QString pythonString(const QString &text)
{
    QString escaped = text;
    escaped.replace(u"\\"_s, u"\\\\"_s).replace(u"\""_s, u"\\\""_s).replace(u"\n"_s, u"\\n"_s);
    return u'"' + escaped + u'"';
}

// `path` under `folder` (or the folder itself): the part after it, "" for the folder; nullopt: not under it.
std::optional<QString> under(const QString &path, const QString &folder)
{
    const QString p = QDir::cleanPath(QFileInfo(path).absoluteFilePath());
    const QString f = QDir::cleanPath(QFileInfo(folder).absoluteFilePath());
    if (p == f)
        return QString();
    if (p.startsWith(f + u'/'))
        return p.mid(f.size() + 1);
    return std::nullopt;
}

// A Python name from a file's name: "Iris data.csv" -> "iris_data".
QString variableName(const QString &path, const QString &fallback)
{
    static const QRegularExpression invalid(u"[^a-z0-9_]+"_s);
    QString name = QFileInfo(path).completeBaseName().toLower().replace(invalid, u"_"_s);
    while (name.startsWith(u'_'))
        name.remove(0, 1);
    if (name.isEmpty() || name.front().isDigit())
        return fallback;
    return name;
}

} // namespace

Expected<QString> kernelPathExpression(const run::RunSpec &kernelSpec, const QString &localPath)
{
    for (const run::DataChannel &channel : kernelSpec.channels) {
        if (const auto rest = under(localPath, channel.path)) {
            const QString variable = pythonString(u"SM_CHANNEL_"_s + channel.name.toUpper());
            return rest->isEmpty() ? u"os.environ[%1]"_s.arg(variable)
                                   : u"os.path.join(os.environ[%1], %2)"_s.arg(variable, pythonString(*rest));
        }
    }
    // This machine: the file itself (a local kernel works in a copy of its folder made at its start,
    // which a file dropped later is not in).
    if (kernelSpec.target.kind == run::TargetKind::Local)
        return pythonString(QFileInfo(localPath).absoluteFilePath());
    if (!kernelSpec.sourceDir.isEmpty()) {
        if (const auto rest = under(localPath, kernelSpec.sourceDir))
            return pythonString(rest->isEmpty() ? u"."_s : *rest);
    }
    return Error{
        u"the kernel on %1 cannot see %2: it is neither in its working folder nor one of its data channels"_s.arg(
            kernelSpec.target.toString(), localPath),
        localPath, 0, 0,
        u"give it to the kernel as a data channel (ferry kernel start --data NAME=PATH), or put it in the "
        "notebook's folder, and start the kernel again"_s};
}

QString datasetLoadingCode(const data::DatasetInfo &info, const QString &pathExpression)
{
    const QString imports = pathExpression.startsWith(u"os."_s) ? u"import os\n"_s : QString();
    switch (info.kind) {
    case data::DatasetKind::Table: {
        const QString name = variableName(info.path, u"df"_s);
        const QString separator = info.format == u"tsv"_s ? u", sep=\"\\t\""_s : QString();
        return imports +
               u"import pandas as pd\n%1 = pd.read_csv(%2%3)\n%1.head()"_s.arg(name, pathExpression, separator);
    }
    case data::DatasetKind::ImageFolder: {
        const QString name = variableName(info.path, u"images"_s);
        return imports + u"from pathlib import Path\n"
                         "%1 = {d.name: sorted(p for p in d.iterdir() if p.is_file())\n"
                         "      for d in sorted(Path(%2).iterdir()) if d.is_dir()}\n"
                         "{label: len(files) for label, files in %1.items()}"_s.arg(name, pathExpression);
    }
    case data::DatasetKind::Idx: {
        const QString name = variableName(info.path, u"data"_s);
        return imports + u"import struct\nimport numpy as np\n"
                         "with open(%2, \"rb\") as f:\n"
                         "    _, _, dims = struct.unpack(\">HBB\", f.read(4))\n"
                         "    shape = struct.unpack(\">\" + \"I\" * dims, f.read(4 * dims))\n"
                         "    %1 = np.frombuffer(f.read(), dtype=np.uint8).reshape(shape)\n"
                         "%1.shape"_s.arg(name, pathExpression);
    }
    }
    return imports + pathExpression;
}

} // namespace ferry::kernels
