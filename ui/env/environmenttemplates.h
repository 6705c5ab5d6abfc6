// The compiled-in templates "New Environment" starts from (PyTorch CPU, PyTorch CUDA, Python).
#pragma once

#include "common/error.h"
#include "env/environment.h"

#include <QList>
#include <QString>

namespace ferry::ui {

// The environments "New Environment" starts from, compiled in from resources/templates/.
struct EnvironmentTemplate {
    QString id;       // "pytorch-cpu"
    QString title;    // "PyTorch (CPU)"
    QString resource; // ":/templates/pytorch-cpu.yml"
};
QList<EnvironmentTemplate> environmentTemplates();

// The template's environment under `name` (version 1); an error if it cannot be read.
Expected<env::Environment> environmentFromTemplate(const QString &id, const QString &name);

} // namespace ferry::ui
