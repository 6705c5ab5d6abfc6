#include "env/spechash.h"

#include <QCryptographicHash>
#include <QRegularExpression>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace ferry::env {

namespace {

using SortedJson = nlohmann::json; // std::map underneath: keys always sorted

SortedJson sorted(QStringList values)
{
    values.sort();
    values.removeDuplicates();
    SortedJson array = SortedJson::array();
    for (const QString &v : std::as_const(values))
        array.push_back(v.toStdString());
    return array;
}

SortedJson inOrder(const QStringList &values)
{
    SortedJson array = SortedJson::array();
    for (const QString &v : values)
        array.push_back(v.trimmed().toStdString());
    return array;
}

SortedJson pipList(const QList<PipRequirement> &requirements)
{
    QStringList canonical;
    for (const PipRequirement &r : requirements)
        canonical << r.canonical();
    return sorted(canonical);
}

// Dockerfile steps: line endings and trailing blanks do not change what the image holds.
QString hashedSteps(QString steps)
{
    steps.replace(u"\r\n"_s, u"\n"_s);
    QStringList lines = steps.split(u'\n');
    for (QString &line : lines) {
        while (!line.isEmpty() && line.back().isSpace())
            line.chop(1);
    }
    while (!lines.isEmpty() && lines.last().isEmpty())
        lines.removeLast();
    while (!lines.isEmpty() && lines.first().isEmpty())
        lines.removeFirst();
    return lines.join(u'\n');
}

QString tagPart(const QString &text)
{
    QString part = text.toLower();
    static const QRegularExpression invalid(u"[^a-z0-9_.-]+"_s);
    part.replace(invalid, u"-"_s);
    return part.isEmpty() ? u"x"_s : part;
}

} // namespace

QString canonicalImageSpec(const Environment &env)
{
    const DockerSection &d = env.docker;
    const PythonSection &p = env.python;
    QStringList conda;
    for (const MatchSpec &spec : p.condaDependencies)
        conda << spec.canonical();
    QStringList systemPackages;
    for (const QString &package : d.systemPackages)
        systemPackages << package.trimmed();
    QStringList devTools;
    for (const QString &tool : p.devTools)
        devTools << tool.trimmed();

    SortedJson spec;
    spec["generator"] = kImageGeneratorVersion;
    spec["base_image"] = d.baseImage.trimmed().toStdString();
    spec["registry"] = d.registry.address.trimmed().toLower().toStdString();
    spec["system_packages"] = sorted(systemPackages);
    spec["steps"] = hashedSteps(d.dockerfileSteps).toStdString();
    spec["python"] = p.version.trimmed().toStdString();
    spec["interpreter"] = p.interpreterPath.trimmed().toStdString();
    spec["user_managed"] = p.userManaged;
    spec["channels"] = inOrder(p.channels); // order is priority
    spec["conda"] = sorted(conda);
    spec["pip"] = pipList(p.pipRequirements);
    spec["pip_constraints"] = pipList(p.pipConstraints);
    const PipOptions &o = p.pipOptions;
    spec["pip_options"] = SortedJson{{"index_url", o.indexUrl.trimmed().toStdString()},
                                     {"extra_index_urls", sorted(o.extraIndexUrls)},
                                     {"find_links", sorted(o.findLinks)},
                                     {"trusted_hosts", sorted(o.trustedHosts)},
                                     {"pre", o.pre},
                                     {"no_index", o.noIndex},
                                     {"other", sorted(o.other)}};
    spec["dev_tools"] = sorted(devTools);
    return QString::fromStdString(spec.dump());
}

QString specHash(const Environment &env)
{
    return QString::fromLatin1(
        QCryptographicHash::hash(canonicalImageSpec(env).toUtf8(), QCryptographicHash::Sha256).toHex());
}

QString imageTag(const Environment &env)
{
    const QString tag = tagPart(env.name) + u'-' + tagPart(env.version) + u'-' + specHash(env).left(8);
    return tag.right(128); // Docker's limit; the hash at the end survives
}

QString imageReference(const Environment &env)
{
    return u"ferry:"_s + imageTag(env);
}

} // namespace ferry::env
