#include "env/condafile.h"

#include "env/yamlsupport.h"

#include <QRegularExpression>

using namespace Qt::StringLiterals;

namespace ferry::env {

namespace {

const QStringList kCondaKeys{u"name"_s, u"channels"_s, u"dependencies"_s, u"variables"_s, u"prefix"_s};
constexpr char kForeignKey[] = "x-conda";

// "3.11.*" (from python=3.11) or "==3.11.4" → the version to show as python.version.
QString plainPythonVersion(const MatchSpec &spec)
{
    static const QRegularExpression fuzzy(u"^([0-9]+(\\.[0-9]+)*)\\.\\*$"_s);
    static const QRegularExpression exact(u"^==([0-9]+(\\.[0-9]+)*)$"_s);
    if (!spec.channel.isEmpty() || !spec.subdir.isEmpty() || !spec.build.isEmpty() || !spec.otherKeys.isEmpty())
        return {};
    if (const auto m = fuzzy.match(spec.version); m.hasMatch())
        return m.captured(1);
    if (const auto m = exact.match(spec.version); m.hasMatch())
        return m.captured(1);
    return {};
}

void readPipList(yaml::Reader &r, const YAML::Node &list, PythonSection &python)
{
    if (!list.IsSequence()) {
        r.error(list, u"'pip' under dependencies must be a list"_s);
        return;
    }
    // conda hands the list to pip as a requirements file: option lines are allowed.
    QStringList lines;
    QList<YAML::Node> nodes;
    for (const YAML::Node &item : list) {
        lines << r.string(item, u"pip"_s);
        nodes << item;
    }
    const RequirementsFile parsed = parseRequirementsText(lines.join(u'\n'), r.path());
    python.pipRequirements << parsed.requirements;
    python.pipOptions = parsed.options;
    for (Diagnostic d : parsed.diagnostics) {
        // Line N of the joined text is the N-th list item: point at it in the YAML file.
        const int index = d.where.line - 1;
        if (index >= 0 && index < nodes.size()) {
            d.where.column = yaml::column(nodes.at(index)) + std::max(0, d.where.column - 1);
            d.where.line = yaml::line(nodes.at(index));
        }
        d.where.path = r.path();
        r.add(d);
    }
}

} // namespace

QString pythonMatchSpec(const PythonSection &python)
{
    return python.version.isEmpty() ? QString() : u"python="_s + python.version;
}

EnvironmentRead parseCondaYaml(const QString &fileText, const QString &path)
{
    EnvironmentRead result;
    yaml::Reader r(path);
    const auto root = yaml::loadMapping(fileText, r, u"a conda environment file has 'name:' and 'dependencies:'"_s,
                                        u"a conda environment file is a mapping (name:, channels:, dependencies:)"_s);
    if (!root) {
        result.diagnostics = r.takeDiagnostics();
        return result;
    }
    const YAML::Node &node = *root;
    Environment &env = result.environment;
    env.name = r.string(node["name"], u"name"_s);
    env.python.channels = r.strings(node["channels"], u"channels"_s);
    if (node["prefix"])
        r.warning(node["prefix"], u"'prefix' names a folder on one machine: dropped"_s,
                  u"the environment is built in the image instead"_s);

    const YAML::Node deps = node["dependencies"];
    if (deps && !deps.IsNull() && !deps.IsSequence())
        r.error(deps, u"'dependencies' must be a list"_s);
    else if (deps) {
        for (const YAML::Node &item : deps) {
            if (item.IsMap() && item["pip"]) {
                readPipList(r, item["pip"], env.python);
                continue;
            }
            const QString text = r.string(item, u"dependencies"_s);
            const auto spec = parseMatchSpec(text);
            if (!spec) {
                const Error &e = spec.error();
                r.add(Diagnostic{
                    Diagnostic::Severity::Error,
                    Error{e.message, path, yaml::line(item), yaml::column(item) + std::max(0, e.column - 1), e.hint}});
                continue;
            }
            if (spec->name == "python"_L1 && env.python.version.isEmpty()) {
                const QString version = plainPythonVersion(*spec);
                if (!version.isEmpty()) {
                    env.python.version = version;
                    continue;
                }
            }
            env.python.condaDependencies << *spec;
        }
        // A bare `pip` only makes the pip list installable; writeCondaYaml adds it back
        // whenever there is a pip list, so dropping it keeps round trips equal.
        if (!env.python.pipRequirements.isEmpty())
            env.python.condaDependencies.removeIf([](const MatchSpec &spec) { return spec.canonical() == "pip"_L1; });
    }
    const YAML::Node variables = node["variables"];
    if (r.isMap(variables, u"variables"_s)) {
        for (const auto &entry : variables) {
            const QString key = QString::fromStdString(entry.first.Scalar());
            env.variables.append({key, r.string(entry.second, key)});
        }
    }
    const ExtraKeys unknown = yaml::unknownKeys(node, kCondaKeys);
    if (!unknown.is_null())
        env.extra[kForeignKey] = unknown;
    result.diagnostics = r.takeDiagnostics();
    return result;
}

QString writeCondaYaml(const Environment &env, Diagnostics *warnings)
{
    const PythonSection &python = env.python;
    YAML::Emitter out;
    out.SetIndent(2);
    out << YAML::BeginMap;
    if (!env.name.isEmpty()) {
        out << YAML::Key << "name" << YAML::Value;
        yaml::emitString(out, env.name);
    }
    if (!python.channels.isEmpty()) {
        out << YAML::Key << "channels" << YAML::Value;
        yaml::emitStrings(out, python.channels, false);
    }
    out << YAML::Key << "dependencies" << YAML::Value << YAML::BeginSeq;
    const QString pythonSpec = pythonMatchSpec(python);
    if (!pythonSpec.isEmpty())
        yaml::emitString(out, pythonSpec);
    bool hasPip = false;
    for (const MatchSpec &spec : python.condaDependencies) {
        yaml::emitString(out, spec.text);
        hasPip = hasPip || spec.name == "pip"_L1;
    }
    if (!python.pipRequirements.isEmpty()) {
        if (!hasPip)
            out << "pip"; // conda needs pip itself to install the pip list
        out << YAML::BeginMap << YAML::Key << "pip" << YAML::Value << YAML::BeginSeq;
        for (const QString &line : python.pipOptions.toLines())
            yaml::emitString(out, line);
        for (const PipRequirement &r : python.pipRequirements)
            yaml::emitString(out, r.toLine());
        out << YAML::EndSeq << YAML::EndMap;
    }
    out << YAML::EndSeq;
    yaml::emitVariables(out, env.variables);
    if (env.extra.is_object() && env.extra.contains(kForeignKey))
        yaml::emitExtraKeys(out, env.extra[kForeignKey]);
    out << YAML::EndMap;

    if (warnings) {
        auto warn = [&](const QString &what) {
            *warnings << Diagnostic{Diagnostic::Severity::Warning,
                                    Error{what + u" cannot be written to environment.yml: left out"_s, {}, 0, 0, {}}};
        };
        if (!env.docker.baseImage.isEmpty() || !env.docker.systemPackages.isEmpty())
            warn(u"the Docker section"_s);
        if (python.userManaged)
            warn(u"user_managed"_s);
    }
    return yaml::toText(out);
}

} // namespace ferry::env
