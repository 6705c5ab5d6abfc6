#include "ui/env/environmenttemplates.h"

#include "env/environmentfile.h"
#include "ui/resources/resources.h"

#include <QCoreApplication>
#include <QFile>

using namespace Qt::StringLiterals;

namespace ferry::ui {

QList<EnvironmentTemplate> environmentTemplates()
{
    return {
        {u"python"_s, QCoreApplication::translate("EnvironmentTemplates", "Plain Python"), u":/templates/python.yml"_s},
        {u"pytorch-cpu"_s, QCoreApplication::translate("EnvironmentTemplates", "PyTorch (CPU)"),
         u":/templates/pytorch-cpu.yml"_s},
        {u"pytorch-cuda"_s, QCoreApplication::translate("EnvironmentTemplates", "PyTorch (CUDA, NVIDIA GPU)"),
         u":/templates/pytorch-cuda.yml"_s},
    };
}

Expected<env::Environment> environmentFromTemplate(const QString &id, const QString &name)
{
    initResources();
    for (const EnvironmentTemplate &t : environmentTemplates()) {
        if (t.id != id)
            continue;
        QFile file(t.resource);
        if (!file.open(QIODevice::ReadOnly))
            return Error{u"the template is missing from this build"_s, t.resource, 0, 0, u"reinstall Ferry"_s};
        env::EnvironmentRead read = env::parseEnvironmentYaml(QString::fromUtf8(file.readAll()), t.resource);
        for (const env::Diagnostic &d : read.diagnostics)
            if (d.isError())
                return d.where;
        if (!name.isEmpty())
            read.environment.name = name;
        read.environment.version = u"1"_s;
        return read.environment;
    }
    return Error{u"no template '%1'"_s.arg(id), {}, 0, 0, u"choose one of the listed templates"_s};
}

} // namespace ferry::ui
