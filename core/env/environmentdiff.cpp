#include "env/environmentdiff.h"

using namespace Qt::StringLiterals;

namespace ferry::env {

namespace {

using Kind = EnvironmentChange::Kind;

class DiffBuilder {
public:
    QList<EnvironmentChange> changes;

    void setting(const QString &section, const QString &key, const QString &before, const QString &after)
    {
        if (before != after)
            changes << EnvironmentChange{Kind::Changed, section, key, before, after};
    }
    void setting(const QString &section, const QString &key, const QStringList &before, const QStringList &after)
    {
        setting(section, key, before.join(u' '), after.join(u' '));
    }
    void setting(const QString &section, const QString &key, bool before, bool after)
    {
        setting(section, key, before ? u"yes"_s : u"no"_s, after ? u"yes"_s : u"no"_s);
    }

    // Entries matched by key: (key, text as written, comparable meaning).
    struct Entry {
        QString key;
        QString text;
        QString meaning;
    };
    void entries(const QString &section, const QList<Entry> &before, const QList<Entry> &after)
    {
        auto find = [](const QList<Entry> &list, const QString &key) {
            return std::find_if(list.cbegin(), list.cend(), [&](const Entry &e) { return e.key == key; });
        };
        for (const Entry &entry : after) {
            const auto old = find(before, entry.key);
            if (old == before.cend())
                changes << EnvironmentChange{Kind::Added, section, entry.key, {}, entry.text};
            else if (old->meaning != entry.meaning)
                changes << EnvironmentChange{Kind::Changed, section, entry.key, old->text, entry.text};
        }
        for (const Entry &entry : before)
            if (find(after, entry.key) == after.cend())
                changes << EnvironmentChange{Kind::Removed, section, entry.key, entry.text, {}};
    }
};

QList<DiffBuilder::Entry> condaEntries(const QList<MatchSpec> &specs)
{
    QList<DiffBuilder::Entry> out;
    for (const MatchSpec &spec : specs)
        out << DiffBuilder::Entry{spec.name.isEmpty() ? spec.text : spec.name, spec.text, spec.canonical()};
    return out;
}

QList<DiffBuilder::Entry> pipEntries(const QList<PipRequirement> &requirements)
{
    QList<DiffBuilder::Entry> out;
    for (const PipRequirement &r : requirements) {
        const QString key = r.kind == PipRequirement::Kind::Requirement && !r.requirement.name.isEmpty()
                                ? r.requirement.normalizedName()
                                : r.text;
        out << DiffBuilder::Entry{key, r.toLine(), r.canonical()};
    }
    return out;
}

QList<DiffBuilder::Entry> variableEntries(const Environment &env)
{
    QList<DiffBuilder::Entry> out;
    for (const auto &[name, value] : env.variables) {
        const QString shown = env.isSecretVariable(name) ? u"secret: "_s + value : value;
        out << DiffBuilder::Entry{name, shown, shown};
    }
    return out;
}

} // namespace

QString changeKindName(EnvironmentChange::Kind kind)
{
    switch (kind) {
    case Kind::Added:
        return u"added"_s;
    case Kind::Removed:
        return u"removed"_s;
    case Kind::Changed:
        break;
    }
    return u"changed"_s;
}

QList<EnvironmentChange> diffEnvironments(const Environment &a, const Environment &b)
{
    DiffBuilder d;
    const QString environment = u"environment"_s;
    d.setting(environment, u"name"_s, a.name, b.name);
    d.setting(environment, u"version"_s, a.version, b.version);
    d.setting(environment, u"description"_s, a.description, b.description);

    const QString docker = u"docker"_s;
    const DockerSection &x = a.docker;
    const DockerSection &y = b.docker;
    d.setting(docker, u"base image"_s, x.baseImage, y.baseImage);
    d.setting(docker, u"registry"_s, x.registry.address, y.registry.address);
    d.setting(docker, u"registry user"_s, x.registry.username, y.registry.username);
    d.setting(docker, u"registry credential"_s, x.registry.passwordSecret, y.registry.passwordSecret);
    d.setting(docker, u"run arguments"_s, x.runArguments, y.runArguments);
    d.setting(docker, u"shm size"_s, x.shmSize, y.shmSize);
    d.setting(docker, u"GPU"_s, gpuModeName(x.gpu), gpuModeName(y.gpu));
    d.setting(docker, u"system packages"_s, x.systemPackages, y.systemPackages);
    d.setting(docker, u"Dockerfile steps"_s, x.dockerfileSteps.trimmed(), y.dockerfileSteps.trimmed());
    d.setting(docker, u"remote user"_s, x.remoteUser, y.remoteUser);

    const QString python = u"python"_s;
    const PythonSection &p = a.python;
    const PythonSection &q = b.python;
    d.setting(python, u"python version"_s, p.version, q.version);
    d.setting(python, u"channels"_s, p.channels, q.channels); // order is priority: a reorder is a change
    d.setting(python, u"interpreter"_s, p.interpreterPath, q.interpreterPath);
    d.setting(python, u"user managed"_s, p.userManaged, q.userManaged);
    d.setting(python, u"pip options"_s, p.pipOptions.toLines(), q.pipOptions.toLines());
    d.setting(python, u"dev tools"_s, p.devTools, q.devTools);
    d.entries(u"conda"_s, condaEntries(p.condaDependencies), condaEntries(q.condaDependencies));
    d.entries(u"pip"_s, pipEntries(p.pipRequirements), pipEntries(q.pipRequirements));
    d.entries(u"pip constraints"_s, pipEntries(p.pipConstraints), pipEntries(q.pipConstraints));
    d.entries(u"variables"_s, variableEntries(a), variableEntries(b));
    return d.changes;
}

} // namespace ferry::env
