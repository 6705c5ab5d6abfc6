#include "ui/data/droprouter.h"

#include "workspace/filekind.h"

#include <QFileInfo>
#include <QMimeData>
#include <QUrl>

using namespace Qt::StringLiterals;

namespace ferry::ui {

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
        else if (file.isFile() && workspace::isEnvironmentName(file))
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
