#include "ui/env/dependencymodels.h"

#include "ui/env/environmentdocument.h"

#include <QFont>

using namespace Qt::StringLiterals;

namespace ferry::ui {

env::MatchSpec matchSpecFromText(const QString &text)
{
    const auto parsed = env::parseMatchSpec(text.trimmed());
    if (parsed)
        return *parsed;
    env::MatchSpec spec;
    spec.text = text.trimmed();
    return spec;
}

env::PipRequirement pipRequirementFromText(const QString &text)
{
    const auto parsed = env::parsePipLine(text.trimmed());
    if (parsed)
        return *parsed;
    env::PipRequirement requirement;
    requirement.kind = env::PipRequirement::Kind::Verbatim;
    requirement.text = text.trimmed();
    return requirement;
}

namespace {

QVariant textCell(const QString &text, int role, bool monospace)
{
    if (role == Qt::DisplayRole || role == Qt::EditRole)
        return text;
    if (role == Qt::FontRole && monospace) {
        QFont font(u"monospace"_s);
        font.setStyleHint(QFont::TypeWriter);
        return font;
    }
    return {};
}

// Whether the spec has parts to show and edit: read from its text, or typed in its cells (kept
// when the whole does not parse, so that what was typed stays in its cell).
bool hasParts(const env::MatchSpec &spec)
{
    return !spec.name.isEmpty() || !spec.version.isEmpty() || !spec.build.isEmpty() || !spec.channel.isEmpty();
}

} // namespace

// --- conda -------------------------------------------------------------------------------------

CondaDependencyModel::CondaDependencyModel(EnvironmentDocument *document, QObject *parent)
    : EnvironmentTableModel(document, env::Field::Conda, parent)
{
    initRows();
}

int CondaDependencyModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

int CondaDependencyModel::count(const env::Environment &environment) const
{
    return static_cast<int>(environment.python.condaDependencies.size());
}

QString CondaDependencyModel::rowName() const
{
    return tr("conda dependency");
}

QStringList CondaDependencyModel::headers() const
{
    return {tr("Name"), tr("Version"), tr("Build"), tr("Channel"), tr("As written")};
}

QVariant CondaDependencyModel::cell(const env::Environment &environment, int row, int column, int role) const
{
    const env::MatchSpec &spec = environment.python.condaDependencies.at(row);
    switch (column) {
    case Name:
        return textCell(spec.name, role, false);
    case Version:
        return textCell(spec.version, role, true);
    case Build:
        return textCell(spec.build, role, true);
    case Channel:
        return textCell(spec.subdir.isEmpty() ? spec.channel : spec.channel + u'/' + spec.subdir, role, false);
    case Text:
        return textCell(spec.text, role, true);
    default:
        return {};
    }
}

bool CondaDependencyModel::setCell(env::Environment &environment, int row, int column, const QVariant &value)
{
    env::MatchSpec &spec = environment.python.condaDependencies[row];
    const QString text = value.toString().trimmed();
    if (column == Text) {
        spec = matchSpecFromText(text);
        return true;
    }
    // A part: the other parts stay as they are (nothing when only a text that does not parse is there).
    env::MatchSpec parts = hasParts(spec) ? spec : env::MatchSpec();
    switch (column) {
    case Name:
        parts.name = text;
        break;
    case Version:
        parts.version = text;
        break;
    case Build:
        parts.build = text;
        break;
    case Channel:
        parts.channel = text;
        parts.subdir.clear(); // "conda-forge/linux-64" is read back into channel and subdir
        break;
    default:
        return false;
    }
    // Written again from the parts; when that does not parse (a version typed wrong), the parts
    // stay as typed and the text, which validation reads, is marked.
    parts.text = parts.canonical();
    const auto whole = env::parseMatchSpec(parts.text);
    spec = whole ? *whole : parts;
    return true;
}

void CondaDependencyModel::insertIn(env::Environment &environment, int row)
{
    environment.python.condaDependencies.insert(row, env::MatchSpec());
}

void CondaDependencyModel::removeIn(env::Environment &environment, int row)
{
    environment.python.condaDependencies.removeAt(row);
}

void CondaDependencyModel::moveIn(env::Environment &environment, int from, int to)
{
    environment.python.condaDependencies.move(from, to);
}

// --- pip ---------------------------------------------------------------------------------------

PipRequirementModel::PipRequirementModel(EnvironmentDocument *document, List list, QObject *parent)
    : EnvironmentTableModel(document, list == List::Requirements ? env::Field::Pip : env::Field::PipConstraints,
                            parent),
      m_list(list)
{
    initRows();
}

QList<env::PipRequirement> &PipRequirementModel::rows(env::Environment &environment) const
{
    return m_list == List::Requirements ? environment.python.pipRequirements : environment.python.pipConstraints;
}

const QList<env::PipRequirement> &PipRequirementModel::rows(const env::Environment &environment) const
{
    return m_list == List::Requirements ? environment.python.pipRequirements : environment.python.pipConstraints;
}

int PipRequirementModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

int PipRequirementModel::count(const env::Environment &environment) const
{
    return static_cast<int>(rows(environment).size());
}

QString PipRequirementModel::rowName() const
{
    return m_list == List::Requirements ? tr("pip requirement") : tr("pip constraint");
}

QStringList PipRequirementModel::headers() const
{
    return {tr("Name"), tr("Version"), tr("Extras"), tr("Markers"), tr("As written")};
}

namespace {

bool hasParts(const env::PipRequirement &r)
{
    return r.kind == env::PipRequirement::Kind::Requirement;
}

// A verbatim entry that does not parse: what the user is typing (an empty new row, a typo).
bool unparsed(const env::PipRequirement &r)
{
    return r.kind == env::PipRequirement::Kind::Verbatim && !env::parsePipLine(r.text);
}

} // namespace

QVariant PipRequirementModel::cell(const env::Environment &environment, int row, int column, int role) const
{
    const env::PipRequirement &r = rows(environment).at(row);
    if (column == Text)
        return textCell(r.toLine(), role, true);
    if (!hasParts(r)) {
        if (column == Name && role == Qt::DisplayRole && !unparsed(r))
            return r.kind == env::PipRequirement::Kind::Editable ? tr("(editable) %1").arg(r.target) : r.target;
        return role == Qt::EditRole ? QVariant(QString()) : QVariant();
    }
    const env::Requirement &q = r.requirement;
    switch (column) {
    case Name:
        return textCell(q.name, role, false);
    case Version:
        return textCell(q.url.isEmpty() ? q.specifier : u"@ "_s + q.url, role, true);
    case Extras:
        return textCell(q.extras.join(u", "_s), role, false);
    case Markers:
        return textCell(q.marker, role, true);
    default:
        return {};
    }
}

bool PipRequirementModel::isEditable(const env::Environment &environment, int row, int column) const
{
    const env::PipRequirement &r = rows(environment).at(row);
    return column == Text || hasParts(r) || unparsed(r);
}

bool PipRequirementModel::setCell(env::Environment &environment, int row, int column, const QVariant &value)
{
    env::PipRequirement &r = rows(environment)[row];
    const QString text = value.toString().trimmed();
    if (column == Text) {
        r = pipRequirementFromText(text);
        return true;
    }
    if (!hasParts(r) && !unparsed(r))
        return false;
    env::PipRequirement parts = hasParts(r) ? r : env::PipRequirement();
    env::Requirement &q = parts.requirement;
    switch (column) {
    case Name:
        q.name = text;
        break;
    case Version:
        if (text.startsWith(u'@')) {
            q.url = text.mid(1).trimmed();
            q.specifier.clear();
        } else {
            q.url.clear();
            q.specifier = text;
        }
        break;
    case Extras: {
        QStringList extras;
        for (const QString &extra : text.split(u',', Qt::SkipEmptyParts))
            extras << extra.trimmed();
        q.extras = extras;
        break;
    }
    case Markers:
        q.marker = text;
        break;
    default:
        return false;
    }
    // Written again from the parts; when that does not parse (a version typed wrong), the parts
    // stay as typed and the line, which validation reads, is marked.
    parts.text.clear(); // toLine() writes the line from the parts
    parts.text = parts.toLine();
    const auto whole = env::parsePipLine(parts.text);
    r = whole ? *whole : parts;
    return true;
}

void PipRequirementModel::insertIn(env::Environment &environment, int row)
{
    env::PipRequirement empty;
    empty.kind = env::PipRequirement::Kind::Verbatim;
    rows(environment).insert(row, empty);
}

void PipRequirementModel::removeIn(env::Environment &environment, int row)
{
    rows(environment).removeAt(row);
}

void PipRequirementModel::moveIn(env::Environment &environment, int from, int to)
{
    rows(environment).move(from, to);
}

} // namespace ferry::ui
