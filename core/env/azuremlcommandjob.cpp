#include "env/azuremlcommandjob.h"

#include "common/textfile.h"
#include "env/azureml.h"
#include "env/formats.h"
#include "env/yamlsupport.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>

using namespace Qt::StringLiterals;

namespace ferry::env {

namespace {

// `${{inputs.epochs}}`, `${{ outputs.model }}`: the kind and the name.
const QRegularExpression &placeholderPattern()
{
    static const QRegularExpression pattern(u"\\$\\{\\{\\s*([A-Za-z_][A-Za-z0-9_]*)\\.([A-Za-z0-9_.-]+)\\s*\\}\\}"_s);
    return pattern;
}

bool isUri(const QString &text)
{
    // Two letters at least before the colon: `C:\data` is a path.
    static const QRegularExpression scheme(u"^[A-Za-z][A-Za-z0-9+.-]+:"_s);
    return scheme.match(text).hasMatch();
}

QString absoluteAgainst(const QDir &dir, const QString &path)
{
    return isUri(path) ? path : QDir::cleanPath(dir.absoluteFilePath(path));
}

void readInput(yaml::Reader &r, const QString &name, const YAML::Node &value, const QDir &dir, AzureMlCommandJob &job)
{
    AzureMlJobInput input{name, {}, {}, {}};
    if (value.IsScalar()) {
        input.value = yaml::scalar(value);
    } else if (value.IsMap() && value["path"]) {
        input.path = absoluteAgainst(dir, r.string(value["path"], u"path"_s));
        input.type = r.string(value["type"], u"type"_s);
    } else if (value.IsMap() && (value["value"] || value["default"])) {
        input.value = r.string(value["value"] ? value["value"] : value["default"], u"value"_s);
    } else {
        r.error(value, u"input '%1' has neither a value nor a path"_s.arg(name),
                u"write a literal (epochs: 10) or a data input ({type: uri_folder, path: ./data})"_s);
        return;
    }
    job.inputs << input;
}

// The inline environment is an AzureML environment YAML of its own; its conda_file is beside
// the job file. Its problems point at the `environment:` line.
EnvironmentRead readInlineEnvironment(const YAML::Node &node, const QString &path)
{
    EnvironmentRead read = parseAzureMlV2Yaml(QString::fromStdString(YAML::Dump(node)), path);
    for (Diagnostic &d : read.diagnostics) {
        if (d.where.path == path) {
            d.where.line = yaml::line(node);
            d.where.column = yaml::column(node);
        }
    }
    return read;
}

void readEnvironment(yaml::Reader &r, const YAML::Node &root, const QString &path, AzureMlCommandJob &job)
{
    const YAML::Node node = root["environment"];
    if (!node || node.IsNull())
        return;
    if (node.IsScalar()) {
        job.environmentReference = yaml::scalar(node);
        return;
    }
    if (!node.IsMap()) {
        r.error(node, u"'environment' must be a registered environment (azureml:NAME@latest) or a mapping"_s);
        return;
    }
    EnvironmentRead read = readInlineEnvironment(node, path);
    Environment &env = read.environment;
    if (env.name.isEmpty()) {
        // Named after the job, the same way on every read (the run's image tag holds the name).
        const QString named = r.string(root["display_name"], u"display_name"_s);
        const QString experiment = r.string(root["experiment_name"], u"experiment_name"_s);
        env.name = !named.isEmpty()        ? sanitizedEnvironmentName(named)
                   : !experiment.isEmpty() ? sanitizedEnvironmentName(experiment)
                                           : environmentNameFromPath(path);
    }
    const YAML::Node variables = root["environment_variables"];
    if (r.isMap(variables, u"environment_variables"_s))
        for (const auto &entry : variables)
            env.variables.append(
                {QString::fromStdString(entry.first.Scalar()), r.string(entry.second, u"environment_variables"_s)});
    job.environment = std::move(read);
}

void readResources(yaml::Reader &r, const YAML::Node &root, AzureMlCommandJob &job)
{
    const YAML::Node resources = root["resources"];
    if (!r.isMap(resources, u"resources"_s))
        return;
    if (const YAML::Node count = resources["instance_count"]) {
        bool ok = false;
        job.instanceCount = r.string(count, u"instance_count"_s).toInt(&ok);
        if (!ok || job.instanceCount < 1) {
            r.error(count, u"instance_count must be a whole number of at least 1"_s);
            job.instanceCount = 1;
        }
    }
    job.instanceType = r.string(resources["instance_type"], u"instance_type"_s);
}

void readDistribution(yaml::Reader &r, const YAML::Node &root, AzureMlCommandJob &job)
{
    const YAML::Node distribution = root["distribution"];
    job.distributed = distribution && !distribution.IsNull();
    if (!job.distributed || !r.isMap(distribution, u"distribution"_s))
        return;
    job.distributionType = r.string(distribution["type"], u"type"_s).toLower();
    if (const YAML::Node count = distribution["process_count_per_instance"]) {
        bool ok = false;
        job.processesPerInstance = r.string(count, u"process_count_per_instance"_s).toInt(&ok);
        if (!ok || job.processesPerInstance < 1) {
            r.error(count, u"process_count_per_instance must be a whole number of at least 1"_s);
            job.processesPerInstance = 1;
        }
    }
}

Error commandError(const QString &message, const QString &hint)
{
    return Error{message, {}, 0, 0, hint};
}

// The words of one simple command as bash splits it: blanks separate, quotes and backslashes
// group. What only a shell can run is refused: Ferry starts the script without one.
Expected<QStringList> shellWords(const QString &command)
{
    const QString noShell = u"Ferry runs the script without a shell: write the command as python SCRIPT ARGS"_s;
    QStringList words;
    QString word;
    bool inWord = false;
    enum class Quote { None, Single, Double } quote = Quote::None;
    for (qsizetype i = 0; i < command.size(); ++i) {
        const QChar c = command.at(i);
        const QChar next = i + 1 < command.size() ? command.at(i + 1) : QChar();
        const bool placeholder = QStringView(command).sliced(i).startsWith(u"${{"_s);
        if (quote == Quote::Single) {
            if (c == u'\'')
                quote = Quote::None;
            else
                word += c;
            continue;
        }
        if (quote == Quote::None && (c == u' ' || c == u'\t')) {
            if (inWord)
                words << word;
            word.clear();
            inWord = false;
            continue;
        }
        if (c == u'\\' && (quote == Quote::None || QStringView(u"\"\\$`\n").contains(next))) {
            if (next != u'\n' && !next.isNull())
                word += next; // a backslash before a line break continues the line
            ++i;
            inWord = inWord || next != u'\n';
            continue;
        }
        if (c == u'$' && !placeholder)
            return commandError(u"the command expands %1: "_s.arg(QStringView(command).sliced(i).left(16)) +
                                    u"a variable or command substitution needs a shell"_s,
                                noShell);
        if (quote == Quote::Double) {
            if (c == u'"')
                quote = Quote::None;
            else if (c == u'`')
                return commandError(u"the command holds a command substitution (`)"_s, noShell);
            else
                word += c;
            continue;
        }
        if (c == u'\n') {
            if (!command.sliced(i).trimmed().isEmpty())
                return commandError(u"the command holds more than one line"_s, noShell);
            break;
        }
        if (c == u'\'' || c == u'"') {
            quote = c == u'"' ? Quote::Double : Quote::Single;
            inWord = true;
            continue;
        }
        if (QStringView(u";&|<>()`").contains(c))
            return commandError(u"the command holds '%1': a list, pipeline or redirection needs a shell"_s.arg(c),
                                noShell);
        word += c;
        inWord = true;
    }
    if (quote != Quote::None)
        return commandError(u"the command has an unclosed quote"_s, u"close the quote"_s);
    if (inWord)
        words << word;
    return words;
}

// `python`, `python3`, `/usr/bin/python3.11`.
bool isPython(const QString &word)
{
    static const QRegularExpression python(u"^(.*/)?python[0-9.]*$"_s);
    return python.match(word).hasMatch();
}

// `--NAME ${{inputs.X}}` or `--NAME=${{inputs.X}}` for a literal input X: NAME and X.
std::optional<std::pair<QString, QString>> hyperparameterPair(const QString &word, const QString &next,
                                                              const QMap<QString, QString> &literals)
{
    static const QRegularExpression flag(
        u"^--([A-Za-z_][A-Za-z0-9_-]*)(=\\$\\{\\{inputs\\.([A-Za-z0-9_.-]+)\\}\\})?$"_s);
    static const QRegularExpression input(u"^\\$\\{\\{inputs\\.([A-Za-z0-9_.-]+)\\}\\}$"_s);
    const QRegularExpressionMatch f = flag.match(word);
    if (!f.hasMatch())
        return std::nullopt;
    const QString name = f.hasCaptured(3) ? f.captured(3) : input.match(next).captured(1);
    if (name.isEmpty() || !literals.contains(name))
        return std::nullopt;
    return std::pair{f.captured(1), name};
}

} // namespace

bool AzureMlJobInput::isRemote() const
{
    return isUri(path);
}

const AzureMlJobInput *AzureMlCommandJob::input(const QString &name) const
{
    for (const AzureMlJobInput &i : inputs)
        if (i.name == name)
            return &i;
    return nullptr;
}

bool isAzureMlJob(const YAML::Node &root)
{
    if (!root.IsMap())
        return false;
    const QString schema = root["$schema"] ? yaml::scalar(root["$schema"]) : QString();
    return root["command"] || root["type"] || root["jobs"] || schema.contains(u"Job.schema"_s, Qt::CaseInsensitive);
}

AzureMlCommandJob parseAzureMlCommandJob(const QString &text, const QString &path)
{
    AzureMlCommandJob job;
    job.path = QFileInfo(path).absoluteFilePath();
    yaml::Reader r(path);
    const auto root = yaml::loadMapping(text, r, u"an AzureML command job has command:, environment: and compute:"_s,
                                        u"an AzureML job is a mapping (command:, environment:, compute:)"_s);
    if (!root) {
        job.diagnostics = r.takeDiagnostics();
        return job;
    }
    const YAML::Node &node = *root;
    const QDir dir = QFileInfo(path).absoluteDir();
    const QString type = r.string(node["type"], u"type"_s);
    if ((!type.isEmpty() && type != "command"_L1) || node["jobs"])
        r.error(node["type"] ? node["type"] : node["jobs"],
                u"a %1 job: Ferry reads AzureML command jobs"_s.arg(type.isEmpty() ? u"pipeline"_s : type),
                u"import the environment of one of its steps, or run a step's own job file"_s);
    job.command = r.string(node["command"], u"command"_s);
    const QString code = r.string(node["code"], u"code"_s);
    job.codeDir = code.isEmpty() ? dir.absolutePath() : absoluteAgainst(dir, code);
    const YAML::Node inputs = node["inputs"];
    if (r.isMap(inputs, u"inputs"_s))
        for (const auto &entry : inputs)
            readInput(r, QString::fromStdString(entry.first.Scalar()), entry.second, dir, job);
    const YAML::Node outputs = node["outputs"];
    if (r.isMap(outputs, u"outputs"_s))
        for (const auto &entry : outputs)
            job.outputs << QString::fromStdString(entry.first.Scalar());
    readEnvironment(r, node, path, job);
    job.compute = r.string(node["compute"], u"compute"_s);
    readResources(r, node, job);
    readDistribution(r, node, job);
    job.diagnostics = r.takeDiagnostics();
    return job;
}

AzureMlCommandJob readAzureMlCommandJob(const QString &path)
{
    const auto text = readTextFile(path);
    if (!text) {
        AzureMlCommandJob job;
        job.path = QFileInfo(path).absoluteFilePath();
        job.diagnostics << Diagnostic{Diagnostic::Severity::Error, text.error()};
        return job;
    }
    return parseAzureMlCommandJob(*text, path);
}

EnvironmentRead parseAzureMlJobEnvironment(const QString &text, const QString &path)
{
    AzureMlCommandJob job = parseAzureMlCommandJob(text, path);
    EnvironmentRead result;
    result.diagnostics = job.diagnostics;
    if (hasErrors(result.diagnostics))
        return result;
    auto error = [&](const QString &message, const QString &hint) {
        result.diagnostics << Diagnostic{Diagnostic::Severity::Error, Error{message, path, 0, 0, hint}};
    };
    if (!job.environmentReference.isEmpty()) {
        error(u"the job's environment %1 is registered in AzureML: Ferry cannot read it offline"_s.arg(
                  job.environmentReference),
              u"import the environment's own file (az ml environment show -n NAME -v VERSION > env.yml), or its "
              u"conda file"_s);
    } else if (!job.environment) {
        error(u"this AzureML job holds no environment"_s,
              u"add environment: with image: and conda_file: to the job, or import the environment file it uses"_s);
    } else {
        result.environment = job.environment->environment;
        result.diagnostics << job.environment->diagnostics;
        result.diagnostics << Diagnostic{
            Diagnostic::Severity::Warning,
            Error{u"an AzureML command job: its environment is imported, not its command"_s, path, 0, 0,
                  u"start the job itself with 'ferry run --from-azureml %1'"_s.arg(QFileInfo(path).fileName())}};
    }
    return result;
}

QString resolveAzureMlOptionalParts(const QString &command, const QStringList &given)
{
    static const QRegularExpression optional(u"\\$\\[\\[(.*?)\\]\\]"_s, QRegularExpression::DotMatchesEverythingOption);
    QString out;
    qsizetype from = 0;
    for (const QRegularExpressionMatch &part : optional.globalMatch(command)) {
        out += QStringView(command).sliced(from, part.capturedStart() - from);
        const QString inner = part.captured(1);
        bool complete = true;
        for (const QRegularExpressionMatch &p : placeholderPattern().globalMatch(inner))
            complete = complete && p.captured(1) == "inputs"_L1 && given.contains(p.captured(2));
        if (complete)
            out += inner;
        from = part.capturedEnd();
    }
    return out + QStringView(command).sliced(from);
}

Expected<QString> fillAzureMlPlaceholders(const QString &command, const QMap<QString, QString> &values)
{
    const QString text = resolveAzureMlOptionalParts(command, values.keys());
    QString out;
    qsizetype from = 0;
    for (const QRegularExpressionMatch &p : placeholderPattern().globalMatch(text)) {
        const QString kind = p.captured(1);
        const QString name = p.captured(2);
        if (kind != "inputs"_L1)
            return Error{u"the command uses %1: Ferry fills only ${{inputs.NAME}}"_s.arg(p.captured(0)),
                         {},
                         0,
                         0,
                         kind == "outputs"_L1
                             ? u"a Ferry run writes its model to $SM_MODEL_DIR and other files to $SM_OUTPUT_DATA_DIR: "
                               u"let the script take those"_s
                             : u"write the value into the command"_s};
        if (!values.contains(name))
            return Error{u"the command uses ${{inputs.%1}}, which has no value"_s.arg(name),
                         {},
                         0,
                         0,
                         u"add %1 under the job's inputs:, or give it with --hp %1=VALUE"_s.arg(name)};
        out += QStringView(text).sliced(from, p.capturedStart() - from);
        out += values.value(name);
        from = p.capturedEnd();
    }
    out += QStringView(text).sliced(from);
    return out;
}

Expected<AzureMlJobCommand> splitAzureMlCommand(const QString &command, const QMap<QString, QString> &literals,
                                                const QMap<QString, QString> &paths)
{
    QMap<QString, QString> values = paths;
    values.insert(literals);
    // `${{ inputs.x }}` as one word, whatever its spacing.
    QString text = resolveAzureMlOptionalParts(command, values.keys());
    text.replace(placeholderPattern(), u"${{\\1.\\2}}"_s);
    const QString expected = u"write the command as python SCRIPT ARGS (a Python script in the job's code folder)"_s;
    static const QRegularExpression blanks(u"\\s+"_s);
    if (!isPython(text.trimmed().section(blanks, 0, 0))) // said first: the shell's rules would not help
        return commandError(u"the command '%1' does not start a Python script"_s.arg(command.simplified()), expected);
    const auto words = shellWords(text);
    if (!words)
        return words.error();
    AzureMlJobCommand out;
    out.interpreter = words->first();
    qsizetype i = 1;
    if (i < words->size() && words->at(i) == "-u"_L1)
        ++i; // unbuffered output: Ferry's runs are read as they write
    if (i >= words->size() || words->at(i).startsWith(u'-') || words->at(i).contains(u"${{"_s))
        return commandError(u"the command '%1' names no script file"_s.arg(command.simplified()), expected);
    out.script = words->at(i++);
    for (const QRegularExpressionMatch &p : placeholderPattern().globalMatch(text))
        if (p.captured(1) == "inputs"_L1 && !out.inputsUsed.contains(p.captured(2)))
            out.inputsUsed << p.captured(2);
    for (; i < words->size(); ++i) {
        const QString next = i + 1 < words->size() ? words->at(i + 1) : QString();
        if (const auto pair = hyperparameterPair(words->at(i), next, literals)) {
            out.hyperparameters.append({pair->first, literals.value(pair->second)});
            if (!words->at(i).contains(u'='))
                ++i;
            continue;
        }
        const auto filled = fillAzureMlPlaceholders(words->at(i), values);
        if (!filled)
            return filled.error();
        out.arguments << *filled;
    }
    return out;
}

} // namespace ferry::env
