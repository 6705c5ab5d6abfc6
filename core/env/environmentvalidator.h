// The rules an environment must meet beyond its file's syntax, written once for the reader, the
// editor and the dialogs.
#pragma once

// The rules an environment must meet beyond its file's syntax (names, versions, sizes, the
// variables, each dependency row), written once: the file reader, the environment editor and
// the new-environment dialog present these findings, so a rule and its message live here only.

#include "common/diagnostic.h"
#include "env/environment.h"

#include <QList>
#include <QString>

namespace ferry::env {

// A part of an environment a finding is about, and what the editor binds a widget or a table
// to: a field of the form, or a list whose entries are rows.
enum class Field {
    Name,
    Version,
    Description,
    BaseImage,
    Registry,
    RegistryUser,
    RegistrySecret,
    RunArguments, // rows
    ShmSize,
    Gpu,
    SystemPackages,
    DockerfileSteps,
    RemoteUser,
    PythonVersion,
    Interpreter,
    UserManaged,
    DevTools,
    Channels,       // rows
    Conda,          // rows
    Pip,            // rows
    PipConstraints, // rows
    IndexUrl,
    ExtraIndexUrls,
    FindLinks,
    TrustedHosts,
    Pre,
    NoIndex,
    Variables, // rows: a variable's name, and for a secret variable its keychain secret
};

// How a field is named where a person reads it: "name", "shm_size", "python_version", "conda".
QString fieldName(Field field);

struct Finding {
    Field field = Field::Name;
    int row = -1; // the entry of a list field; -1 for the field itself
    Diagnostic::Severity severity = Diagnostic::Severity::Error;
    QString message;
    QString hint;
    int column = 0; // 1-based, within the row's text (where a dependency parser stopped); 0: none

    bool isError() const { return severity == Diagnostic::Severity::Error; }
    // The message with its column and hint, as the editor shows it:
    // "column 7: expected a version: write e.g. numpy>=1.24".
    QString text() const;
    bool operator==(const Finding &) const = default;
};

using Findings = QList<Finding>;

// Every finding about `environment`, in the order of its fields.
Findings validate(const Environment &environment);
// The name rule alone (the new-environment dialog, imports naming a file after it): letters of
// either case, digits, '.', '_' and '-', starting with a letter or digit, at most 63
// characters. The image tag takes the name's lower-case form (imageTag).
Findings validateName(const QString &name);
inline bool isValidEnvironmentName(const QString &name)
{
    return validateName(name).isEmpty();
}

} // namespace ferry::env
