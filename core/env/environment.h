// Environment: the value type holding everything a run's image and process need (Docker, Python,
// conda, pip, variables).
#pragma once

#include "env/conda/matchspec.h"
#include "env/pip/requirementsfile.h"

#include <nlohmann/json.hpp>

#include <QList>
#include <QString>
#include <QStringList>

#include <utility>

namespace ferry::env {

enum class GpuMode { Auto, On, Off };

QString gpuModeName(GpuMode mode); // "auto", "on", "off"

// Keys Ferry does not model, read from a file and written back in the same place so a
// round trip loses nothing. A JSON object; null when there are none.
using ExtraKeys = nlohmann::ordered_json;

struct RegistryCredentials {
    QString address; // "myregistry.azurecr.io"; empty: the base image's own registry
    QString username;
    QString passwordSecret; // the NAME of a keychain secret, never the password itself
    bool operator==(const RegistryCredentials &) const = default;
};

struct DockerSection {
    QString baseImage; // "python:3.11-slim", "mcr.microsoft.com/azureml/openmpi4.1.0-ubuntu20.04"
    RegistryCredentials registry;
    QStringList runArguments; // extra `docker run` arguments
    QString shmSize;          // "2g"; empty: Docker's default
    GpuMode gpu = GpuMode::Auto;
    QStringList systemPackages; // apt packages, installed in their own layer
    QString dockerfileSteps;    // extra Dockerfile lines, after system packages
    QString remoteUser;         // the devcontainer's user; empty: root
    ExtraKeys extra;
    bool operator==(const DockerSection &) const = default;
};

struct PythonSection {
    QString version;      // "3.11"
    QStringList channels; // conda channels, highest priority first
    QList<MatchSpec> condaDependencies;
    QList<PipRequirement> pipRequirements;
    QList<PipRequirement> pipConstraints; // `-c` constraints: versions pinned if installed at all
    PipOptions pipOptions;
    QString interpreterPath;  // "python" when empty
    bool userManaged = false; // the image already has everything: Ferry installs nothing
    QStringList devTools;     // pip packages for the devcontainer's dev stage (black, pytest, ...)
    ExtraKeys extra;
    bool operator==(const PythonSection &) const = default;
};

// Everything a run's image and process need. A value type: the editor's undo commands keep
// whole before/after values, and equality says whether anything changed.
struct Environment {
    QString name;
    QString version = QStringLiteral("1");
    QString description;
    DockerSection docker;
    PythonSection python;
    QList<std::pair<QString, QString>> variables; // in order; given at run time, never baked in
    // Variables whose value in `variables` is the NAME of a keychain secret, never the value itself:
    // the secret is looked up and injected at launch, and left out of every export.
    QStringList secretVariables;
    ExtraKeys extra; // unknown top-level keys, and foreign formats' own keys
    bool operator==(const Environment &) const = default;

    bool isSecretVariable(const QString &variable) const { return secretVariables.contains(variable); }
    // A copy without the secret variables (for formats that cannot carry a reference to a secret).
    Environment withoutSecretVariables() const
    {
        Environment copy = *this;
        copy.variables.removeIf([this](const auto &v) { return secretVariables.contains(v.first); });
        copy.secretVariables.clear();
        return copy;
    }
};

} // namespace ferry::env
