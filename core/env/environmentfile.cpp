#include "env/environmentfile.h"

#include "env/environmentvalidator.h"
#include "env/runarguments.h"
#include "env/yamlsupport.h"

using namespace Qt::StringLiterals;

namespace ferry::env {

QString gpuModeName(GpuMode mode)
{
    switch (mode) {
    case GpuMode::On:
        return u"on"_s;
    case GpuMode::Off:
        return u"off"_s;
    case GpuMode::Auto:
        break;
    }
    return u"auto"_s;
}

namespace {

const QStringList kTopKeys{u"ferry"_s,  u"name"_s,   u"version"_s,  u"description"_s,
                           u"docker"_s, u"python"_s, u"variables"_s};
const QStringList kDockerKeys{u"base_image"_s, u"registry"_s,        u"run_arguments"_s, u"shm_size"_s,
                              u"gpu"_s,        u"system_packages"_s, u"steps"_s,         u"remote_user"_s};
const QStringList kRegistryKeys{u"address"_s, u"username"_s, u"password_secret"_s};
const QStringList kPythonKeys{u"version"_s, u"interpreter"_s,     u"user_managed"_s, u"channels"_s, u"conda"_s,
                              u"pip"_s,     u"pip_constraints"_s, u"pip_options"_s,  u"dev_tools"_s};
const QStringList kPipOptionKeys{u"index_url"_s, u"extra_index_urls"_s, u"find_links"_s, u"trusted_hosts"_s,
                                 u"pre"_s,       u"no_index"_s,         u"other"_s};

// Dockerfile lines end with one newline; blank lines at the end carry nothing.
QString normalisedSteps(QString steps)
{
    while (!steps.isEmpty() && steps.back().isSpace())
        steps.chop(1);
    return steps.isEmpty() ? steps : steps + u'\n';
}

// A literal block (`|`) shows steps as they are, but cannot carry every string.
bool fitsLiteralBlock(const QString &text)
{
    if (text.isEmpty() || text.front().isSpace())
        return false;
    for (const QString &line : text.split(u'\n')) {
        if (!line.isEmpty() && line.back().isSpace())
            return false;
        for (const QChar c : line)
            if (c.unicode() < 0x20 && c != u'\t')
                return false;
    }
    return true;
}

void readDocker(yaml::Reader &r, const YAML::Node &node, DockerSection &docker)
{
    if (!r.isMap(node, u"docker"_s))
        return;
    docker.baseImage = r.string(node["base_image"], u"base_image"_s);
    const YAML::Node registry = node["registry"];
    if (r.isMap(registry, u"registry"_s)) {
        docker.registry.address = r.string(registry["address"], u"address"_s);
        docker.registry.username = r.string(registry["username"], u"username"_s);
        docker.registry.passwordSecret = r.string(registry["password_secret"], u"password_secret"_s);
        if (registry["password"])
            r.error(registry["password"], u"a password does not belong in an environment file"_s,
                    u"store it in the keychain (ferry secret set NAME) and give its NAME as password_secret"_s);
        ExtraKeys extra = yaml::unknownKeys(registry, kRegistryKeys + QStringList{u"password"_s});
        if (!extra.is_null())
            docker.extra["registry"] = extra;
    }
    docker.runArguments = r.strings(node["run_arguments"], u"run_arguments"_s);
    if (const auto breaks = isolationBreakingArguments(docker.runArguments); !breaks.isEmpty())
        r.warning(node["run_arguments"],
                  u"run_arguments %1 undo the container's isolation"_s.arg(describeIsolationBreaks(breaks)),
                  u"container runs refuse them unless allowed for the run (ferry run --allow-run-arguments, or "
                  u"the launch dialog's check box): remove them if you did not write them"_s);
    docker.shmSize = r.string(node["shm_size"], u"shm_size"_s);
    const YAML::Node gpu = node["gpu"];
    const QString gpuText = r.string(gpu, u"gpu"_s).toLower();
    if (gpuText == "on"_L1 || gpuText == "true"_L1)
        docker.gpu = GpuMode::On;
    else if (gpuText == "off"_L1 || gpuText == "false"_L1)
        docker.gpu = GpuMode::Off;
    else if (!gpuText.isEmpty() && gpuText != "auto"_L1)
        r.error(gpu, u"gpu must be auto, on or off, not '%1'"_s.arg(gpuText));
    docker.systemPackages = r.strings(node["system_packages"], u"system_packages"_s);
    docker.dockerfileSteps = normalisedSteps(r.string(node["steps"], u"steps"_s));
    docker.remoteUser = r.string(node["remote_user"], u"remote_user"_s);
    ExtraKeys extra = yaml::unknownKeys(node, kDockerKeys);
    if (!extra.is_null())
        for (const auto &[key, value] : extra.items())
            docker.extra[key] = value;
}

void readPipOptions(yaml::Reader &r, const YAML::Node &node, PipOptions &options, ExtraKeys &extra)
{
    if (!r.isMap(node, u"pip_options"_s))
        return;
    options.indexUrl = r.string(node["index_url"], u"index_url"_s);
    options.extraIndexUrls = r.strings(node["extra_index_urls"], u"extra_index_urls"_s);
    options.findLinks = r.strings(node["find_links"], u"find_links"_s);
    options.trustedHosts = r.strings(node["trusted_hosts"], u"trusted_hosts"_s);
    options.pre = r.boolean(node["pre"], u"pre"_s, false);
    options.noIndex = r.boolean(node["no_index"], u"no_index"_s, false);
    options.other = r.strings(node["other"], u"other"_s);
    ExtraKeys unknown = yaml::unknownKeys(node, kPipOptionKeys);
    if (!unknown.is_null())
        extra["pip_options"] = unknown;
}

void readPipList(yaml::Reader &r, const YAML::Node &list, const QString &key, QList<PipRequirement> &into)
{
    if (!list || list.IsNull())
        return;
    if (!list.IsSequence()) {
        r.error(list, u"'%1' must be a list of requirements"_s.arg(key));
        return;
    }
    for (const YAML::Node &item : list) {
        const QString text = r.string(item, key);
        const auto requirement = parsePipLine(text);
        if (!requirement) {
            const Error &e = requirement.error();
            r.add(
                Diagnostic{Diagnostic::Severity::Error, Error{e.message, r.path(), yaml::line(item),
                                                              yaml::column(item) + std::max(0, e.column - 1), e.hint}});
            continue;
        }
        if (requirement->kind == PipRequirement::Kind::Verbatim)
            r.warning(item, u"kept as written: not a requirement Ferry understands"_s);
        into << *requirement;
    }
}

void readPython(yaml::Reader &r, const YAML::Node &node, PythonSection &python)
{
    if (!r.isMap(node, u"python"_s))
        return;
    python.version = r.string(node["version"], u"version"_s);
    python.interpreterPath = r.string(node["interpreter"], u"interpreter"_s);
    python.userManaged = r.boolean(node["user_managed"], u"user_managed"_s, false);
    python.channels = r.strings(node["channels"], u"channels"_s);
    python.devTools = r.strings(node["dev_tools"], u"dev_tools"_s);

    const YAML::Node conda = node["conda"];
    if (conda && !conda.IsNull()) {
        if (!conda.IsSequence()) {
            r.error(conda, u"'conda' must be a list of MatchSpecs"_s);
        } else {
            for (const YAML::Node &item : conda) {
                const QString text = r.string(item, u"conda"_s);
                const auto spec = parseMatchSpec(text);
                if (spec) {
                    python.condaDependencies << *spec;
                    continue;
                }
                Error e = spec.error();
                r.add(Diagnostic{Diagnostic::Severity::Error,
                                 Error{e.message, r.path(), yaml::line(item),
                                       yaml::column(item) + std::max(0, e.column - 1), e.hint}});
            }
        }
    }

    readPipList(r, node["pip"], u"pip"_s, python.pipRequirements);
    readPipList(r, node["pip_constraints"], u"pip_constraints"_s, python.pipConstraints);
    readPipOptions(r, node["pip_options"], python.pipOptions, python.extra);
    ExtraKeys extra = yaml::unknownKeys(node, kPythonKeys);
    if (!extra.is_null())
        for (const auto &[key, value] : extra.items())
            python.extra[key] = value;
}

void readVariables(yaml::Reader &r, const YAML::Node &node, Environment &environment)
{
    if (!r.isMap(node, u"variables"_s))
        return;
    for (const auto &entry : node) {
        const QString key = QString::fromStdString(entry.first.Scalar());
        if (entry.second.IsMap()) {
            // `NAME: {secret: keychain-name}`: the value lives in the keychain.
            const QString secret = r.string(entry.second["secret"], u"secret"_s);
            if (secret.isEmpty() || entry.second.size() != 1) {
                r.error(entry.second, u"variable '%1' must be a string or {secret: NAME}"_s.arg(key),
                        u"give the value, or the name of a keychain secret as {secret: my-token}"_s);
                continue;
            }
            environment.variables.append({key, secret});
            environment.secretVariables << key;
            continue;
        }
        environment.variables.append({key, r.string(entry.second, key)});
    }
}

YAML::Node child(const YAML::Node &map, const char *key)
{
    return map.IsMap() && map[key] ? map[key] : YAML::Node();
}

YAML::Node entry(const YAML::Node &list, int row)
{
    return list.IsSequence() && row >= 0 && static_cast<std::size_t>(row) < list.size() ? list[row] : YAML::Node();
}

// The variable's name as written: the row-th key of the variables mapping.
YAML::Node variableKey(const YAML::Node &variables, int row)
{
    if (!variables.IsMap())
        return {};
    int i = 0;
    for (const auto &item : variables)
        if (i++ == row)
            return item.first;
    return variables;
}

// Where a finding points in the file: the value of its key, or the row's entry; a null node
// (line 0) when the file does not write it.
YAML::Node nodeOf(const YAML::Node &root, const Finding &finding)
{
    const YAML::Node docker = child(root, "docker");
    const YAML::Node python = child(root, "python");
    switch (finding.field) {
    case Field::Name:
        return child(root, "name");
    case Field::Version:
        return child(root, "version");
    case Field::PythonVersion:
        return child(python, "version");
    case Field::ShmSize:
        return child(docker, "shm_size");
    case Field::BaseImage:
        return docker;
    case Field::RunArguments:
        return entry(child(docker, "run_arguments"), finding.row);
    case Field::Channels:
        return entry(child(python, "channels"), finding.row);
    case Field::Variables:
        return variableKey(child(root, "variables"), finding.row);
    default:
        return {};
    }
}

bool isDependencyRow(const Finding &finding)
{
    return finding.field == Field::Conda || finding.field == Field::Pip || finding.field == Field::PipConstraints;
}

Diagnostic findingAt(const YAML::Node &root, const Finding &finding, const QString &path)
{
    const YAML::Node at = nodeOf(root, finding);
    return toDiagnostic(finding, path, yaml::line(at), yaml::column(at));
}

// The validator's findings (environmentvalidator.h), each at its line.
void addFindings(const YAML::Node &root, const Environment &env, const QString &path, Diagnostics &diagnostics)
{
    for (const Finding &finding : validate(env)) {
        // Each dependency row was reported at its own line and column by its parser as it was read.
        if (!isDependencyRow(finding))
            diagnostics << findingAt(root, finding, path);
    }
}

} // namespace

EnvironmentRead parseEnvironmentYaml(const QString &text, const QString &path)
{
    EnvironmentRead result;
    yaml::Reader r(path);
    const auto root = yaml::loadMapping(text, r, u"start with 'ferry: 1' and 'name:'"_s,
                                        u"an environment file is a mapping (key: value lines)"_s);
    if (!root) {
        result.diagnostics = r.takeDiagnostics();
        return result;
    }
    const YAML::Node &node = *root;
    const YAML::Node formatVersion = node["ferry"];
    if (!formatVersion) {
        r.warning(node, u"no format version: reading as 'ferry: 1'"_s, u"add 'ferry: 1' at the top"_s);
    } else {
        r.formatVersion(formatVersion, u"ferry"_s, kEnvironmentFormatVersion);
    }

    Environment &env = result.environment;
    env.name = r.string(node["name"], u"name"_s);
    if (node["version"])
        env.version = r.string(node["version"], u"version"_s);
    env.description = r.string(node["description"], u"description"_s);
    readDocker(r, node["docker"], env.docker);
    readPython(r, node["python"], env.python);
    readVariables(r, node["variables"], env);
    env.extra = yaml::unknownKeys(node, kTopKeys);
    for (const ExtraKeys *extra : {&env.extra, &env.docker.extra, &env.python.extra}) {
        if (yaml::hasControlCharacterKeys(*extra)) {
            r.error(node, u"a key holds a control character (a NUL, a line feed, ...)"_s,
                    u"remove it: such a key cannot be written back"_s);
            break;
        }
    }

    result.diagnostics = r.takeDiagnostics();
    addFindings(node, env, path, result.diagnostics); // every problem at once, not just the first
    return result;
}

namespace {

void emitKeyString(YAML::Emitter &out, const char *key, const QString &value)
{
    if (value.isEmpty())
        return;
    out << YAML::Key << key << YAML::Value;
    yaml::emitString(out, value);
}

void emitKeyStrings(YAML::Emitter &out, const char *key, const QStringList &values, bool flow = true)
{
    if (values.isEmpty())
        return;
    out << YAML::Key << key << YAML::Value;
    yaml::emitStrings(out, values, flow);
}

void emitDocker(YAML::Emitter &out, const DockerSection &docker)
{
    out << YAML::Key << "docker" << YAML::Value << YAML::BeginMap;
    emitKeyString(out, "base_image", docker.baseImage);
    const RegistryCredentials &reg = docker.registry;
    const ExtraKeys registryExtra =
        docker.extra.is_object() && docker.extra.contains("registry") ? docker.extra["registry"] : ExtraKeys();
    if (reg != RegistryCredentials() || !registryExtra.is_null()) {
        out << YAML::Key << "registry" << YAML::Value << YAML::BeginMap;
        emitKeyString(out, "address", reg.address);
        emitKeyString(out, "username", reg.username);
        emitKeyString(out, "password_secret", reg.passwordSecret);
        yaml::emitExtraKeys(out, registryExtra);
        out << YAML::EndMap;
    }
    emitKeyStrings(out, "run_arguments", docker.runArguments);
    emitKeyString(out, "shm_size", docker.shmSize);
    out << YAML::Key << "gpu" << YAML::Value;
    yaml::emitString(out, gpuModeName(docker.gpu)); // quoted: YAML 1.1 reads a plain on/off as a boolean
    emitKeyStrings(out, "system_packages", docker.systemPackages);
    if (!docker.dockerfileSteps.isEmpty()) {
        out << YAML::Key << "steps" << YAML::Value;
        if (fitsLiteralBlock(docker.dockerfileSteps))
            out << YAML::Literal << docker.dockerfileSteps.toStdString();
        else
            yaml::emitString(out, docker.dockerfileSteps);
    }
    emitKeyString(out, "remote_user", docker.remoteUser);
    ExtraKeys rest = docker.extra;
    if (rest.is_object())
        rest.erase("registry");
    yaml::emitExtraKeys(out, rest);
    out << YAML::EndMap;
}

void emitPython(YAML::Emitter &out, const PythonSection &python)
{
    out << YAML::Key << "python" << YAML::Value << YAML::BeginMap;
    emitKeyString(out, "version", python.version);
    emitKeyString(out, "interpreter", python.interpreterPath);
    if (python.userManaged)
        out << YAML::Key << "user_managed" << YAML::Value << "true";
    emitKeyStrings(out, "channels", python.channels);
    if (!python.condaDependencies.isEmpty()) {
        QStringList specs;
        for (const MatchSpec &spec : python.condaDependencies)
            specs << spec.text;
        emitKeyStrings(out, "conda", specs, false);
    }
    if (!python.pipRequirements.isEmpty()) {
        QStringList lines;
        for (const PipRequirement &r : python.pipRequirements)
            lines << r.toLine();
        emitKeyStrings(out, "pip", lines, false);
    }
    if (!python.pipConstraints.isEmpty()) {
        QStringList lines;
        for (const PipRequirement &r : python.pipConstraints)
            lines << r.toLine();
        emitKeyStrings(out, "pip_constraints", lines, false);
    }
    const PipOptions &o = python.pipOptions;
    const ExtraKeys optionsExtra =
        python.extra.is_object() && python.extra.contains("pip_options") ? python.extra["pip_options"] : ExtraKeys();
    if (!o.isEmpty() || !optionsExtra.is_null()) {
        out << YAML::Key << "pip_options" << YAML::Value << YAML::BeginMap;
        emitKeyString(out, "index_url", o.indexUrl);
        emitKeyStrings(out, "extra_index_urls", o.extraIndexUrls);
        emitKeyStrings(out, "find_links", o.findLinks);
        emitKeyStrings(out, "trusted_hosts", o.trustedHosts);
        if (o.pre)
            out << YAML::Key << "pre" << YAML::Value << "true";
        if (o.noIndex)
            out << YAML::Key << "no_index" << YAML::Value << "true";
        emitKeyStrings(out, "other", o.other, false);
        yaml::emitExtraKeys(out, optionsExtra);
        out << YAML::EndMap;
    }
    emitKeyStrings(out, "dev_tools", python.devTools);
    ExtraKeys rest = python.extra;
    if (rest.is_object())
        rest.erase("pip_options");
    yaml::emitExtraKeys(out, rest);
    out << YAML::EndMap;
}

} // namespace

QString writeEnvironmentYaml(const Environment &env)
{
    YAML::Emitter out;
    out.SetIndent(2);
    out << YAML::BeginMap;
    out << YAML::Key << "ferry" << YAML::Value << kEnvironmentFormatVersion;
    emitKeyString(out, "name", env.name);
    out << YAML::Key << "version" << YAML::Value << YAML::DoubleQuoted << env.version.toStdString();
    emitKeyString(out, "description", env.description);
    emitDocker(out, env.docker);
    emitPython(out, env.python);
    yaml::emitVariables(out, env.variables, env.secretVariables);
    yaml::emitExtraKeys(out, env.extra);
    out << YAML::EndMap;
    return yaml::toText(out);
}

Diagnostic toDiagnostic(const Finding &finding, const QString &path, int line, int column)
{
    return Diagnostic{finding.severity, Error{finding.message, path, line, column, finding.hint}};
}

Diagnostics locateFindings(const Findings &findings, const QString &text, const QString &path)
{
    const auto root = yaml::load(text, path);
    Diagnostics located;
    for (const Finding &finding : findings)
        located << (root && !isDependencyRow(finding) ? findingAt(*root, finding, path) : toDiagnostic(finding, path));
    return located;
}

void validateEnvironment(const Environment &env, const QString &path, Diagnostics &diagnostics)
{
    for (const Finding &finding : validate(env))
        diagnostics << toDiagnostic(finding, path);
}

} // namespace ferry::env
