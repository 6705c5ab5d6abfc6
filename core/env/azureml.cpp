#include "env/azureml.h"

#include "common/textfile.h"
#include "env/azuremlcommandjob.h"
#include "env/condafile.h"
#include "env/yamlsupport.h"

#include <QDir>
#include <QFileInfo>

using namespace Qt::StringLiterals;

namespace ferry::env {

namespace {

using Json = nlohmann::ordered_json;
constexpr char kV1Key[] = "x-azureml-v1";
constexpr char kV2Key[] = "x-azureml-v2";
constexpr int kMaxJsonDepth = 200;
constexpr char kDefaultCondaName[] = "project_environment";

QString text(const Json &value)
{
    if (value.is_string())
        return QString::fromStdString(value.get<std::string>());
    if (value.is_null())
        return {};
    return QString::fromStdString(value.dump());
}

// What a format kept of its own keys for the way back (an object; empty if none or damaged).
Json foreignKeys(const Environment &env, const char *key)
{
    if (env.extra.is_object() && env.extra.contains(key) && env.extra[key].is_object())
        return env.extra[key];
    return Json::object();
}

// JSON keeps no positions once parsed: find where a value was written to point at it.
Error locate(const QString &fileText, const QString &needle, Error error)
{
    const qsizetype at = fileText.indexOf(needle);
    if (at >= 0) {
        error.line = static_cast<int>(QStringView(fileText).first(at).count(u'\n')) + 1;
        error.column = static_cast<int>(at - fileText.lastIndexOf(u'\n', at - 1));
    }
    return error;
}

// condaDependencies is an environment.yml written as JSON: JSON is YAML, so the conda reader
// applies; its positions are then moved onto the original file.
void readCondaDependencies(const Json &conda, const QString &path, EnvironmentRead &result)
{
    EnvironmentRead inner = parseCondaYaml(QString::fromStdString(conda.dump(2)), path);
    PythonSection &python = result.environment.python;
    const QString userVersion = python.version;
    python.channels = inner.environment.python.channels;
    python.condaDependencies = inner.environment.python.condaDependencies;
    python.pipRequirements = inner.environment.python.pipRequirements;
    python.pipOptions = inner.environment.python.pipOptions;
    python.version = inner.environment.python.version.isEmpty() ? userVersion : inner.environment.python.version;
    for (Diagnostic d : inner.diagnostics) {
        d.where.line = 0;
        d.where.column = 0;
        result.diagnostics << d;
    }
    // The writer's default name is not worth keeping: only a name the user chose is.
    if (conda.contains("name") && conda["name"].is_string() && conda["name"] != kDefaultCondaName)
        result.environment.extra[kV1Key]["condaEnvironmentName"] = conda["name"];
}

Json take(Json &object, const char *key)
{
    Json value;
    if (object.is_object() && object.contains(key)) {
        value = object[key];
        object.erase(key);
    }
    return value;
}

// The JSON of the file, or null with the reason in `diagnostics`.
Json parseJson(const QString &fileText, const QString &path, Diagnostics &diagnostics)
{
    auto fail = [&](Error e) {
        diagnostics << Diagnostic{Diagnostic::Severity::Error, std::move(e)};
        return Json();
    };
    try {
        bool tooDeep = false;
        Json root = Json::parse(fileText.toStdString(), [&](int depth, Json::parse_event_t, Json &) {
            if (depth > kMaxJsonDepth)
                tooDeep = true;
            return !tooDeep;
        });
        if (tooDeep)
            return fail(Error{u"nested more than %1 levels deep"_s.arg(kMaxJsonDepth), path, 0, 0,
                              u"this is not an AzureML environment file"_s});
        if (!root.is_object())
            return fail(Error{u"an AzureML environment file is a JSON object"_s, path, 1, 1, {}});
        return root;
    } catch (const Json::out_of_range &e) {
        return fail(Error{u"JSON: a number out of range ("_s + QString::fromUtf8(e.what()) + u')', path, 0, 0,
                          u"write the value as a string"_s});
    } catch (const Json::parse_error &e) {
        const qsizetype offset = static_cast<qsizetype>(e.byte);
        const QByteArray bytes = fileText.toUtf8().left(offset);
        const int line = static_cast<int>(bytes.count('\n')) + 1;
        const int column = static_cast<int>(offset - bytes.lastIndexOf('\n'));
        QString message = QString::fromUtf8(e.what());
        message = message.mid(message.indexOf(u"syntax error"_s) >= 0 ? message.indexOf(u"syntax error"_s) : 0);
        return fail(Error{u"JSON "_s + message, path, line, column, u"fix the JSON at that position"_s});
    } catch (const Json::exception &e) {
        return fail(Error{u"JSON: "_s + QString::fromUtf8(e.what()), path, 0, 0, u"fix the JSON"_s});
    }
}

void readV1Python(Json python, const QString &fileText, const QString &path, EnvironmentRead &result)
{
    Environment &env = result.environment;
    const Json userManaged = take(python, "userManagedDependencies");
    env.python.userManaged = userManaged.is_boolean() && userManaged.get<bool>();
    env.python.interpreterPath = text(take(python, "interpreterPath"));
    const Json conda = take(python, "condaDependencies");
    if (conda.is_object())
        readCondaDependencies(conda, path, result);
    else if (!conda.is_null())
        result.diagnostics << Diagnostic{
            Diagnostic::Severity::Error,
            locate(fileText, u"\"condaDependencies\""_s,
                   Error{u"python.condaDependencies must be an object"_s, path, 0, 0, {}})};
    if (!python.empty())
        env.extra[kV1Key]["python"] = python;
}

void readV1Registry(Json registry, const QString &fileText, const QString &path, EnvironmentRead &result)
{
    Environment &env = result.environment;
    env.docker.registry.address = text(take(registry, "address"));
    env.docker.registry.username = text(take(registry, "username"));
    const Json password = take(registry, "password");
    if (!password.is_null() && !text(password).isEmpty()) {
        const QString secretName =
            u"registry/"_s + (env.docker.registry.address.isEmpty() ? u"default"_s : env.docker.registry.address);
        result.diagnostics << Diagnostic{
            Diagnostic::Severity::Warning,
            locate(fileText, u"\"password\""_s,
                   Error{u"a registry password is in this file: Ferry does not copy it anywhere"_s, path, 0, 0,
                         u"store it in the keychain with 'ferry secret set %1' and set "
                         u"docker.registry.password_secret: %1; then remove it from this file"_s.arg(secretName)})};
    }
    if (!registry.empty())
        env.extra[kV1Key]["docker"]["baseImageRegistry"] = registry;
}

void readV1Docker(Json docker, const QString &fileText, const QString &path, EnvironmentRead &result)
{
    Environment &env = result.environment;
    env.docker.baseImage = text(take(docker, "baseImage"));
    env.docker.shmSize = text(take(docker, "shmSize"));
    const Json arguments = take(docker, "arguments");
    if (arguments.is_array())
        for (const Json &a : arguments)
            env.docker.runArguments << text(a);
    const Json gpu = take(docker, "gpuSupport");
    if (gpu.is_boolean())
        env.docker.gpu = gpu.get<bool>() ? GpuMode::On : GpuMode::Off;
    Json registry = take(docker, "baseImageRegistry");
    if (registry.is_object())
        readV1Registry(std::move(registry), fileText, path, result);
    if (!docker.empty()) {
        for (const auto &[key, value] : docker.items())
            env.extra[kV1Key]["docker"][key] = value;
    }
    if (docker.contains("baseDockerfile") && !docker["baseDockerfile"].is_null())
        result.diagnostics << Diagnostic{
            Diagnostic::Severity::Warning,
            locate(fileText, u"\"baseDockerfile\""_s,
                   Error{u"docker.baseDockerfile is kept but not used: Ferry generates the Dockerfile"_s, path, 0, 0,
                         u"move its steps into docker.steps"_s})};
}

// An Environment object of the SDK (azureml_environment.json, or nested in another file).
void readV1Environment(Json rest, const QString &fileText, const QString &path, EnvironmentRead &result)
{
    Environment &env = result.environment;
    env.name = text(take(rest, "name"));
    const Json version = take(rest, "version");
    if (!version.is_null())
        env.version = text(version);
    const Json variables = take(rest, "environmentVariables");
    if (variables.is_object())
        for (const auto &[key, value] : variables.items())
            env.variables.append({QString::fromStdString(key), text(value)});
    Json python = take(rest, "python");
    if (python.is_object())
        readV1Python(std::move(python), fileText, path, result);
    Json docker = take(rest, "docker");
    if (docker.is_object())
        readV1Docker(std::move(docker), fileText, path, result);
    for (const auto &[key, value] : rest.items())
        env.extra[kV1Key][key] = value;
    if (env.name.isEmpty())
        result.diagnostics << Diagnostic{Diagnostic::Severity::Warning,
                                         Error{u"no \"name\": give the environment one"_s, path, 0, 0, {}}};
}

// An inference config (InferenceConfig, `az ml model deploy --ic`): the entry script, the
// source folder and the environment, nested. Only the environment is an environment.
bool isInferenceConfig(const Json &root)
{
    return (root.contains("environment") && root["environment"].is_object()) || root.contains("entryScript");
}

void readInferenceConfig(const Json &root, const QString &fileText, const QString &path, EnvironmentRead &result)
{
    if (!root.contains("environment") || !root["environment"].is_object()) {
        const QString conda = root.contains("condaFile") ? text(root["condaFile"]) : QString();
        result.diagnostics << Diagnostic{
            Diagnostic::Severity::Error,
            Error{u"this AzureML inference config holds no \"environment\""_s, path, 0, 0,
                  conda.isEmpty() ? u"import the environment file the deployment uses"_s
                                  : u"import its conda file instead: ferry env import %1"_s.arg(conda)}};
        return;
    }
    readV1Environment(root["environment"], fileText, path, result);
    QStringList others;
    for (const auto &[key, value] : root.items())
        if (key != "environment")
            others << QString::fromStdString(key);
    if (!others.isEmpty())
        result.diagnostics << Diagnostic{
            Diagnostic::Severity::Warning,
            Error{u"an AzureML inference config: its environment is imported, not %1"_s.arg(others.join(u", "_s)), path,
                  0, 0, u"the entry script and source folder stay with the deployment"_s}};
}

} // namespace

EnvironmentRead parseAzureMlV1Json(const QString &fileText, const QString &path)
{
    EnvironmentRead result;
    const Json root = parseJson(fileText, path, result.diagnostics);
    if (root.is_null())
        return result;
    if (isInferenceConfig(root))
        readInferenceConfig(root, fileText, path, result);
    else
        readV1Environment(root, fileText, path, result);
    return result;
}

QString writeAzureMlV1Json(const Environment &env, Diagnostics *warnings)
{
    const Json foreign = foreignKeys(env, kV1Key);
    auto kept = [&](const char *section, const char *key, Json fallback) {
        if (foreign.contains(section) && foreign[section].is_object() && foreign[section].contains(key))
            return foreign[section][key];
        return fallback;
    };
    Json root = Json::object();
    root["name"] = env.name.toStdString();
    root["version"] = env.version.toStdString();
    Json variables = Json::object();
    for (const auto &[key, value] : env.variables)
        variables[key.toStdString()] = value.toStdString();
    root["environmentVariables"] = variables;

    Json python = Json::object();
    python["userManagedDependencies"] = env.python.userManaged;
    python["interpreterPath"] =
        env.python.interpreterPath.isEmpty() ? "python" : env.python.interpreterPath.toStdString();
    Json conda = Json::object();
    conda["name"] = foreign.contains("condaEnvironmentName") && foreign["condaEnvironmentName"].is_string()
                        ? foreign["condaEnvironmentName"]
                        : Json(kDefaultCondaName);
    Json dependencies = Json::array();
    if (!env.python.version.isEmpty())
        dependencies.push_back(pythonMatchSpec(env.python).toStdString());
    for (const MatchSpec &spec : env.python.condaDependencies)
        dependencies.push_back(spec.text.toStdString());
    if (!env.python.pipRequirements.isEmpty()) {
        Json pip = Json::array();
        for (const QString &line : env.python.pipOptions.toLines())
            pip.push_back(line.toStdString());
        for (const PipRequirement &r : env.python.pipRequirements)
            pip.push_back(r.toLine().toStdString());
        dependencies.push_back("pip");
        dependencies.push_back(Json{{"pip", pip}});
    }
    conda["dependencies"] = dependencies;
    Json channels = Json::array();
    for (const QString &c : env.python.channels)
        channels.push_back(c.toStdString());
    conda["channels"] = channels;
    python["condaDependencies"] = conda;
    if (foreign.contains("python") && foreign["python"].is_object())
        for (const auto &[key, value] : foreign["python"].items())
            python[key] = value;
    root["python"] = python;

    Json docker = Json::object();
    const Json enabled = kept("docker", "enabled", Json());
    if (!enabled.is_null())
        docker["enabled"] = enabled;
    docker["baseImage"] = env.docker.baseImage.isEmpty() ? Json() : Json(env.docker.baseImage.toStdString());
    if (!env.docker.shmSize.isEmpty())
        docker["shmSize"] = env.docker.shmSize.toStdString();
    Json arguments = Json::array();
    for (const QString &a : env.docker.runArguments)
        arguments.push_back(a.toStdString());
    docker["arguments"] = arguments;
    if (env.docker.gpu != GpuMode::Auto)
        docker["gpuSupport"] = env.docker.gpu == GpuMode::On;
    Json registry = kept("docker", "baseImageRegistry", Json::object());
    if (!registry.is_object())
        registry = Json::object();
    registry["address"] =
        env.docker.registry.address.isEmpty() ? Json() : Json(env.docker.registry.address.toStdString());
    registry["username"] =
        env.docker.registry.username.isEmpty() ? Json() : Json(env.docker.registry.username.toStdString());
    registry["password"] = nullptr; // never written: the password lives in the keychain
    docker["baseImageRegistry"] = registry;
    if (foreign.contains("docker") && foreign["docker"].is_object())
        for (const auto &[key, value] : foreign["docker"].items())
            if (key != "baseImageRegistry")
                docker[key] = value;
    root["docker"] = docker;
    for (const auto &[key, value] : foreign.items())
        if (key != "python" && key != "docker" && key != "condaEnvironmentName")
            root[key] = value;

    if (warnings) {
        if (!env.docker.systemPackages.isEmpty() || !env.docker.dockerfileSteps.isEmpty())
            *warnings << Diagnostic{
                Diagnostic::Severity::Warning,
                Error{u"system_packages and steps have no place in azureml_environment.json: left out"_s,
                      {},
                      0,
                      0,
                      u"export a Dockerfile for them"_s}};
        if (!env.python.pipConstraints.isEmpty())
            *warnings << Diagnostic{
                Diagnostic::Severity::Warning,
                Error{u"pip_constraints have no place in azureml_environment.json: left out"_s, {}, 0, 0, {}}};
    }
    return QString::fromStdString(root.dump(4)) + u'\n';
}

EnvironmentRead parseAzureMlV2Yaml(const QString &fileText, const QString &path)
{
    EnvironmentRead result;
    yaml::Reader r(path);
    const auto root = yaml::loadMapping(fileText, r, u"an AzureML environment has name:, image: and conda_file:"_s,
                                        u"an AzureML environment YAML is a mapping (name:, image:, conda_file:)"_s);
    if (!root) {
        result.diagnostics = r.takeDiagnostics();
        return result;
    }
    const YAML::Node &node = *root;
    if (isAzureMlJob(node)) // a command job with its environment inline, or naming one
        return parseAzureMlJobEnvironment(fileText, path);
    Environment &env = result.environment;
    env.name = r.string(node["name"], u"name"_s);
    if (node["version"])
        env.version = r.string(node["version"], u"version"_s);
    env.description = r.string(node["description"], u"description"_s);
    env.docker.baseImage = r.string(node["image"], u"image"_s);

    const YAML::Node condaFile = node["conda_file"];
    if (condaFile && condaFile.IsMap()) {
        EnvironmentRead inner = parseCondaYaml(QString::fromStdString(YAML::Dump(condaFile)), path);
        env.python = inner.environment.python;
        for (Diagnostic d : inner.diagnostics) {
            d.where.line = yaml::line(condaFile);
            d.where.column = yaml::column(condaFile);
            r.add(d);
        }
    } else if (condaFile) {
        const QString relative = r.string(condaFile, u"conda_file"_s);
        const QString condaPath = QFileInfo(path).dir().filePath(relative);
        const auto condaText = readTextFile(condaPath);
        if (!condaText) {
            Error e = condaText.error();
            e.message = u"conda_file '%1': %2"_s.arg(relative, e.message);
            e.path = path;
            e.line = yaml::line(condaFile);
            e.column = yaml::column(condaFile);
            r.add(Diagnostic{Diagnostic::Severity::Error, e});
        } else {
            EnvironmentRead inner = parseCondaYaml(*condaText, condaPath);
            env.python = inner.environment.python;
            for (const auto &[key, value] : inner.environment.variables)
                env.variables.append({key, value});
            for (const Diagnostic &d : inner.diagnostics)
                r.add(d);
        }
    }
    if (node["build"])
        r.warning(node["build"], u"build (a Docker context) is kept but not used: Ferry generates the Dockerfile"_s,
                  u"put its steps into docker.steps and docker.system_packages"_s);
    ExtraKeys foreign =
        yaml::unknownKeys(node, {u"name"_s, u"version"_s, u"description"_s, u"image"_s, u"conda_file"_s});
    if (!foreign.is_null())
        env.extra[kV2Key] = foreign;
    result.diagnostics = r.takeDiagnostics();
    return result;
}

QList<GeneratedFile> writeAzureMlV2(const Environment &env, const QString &condaFileName, Diagnostics *warnings)
{
    const ExtraKeys foreign = foreignKeys(env, kV2Key);
    YAML::Emitter out;
    out.SetIndent(2);
    out << YAML::BeginMap;
    out << YAML::Key << "$schema" << YAML::Value
        << (foreign.contains("$schema") && foreign["$schema"].is_string()
                ? foreign["$schema"].get<std::string>()
                : std::string("https://azuremlschemas.azureedge.net/latest/environment.schema.json"));
    out << YAML::Key << "name" << YAML::Value;
    yaml::emitString(out, env.name);
    out << YAML::Key << "version" << YAML::Value << YAML::DoubleQuoted << env.version.toStdString();
    if (!env.description.isEmpty()) {
        out << YAML::Key << "description" << YAML::Value;
        yaml::emitString(out, env.description);
    }
    if (!env.docker.baseImage.isEmpty()) {
        out << YAML::Key << "image" << YAML::Value;
        yaml::emitString(out, env.docker.baseImage);
    }
    const PythonSection &p = env.python;
    const bool hasConda =
        !p.version.isEmpty() || !p.condaDependencies.isEmpty() || !p.pipRequirements.isEmpty() || !p.channels.isEmpty();
    if (hasConda) {
        out << YAML::Key << "conda_file" << YAML::Value;
        yaml::emitString(out, condaFileName);
    }
    ExtraKeys rest = foreign;
    if (rest.is_object() && rest.contains("$schema") && rest["$schema"].is_string())
        rest.erase("$schema");
    yaml::emitExtraKeys(out, rest);
    out << YAML::EndMap;

    QList<GeneratedFile> files{{u"environment.yml"_s, yaml::toText(out), {}}};
    if (hasConda) {
        Environment condaOnly;
        condaOnly.name = env.name;
        condaOnly.python = env.python;
        condaOnly.variables = env.variables;
        files << GeneratedFile{condaFileName, writeCondaYaml(condaOnly), {}};
    } else if (!env.variables.isEmpty() && warnings) {
        *warnings << Diagnostic{Diagnostic::Severity::Warning,
                                Error{u"variables need a conda file in AzureML v2: left out"_s, {}, 0, 0, {}}};
    }
    if (warnings && (!env.docker.systemPackages.isEmpty() || !env.docker.dockerfileSteps.isEmpty()))
        *warnings << Diagnostic{Diagnostic::Severity::Warning,
                                Error{u"system_packages and steps need a build context in AzureML v2: left out"_s,
                                      {},
                                      0,
                                      0,
                                      u"export a Dockerfile and use build.path"_s}};
    return files;
}

} // namespace ferry::env
