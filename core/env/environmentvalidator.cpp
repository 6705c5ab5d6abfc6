#include "env/environmentvalidator.h"

#include "env/conda/matchspec.h"
#include "env/pip/requirementsfile.h"

#include <QRegularExpression>

using namespace Qt::StringLiterals;

namespace ferry::env {

namespace {

struct FieldNameEntry {
    Field field;
    const char16_t *name;
};
constexpr FieldNameEntry kFieldNames[] = {
    {Field::Name, u"name"},
    {Field::Version, u"version"},
    {Field::Description, u"description"},
    {Field::BaseImage, u"base_image"},
    {Field::Registry, u"registry"},
    {Field::RegistryUser, u"registry_user"},
    {Field::RegistrySecret, u"registry_secret"},
    {Field::RunArguments, u"run_arguments"},
    {Field::ShmSize, u"shm_size"},
    {Field::Gpu, u"gpu"},
    {Field::SystemPackages, u"system_packages"},
    {Field::DockerfileSteps, u"steps"},
    {Field::RemoteUser, u"remote_user"},
    {Field::PythonVersion, u"python_version"},
    {Field::Interpreter, u"interpreter"},
    {Field::UserManaged, u"user_managed"},
    {Field::DevTools, u"dev_tools"},
    {Field::Channels, u"channels"},
    {Field::Conda, u"conda"},
    {Field::Pip, u"pip"},
    {Field::PipConstraints, u"pip_constraints"},
    {Field::IndexUrl, u"index_url"},
    {Field::ExtraIndexUrls, u"extra_index_urls"},
    {Field::FindLinks, u"find_links"},
    {Field::TrustedHosts, u"trusted_hosts"},
    {Field::Pre, u"pre"},
    {Field::NoIndex, u"no_index"},
    {Field::Variables, u"variables"},
};

// Collects findings; the checks below read as the rules they are.
class Checker {
public:
    void error(Field field, int row, const QString &message, const QString &hint, int column = 0)
    {
        m_findings << Finding{field, row, Diagnostic::Severity::Error, message, hint, column};
    }
    void warning(Field field, int row, const QString &message, const QString &hint = {})
    {
        m_findings << Finding{field, row, Diagnostic::Severity::Warning, message, hint, 0};
    }
    Findings take() { return std::move(m_findings); }

private:
    Findings m_findings;
};

void checkName(Checker &c, const QString &name)
{
    // What an image tag's name part may hold once lower-cased (imageTag), and what a file name
    // in environments/ may be without leading anywhere else.
    static const QRegularExpression pattern(u"^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$"_s);
    if (name.isEmpty())
        c.error(Field::Name, -1, u"the environment has no name"_s,
                u"give it a name such as my-env (letters, digits, '.', '_' and '-')"_s);
    else if (!pattern.match(name).hasMatch())
        c.error(Field::Name, -1, u"name '%1' cannot be part of an image tag"_s.arg(name),
                u"use letters, digits, '.', '_' and '-', starting with a letter or digit, at most 63 "
                u"(the image tag takes its lower-case form)"_s);
}

void checkVersions(Checker &c, const Environment &env)
{
    static const QRegularExpression version(u"^[A-Za-z0-9_.-]{1,32}$"_s);
    if (!version.match(env.version).hasMatch())
        c.error(Field::Version, -1, u"version '%1' cannot be part of an image tag"_s.arg(env.version),
                u"use letters, digits, '.', '_' and '-', e.g. \"3\" or \"2024.1\""_s);
    static const QRegularExpression python(u"^[0-9]+(\\.[0-9]+){0,2}(\\.\\*)?$"_s);
    if (!env.python.version.isEmpty() && !python.match(env.python.version).hasMatch())
        c.error(Field::PythonVersion, -1, u"'%1' is not a Python version such as 3.11"_s.arg(env.python.version),
                u"write major.minor, e.g. 3.11 (or 3.11.4)"_s);
}

void checkDocker(Checker &c, const Environment &env)
{
    static const QRegularExpression size(u"^[0-9]+[bkmgBKMG]?$"_s);
    if (!env.docker.shmSize.isEmpty() && !size.match(env.docker.shmSize).hasMatch())
        c.error(Field::ShmSize, -1, u"shm_size '%1' is not a size"_s.arg(env.docker.shmSize),
                u"write a number with b, k, m or g, e.g. 2g"_s);
    if (env.docker.baseImage.trimmed().isEmpty() && !env.python.userManaged)
        c.warning(Field::BaseImage, -1, u"no docker.base_image: container targets cannot build this environment"_s,
                  u"add e.g. 'base_image: python:3.11-slim'"_s);
}

void checkNonEmptyRows(Checker &c, Field field, const QStringList &values, const QString &what)
{
    for (int i = 0; i < values.size(); ++i)
        if (values.at(i).trimmed().isEmpty())
            c.error(field, i, u"empty %1"_s.arg(what), u"type one or delete the row"_s);
}

// Each row as its parser reads it: the same parsers the file readers use.
void checkDependencies(Checker &c, const PythonSection &python)
{
    for (int i = 0; i < python.condaDependencies.size(); ++i) {
        const auto parsed = parseMatchSpec(python.condaDependencies.at(i).text);
        if (!parsed)
            c.error(Field::Conda, i, parsed.error().message, parsed.error().hint, parsed.error().column);
    }
    auto pipRows = [&](Field field, const QList<PipRequirement> &rows) {
        for (int i = 0; i < rows.size(); ++i) {
            const auto parsed = parsePipLine(rows.at(i).text);
            if (!parsed)
                c.error(field, i, parsed.error().message, parsed.error().hint, parsed.error().column);
            else if (parsed->kind == PipRequirement::Kind::Verbatim)
                c.warning(field, i, u"kept as written: not a requirement Ferry understands"_s);
        }
    };
    pipRows(Field::Pip, python.pipRequirements);
    pipRows(Field::PipConstraints, python.pipConstraints);
}

void checkVariables(Checker &c, const Environment &env)
{
    static const QRegularExpression name(u"^[A-Za-z_][A-Za-z0-9_]*$"_s);
    QStringList seen;
    for (int i = 0; i < env.variables.size(); ++i) {
        const auto &[variable, value] = env.variables.at(i);
        if (!name.match(variable).hasMatch())
            c.error(Field::Variables, i, u"variable name '%1' is not a valid environment variable name"_s.arg(variable),
                    u"use letters, digits and '_', not starting with a digit"_s);
        else if (seen.contains(variable))
            c.error(Field::Variables, i, u"variable %1 is set twice"_s.arg(variable), u"delete one of them"_s);
        else if (env.isSecretVariable(variable) && value.trimmed().isEmpty())
            c.error(Field::Variables, i, u"secret variable '%1' names no keychain secret"_s.arg(variable),
                    u"give the name of a keychain secret (ferry secret set NAME), or unmark it as secret"_s);
        seen << variable;
    }
}

} // namespace

QString fieldName(Field field)
{
    for (const FieldNameEntry &entry : kFieldNames)
        if (entry.field == field)
            return QString::fromUtf16(entry.name);
    return {};
}

QString Finding::text() const
{
    const QString where = column > 0 ? u"column %1: "_s.arg(column) : QString();
    return where + message + (hint.isEmpty() ? QString() : u": "_s + hint);
}

Findings validateName(const QString &name)
{
    Checker c;
    checkName(c, name);
    return c.take();
}

Findings validate(const Environment &env)
{
    Checker c;
    checkName(c, env.name);
    checkVersions(c, env);
    checkDocker(c, env);
    checkNonEmptyRows(c, Field::RunArguments, env.docker.runArguments, u"run argument"_s);
    checkNonEmptyRows(c, Field::Channels, env.python.channels, u"channel"_s);
    checkDependencies(c, env.python);
    checkVariables(c, env);
    return c.take();
}

} // namespace ferry::env
