#include "ui/data/droprouter.h"

#include <QFileInfo>
#include <QMimeData>
#include <QUrl>

using namespace Qt::StringLiterals;

namespace ferry::ui {

namespace {

// Environment files: a Ferry or conda YAML, requirements, AzureML JSON/YAML. Names tell.
bool isEnvironmentFile(const QFileInfo &file)
{
    const QString name = file.fileName().toLower();
    if (name.startsWith(u"requirements"_s) && name.endsWith(u".txt"_s))
        return true;
    if (name == "environment.yml"_L1 || name == "environment.yaml"_L1 || name == "conda.yml"_L1 ||
        name == "conda.yaml"_L1)
        return true;
    if (name.endsWith(u".json"_s) && name.contains(u"environment"_s))
        return true;
    // environments/<name>.yml inside a workspace, and AzureML v2 environment YAMLs.
    return (name.endsWith(u".yml"_s) || name.endsWith(u".yaml"_s)) &&
           (file.absolutePath().endsWith(u"/environments"_s) || name.contains(u"env"_s));
}

} // namespace

DropPlan planDrop(const QStringList &localPaths, const QStringList &otherUrls)
{
    DropPlan plan;
    for (const QString &url : otherUrls)
        plan.refused << u"%1: only local files and folders can be dropped"_s.arg(url);
    for (const QString &path : localPaths) {
        const QFileInfo file(path);
        if (!file.exists()) {
            plan.refused << u"%1: does not exist"_s.arg(path);
            continue;
        }
        if (file.isFile() && file.suffix().compare(u"ipynb"_s, Qt::CaseInsensitive) == 0)
            plan.items << DropPlan::Item{DropPlan::Kind::Notebook, file.absoluteFilePath()};
        else if (file.isFile() && isEnvironmentFile(file))
            plan.items << DropPlan::Item{DropPlan::Kind::Environment, file.absoluteFilePath()};
        else
            plan.items << DropPlan::Item{DropPlan::Kind::Dataset, file.absoluteFilePath()};
    }
    return plan;
}

DropPlan planDrop(const QMimeData &mime)
{
    QStringList local;
    QStringList other;
    for (const QUrl &url : mime.urls()) {
        if (url.isLocalFile())
            local << url.toLocalFile();
        else
            other << url.toString();
    }
    if (!mime.hasUrls() && mime.hasText())
        other << u"text"_s;
    return planDrop(local, other);
}

} // namespace ferry::ui
