#include "env/formats.h"

#include "common/textfile.h"
#include "env/azureml.h"
#include "env/condafile.h"
#include "env/environmentvalidator.h"
#include "env/imagegenerator.h"
#include "env/yamlsupport.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>

using namespace Qt::StringLiterals;

namespace ferry::env {

namespace {

struct FormatName {
    Format format;
    const char16_t *name;
};
constexpr FormatName kNames[] = {
    {Format::Ferry, u"ferry"},
    {Format::Conda, u"conda"},
    {Format::Pip, u"pip"},
    {Format::AzureMlV1, u"azureml-v1"},
    {Format::AzureMlV2, u"azureml-v2"},
    {Format::Dockerfile, u"dockerfile"},
    {Format::Devcontainer, u"devcontainer"},
};

Diagnostic warning(const QString &message, const QString &path = {})
{
    return Diagnostic{Diagnostic::Severity::Warning, Error{message, path, 0, 0, {}}};
}

template <typename T, typename Key>
void mergeByName(QList<T> &into, const QList<T> &more, Key key, const QString &path, Diagnostics &diagnostics)
{
    for (const T &item : more) {
        const auto same = std::find_if(into.begin(), into.end(), [&](const T &existing) {
            return !key(existing).isEmpty() && key(existing) == key(item);
        });
        if (same == into.end()) {
            into << item;
        } else if (!(*same == item)) {
            diagnostics << warning(u"'%1' replaces '%2' from an earlier file"_s.arg(item.text, same->text), path);
            *same = item;
        }
    }
}

void appendUnique(QStringList &into, const QStringList &more)
{
    for (const QString &v : more)
        if (!into.contains(v))
            into << v;
}

void mergeInto(Environment &into, const Environment &more, const QString &path, Diagnostics &diagnostics)
{
    auto fill = [](QString &field, const QString &value) {
        if (field.isEmpty())
            field = value;
    };
    fill(into.name, more.name);
    if (into.version == u"1"_s)
        into.version = more.version;
    fill(into.description, more.description);
    fill(into.docker.baseImage, more.docker.baseImage);
    if (into.docker.registry == RegistryCredentials())
        into.docker.registry = more.docker.registry;
    appendUnique(into.docker.runArguments, more.docker.runArguments);
    fill(into.docker.shmSize, more.docker.shmSize);
    if (into.docker.gpu == GpuMode::Auto)
        into.docker.gpu = more.docker.gpu;
    appendUnique(into.docker.systemPackages, more.docker.systemPackages);
    if (!more.docker.dockerfileSteps.isEmpty())
        into.docker.dockerfileSteps +=
            (into.docker.dockerfileSteps.isEmpty() ? u""_s : u"\n"_s) + more.docker.dockerfileSteps;
    fill(into.docker.remoteUser, more.docker.remoteUser);

    PythonSection &p = into.python;
    const PythonSection &q = more.python;
    fill(p.version, q.version);
    appendUnique(p.channels, q.channels);
    mergeByName(
        p.condaDependencies, q.condaDependencies, [](const MatchSpec &s) { return s.name; }, path, diagnostics);
    auto pipKey = [](const PipRequirement &r) {
        return r.kind == PipRequirement::Kind::Requirement ? r.requirement.normalizedName() : r.text;
    };
    mergeByName(p.pipRequirements, q.pipRequirements, pipKey, path, diagnostics);
    mergeByName(p.pipConstraints, q.pipConstraints, pipKey, path, diagnostics);
    fill(p.pipOptions.indexUrl, q.pipOptions.indexUrl);
    appendUnique(p.pipOptions.extraIndexUrls, q.pipOptions.extraIndexUrls);
    appendUnique(p.pipOptions.findLinks, q.pipOptions.findLinks);
    appendUnique(p.pipOptions.trustedHosts, q.pipOptions.trustedHosts);
    appendUnique(p.pipOptions.other, q.pipOptions.other);
    p.pipOptions.pre = p.pipOptions.pre || q.pipOptions.pre;
    p.pipOptions.noIndex = p.pipOptions.noIndex || q.pipOptions.noIndex;
    fill(p.interpreterPath, q.interpreterPath);
    p.userManaged = p.userManaged || q.userManaged;
    appendUnique(p.devTools, q.devTools);

    for (const auto &[key, value] : more.variables) {
        auto same = std::find_if(into.variables.begin(), into.variables.end(),
                                 [&, name = key](const auto &existing) { return existing.first == name; });
        if (same == into.variables.end())
            into.variables.append({key, value});
        else
            same->second = value;
        into.secretVariables.removeAll(key);
        if (more.isSecretVariable(key))
            into.secretVariables << key;
    }
    if (more.extra.is_object())
        for (const auto &[key, value] : more.extra.items())
            if (!into.extra.is_object() || !into.extra.contains(key))
                into.extra[key] = value;
}

EnvironmentRead fromRequirements(const QString &path, const QString &text)
{
    EnvironmentRead result;
    const RequirementsFile file = parseRequirementsText(text, path);
    result.environment.python.pipRequirements = file.requirements;
    result.environment.python.pipConstraints = file.constraints;
    result.environment.python.pipOptions = file.options;
    result.diagnostics = file.diagnostics;
    return result;
}

} // namespace

QString formatName(Format format)
{
    for (const FormatName &n : kNames)
        if (n.format == format)
            return QString::fromUtf16(n.name);
    return {};
}

std::optional<Format> formatFromName(const QString &name)
{
    for (const FormatName &n : kNames)
        if (name == QString::fromUtf16(n.name))
            return n.format;
    return std::nullopt;
}

QStringList exportFormatNames()
{
    QStringList names;
    for (const FormatName &n : kNames)
        names << QString::fromUtf16(n.name);
    return names;
}

std::optional<Format> detectFormat(const QString &path, const QString &text)
{
    const QFileInfo info(path);
    const QString suffix = info.suffix().toLower();
    const QString base = info.fileName().toLower();
    if (suffix == "json"_L1)
        return Format::AzureMlV1;
    if (suffix == "txt"_L1 || suffix == "in"_L1 || base.startsWith(u"requirements"_s))
        return Format::Pip;
    // A file without a suffix that starts the way Ferry's own files do (the MIME type's magic).
    if (suffix.isEmpty() && text.startsWith(u"ferry: "_s))
        return Format::Ferry;
    if (suffix != "yml"_L1 && suffix != "yaml"_L1)
        return std::nullopt;
    const auto root = yaml::load(text, path);
    if (!root || !root->IsMap())
        return Format::Ferry; // let the Ferry reader report what is wrong
    const YAML::Node &node = *root;
    if (node["ferry"])
        return Format::Ferry;
    if (node["$schema"] && yaml::scalar(node["$schema"]).contains(u"azureml"_s))
        return Format::AzureMlV2;
    if (node["dependencies"] || node["channels"])
        return Format::Conda;
    if (node["image"] || node["conda_file"] || node["build"])
        return Format::AzureMlV2;
    if (node["command"] && node["environment"]) // an AzureML command job without its $schema
        return Format::AzureMlV2;
    if (node["docker"] || node["python"])
        return Format::Ferry;
    return std::nullopt;
}

namespace {

EnvironmentRead readDetected(const QString &path);

} // namespace

EnvironmentRead readEnvironment(const QString &path)
{
    // A safety net: a reader bug must become a message, never take the application down.
    // (The fuzz targets call the readers directly, so they still see such bugs.)
    try {
        return readDetected(path);
    } catch (const std::exception &e) {
        EnvironmentRead result;
        result.diagnostics << Diagnostic{Diagnostic::Severity::Error,
                                         Error{u"internal error while reading: "_s + QString::fromUtf8(e.what()), path,
                                               0, 0, u"please report this file to the Ferry developers"_s}};
        return result;
    }
}

namespace {

EnvironmentRead readDetected(const QString &path)
{
    EnvironmentRead result;
    const auto text = readTextFile(path);
    if (!text) {
        result.diagnostics << Diagnostic{Diagnostic::Severity::Error, text.error()};
        return result;
    }
    const auto format = detectFormat(path, *text);
    if (!format) {
        result.diagnostics << Diagnostic{
            Diagnostic::Severity::Error,
            Error{u"cannot tell which kind of environment file this is"_s, path, 0, 0,
                  u"Ferry reads its own .yml (with 'ferry: 1'), conda environment.yml, requirements.txt, "
                  u"azureml_environment.json and AzureML v2 YAML"_s}};
        return result;
    }
    switch (*format) {
    case Format::Conda:
        return parseCondaYaml(*text, path);
    case Format::Pip:
        return fromRequirements(path, *text);
    case Format::AzureMlV1:
        return parseAzureMlV1Json(*text, path);
    case Format::AzureMlV2:
        return parseAzureMlV2Yaml(*text, path);
    default:
        return parseEnvironmentYaml(*text, path);
    }
}

} // namespace

EnvironmentRead importEnvironments(const QStringList &paths)
{
    EnvironmentRead result;
    bool first = true;
    for (const QString &path : paths) {
        EnvironmentRead one = readEnvironment(path);
        result.diagnostics << one.diagnostics;
        if (first)
            result.environment = one.environment;
        else
            mergeInto(result.environment, one.environment, path, result.diagnostics);
        first = false;
    }
    // A foreign file's name (conda, AzureML) becomes a file name in environments/ and an image
    // tag: `../../x` or `/abs/x` must not lead out of the folder (security review M8).
    // A valid name is kept as written (capitals too: the image tag takes its lower-case form).
    const QString name = result.environment.name;
    if (const Findings problems = validateName(name); !name.isEmpty() && !problems.isEmpty()) {
        result.environment.name = sanitizedEnvironmentName(name);
        result.diagnostics << Diagnostic{
            Diagnostic::Severity::Warning,
            Error{u"name '%1' is not a valid environment name; imported as '%2'"_s.arg(name, result.environment.name),
                  paths.value(0), 0, 0, problems.first().hint}};
    }
    return result;
}

Export exportEnvironment(const Environment &environment, Format format, const QString &baseDir,
                         const QString &mainFileName)
{
    Export out;
    // A secret variable holds the name of a keychain secret, which only Ferry can resolve:
    // other formats get no value rather than a name that would pass for one.
    const Environment env = format == Format::Ferry ? environment : environment.withoutSecretVariables();
    if (format != Format::Ferry && format != Format::Dockerfile && format != Format::Pip) // those carry no variables
        for (const QString &name : environment.secretVariables)
            out.diagnostics << warning(
                u"variable %1 is a keychain secret: left out (Ferry injects it when a run starts)"_s.arg(name));
    const QString stem = mainFileName.isEmpty() ? env.name : QFileInfo(mainFileName).completeBaseName();
    switch (format) {
    case Format::Ferry:
        out.files << GeneratedFile{u"environment.yml"_s, writeEnvironmentYaml(env), {}};
        break;
    case Format::Conda:
        out.files << GeneratedFile{u"environment.yml"_s, writeCondaYaml(env, &out.diagnostics), {}};
        break;
    case Format::Pip: {
        out.files << GeneratedFile{u"requirements.txt"_s, {}, {}};
        PipOptions options = env.python.pipOptions;
        if (!env.python.pipConstraints.isEmpty()) {
            const QString constraints = stem + u".constraints.txt"_s;
            out.files << GeneratedFile{constraints, writeRequirementsText(env.python.pipConstraints, {}), {}};
            options.other << u"-c "_s + constraints;
        }
        out.files[0].text = writeRequirementsText(env.python.pipRequirements, options);
        if (!env.python.condaDependencies.isEmpty())
            out.diagnostics << warning(u"conda dependencies cannot be written to requirements.txt: left out"_s);
        break;
    }
    case Format::AzureMlV1:
        out.files << GeneratedFile{u"azureml_environment.json"_s, writeAzureMlV1Json(env, &out.diagnostics), {}};
        break;
    case Format::AzureMlV2:
        out.files = writeAzureMlV2(env, stem + u".conda.yml"_s, &out.diagnostics);
        break;
    case Format::Dockerfile: {
        ImageBuild build = generateImageBuild(env, ImageBuildOptions{baseDir});
        out.files = build.files;
        out.diagnostics << build.diagnostics;
        break;
    }
    case Format::Devcontainer: {
        ImageBuild build = generateImageBuild(env, ImageBuildOptions{baseDir});
        out.files << GeneratedFile{u"devcontainer.json"_s, generateDevcontainerJson(env), {}};
        out.files << build.files;
        out.diagnostics << build.diagnostics;
        break;
    }
    }
    return out;
}

void mergeEnvironment(Environment &into, const Environment &more, const QString &path, Diagnostics &diagnostics)
{
    mergeInto(into, more, path, diagnostics);
}

QString sanitizedEnvironmentName(const QString &text)
{
    QString name = text.toLower();
    static const QRegularExpression invalid(u"[^a-z0-9_.-]+"_s);
    name.replace(invalid, u"-"_s);
    while (name.startsWith(u'-') || name.startsWith(u'.') || name.startsWith(u'_'))
        name.remove(0, 1);
    name.truncate(63); // what an image tag's name part may hold (validateName)
    return name.isEmpty() ? u"environment"_s : name;
}

QString environmentNameFromPath(const QString &path)
{
    return sanitizedEnvironmentName(QFileInfo(path).completeBaseName());
}

Expected<ImportedEnvironment> importEnvironmentsInto(const QStringList &paths, const QString &folder)
{
    EnvironmentRead read = importEnvironments(paths);
    for (const Diagnostic &d : read.diagnostics) {
        if (d.isError())
            return d.where;
    }
    if (read.environment.name.isEmpty())
        read.environment.name = environmentNameFromPath(paths.value(0));
    // importEnvironments made the name a plain file name; this keeps the rule where it is used.
    if (!isValidEnvironmentName(read.environment.name))
        return Error{
            u"name '%1' is not a valid environment name"_s.arg(read.environment.name), paths.value(0), 0, 0, {}};
    if (!QDir().mkpath(folder))
        return Error{u"cannot create the folder"_s, folder, 0, 0, u"check that the workspace is writable"_s};
    QString target = QDir(folder).filePath(read.environment.name + u".yml"_s);
    for (int n = 2; QFileInfo::exists(target); ++n)
        target = QDir(folder).filePath(u"%1-%2.yml"_s.arg(read.environment.name).arg(n));
    if (const auto written = writeTextFileAtomically(target, writeEnvironmentYaml(read.environment)); !written)
        return written.error();
    return ImportedEnvironment{target, read.environment, read.diagnostics};
}

} // namespace ferry::env
