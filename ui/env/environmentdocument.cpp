#include "ui/env/environmentdocument.h"

#include "common/textfile.h"
#include "env/environmentfile.h"
#include "env/formats.h"

#include <QDir>
#include <QFileInfo>
#include <QFileSystemWatcher>
#include <QRegularExpression>
#include <QUndoCommand>
#include <QUndoStack>

using namespace Qt::StringLiterals;

namespace ferry::ui {

namespace {

// One edit: the whole environment before and after, so undo restores it exactly. Edits with
// the same merge key (one field, one cell) following each other become one command.
class EditCommand : public QUndoCommand {
public:
    EditCommand(EnvironmentDocument *document, const QString &text, QString mergeKey, env::Environment before,
                env::Environment after)
        : QUndoCommand(text), m_document(document), m_key(std::move(mergeKey)), m_before(std::move(before)),
          m_after(std::move(after))
    {
    }
    int id() const override { return m_key.isEmpty() ? -1 : 7; }
    bool mergeWith(const QUndoCommand *other) override
    {
        const auto *edit = static_cast<const EditCommand *>(other);
        if (edit->m_key != m_key)
            return false;
        m_after = edit->m_after;
        setObsolete(m_after == m_before); // typed and deleted again: nothing to undo
        return true;
    }
    void redo() override { m_document->apply(m_after); }
    void undo() override { m_document->apply(m_before); }

private:
    EnvironmentDocument *m_document;
    QString m_key;
    env::Environment m_before;
    env::Environment m_after;
};

QString columnNote(const Error &e)
{
    return e.column > 0 ? u"column %1: %2"_s.arg(e.column).arg(e.message) : e.message;
}

} // namespace

QList<FieldProblem> validateForEditor(const env::Environment &env)
{
    QList<FieldProblem> problems;
    auto error = [&](const QString &field, int row, const QString &message) {
        problems << FieldProblem{field, row, message, false};
    };
    static const QRegularExpression namePattern(u"^[a-z0-9][a-z0-9_.-]{0,62}$"_s);
    if (env.name.isEmpty())
        error(u"name"_s, -1, u"the environment needs a name (lower-case letters, digits, . _ -)"_s);
    else if (!namePattern.match(env.name).hasMatch())
        error(u"name"_s, -1,
              u"name '%1' cannot be part of an image tag: use lower-case letters, digits, '.', '_' and '-'"_s.arg(
                  env.name));
    static const QRegularExpression versionPattern(u"^[A-Za-z0-9_.-]{1,32}$"_s);
    if (!versionPattern.match(env.version).hasMatch())
        error(u"version"_s, -1,
              u"version '%1' cannot be part of an image tag: use letters, digits, '.', '_' and '-'"_s.arg(env.version));
    static const QRegularExpression shmPattern(u"^[0-9]+[bkmgBKMG]?$"_s);
    if (!env.docker.shmSize.isEmpty() && !shmPattern.match(env.docker.shmSize).hasMatch())
        error(u"shm_size"_s, -1,
              u"'%1' is not a size: write a number with b, k, m or g, e.g. 2g"_s.arg(env.docker.shmSize));
    if (env.docker.baseImage.trimmed().isEmpty() && !env.python.userManaged)
        problems << FieldProblem{u"base_image"_s, -1,
                                 u"no base image: container targets cannot build this environment"_s, true};
    static const QRegularExpression pythonPattern(u"^[0-9]+(\\.[0-9]+){0,2}(\\.\\*)?$"_s);
    if (!env.python.version.isEmpty() && !pythonPattern.match(env.python.version).hasMatch())
        error(u"python_version"_s, -1, u"'%1' is not a Python version such as 3.11"_s.arg(env.python.version));

    auto nonEmpty = [&](const QString &field, const QStringList &values, const QString &what) {
        for (int i = 0; i < values.size(); ++i)
            if (values.at(i).trimmed().isEmpty())
                error(field, i, u"empty %1: type one or delete the row"_s.arg(what));
    };
    nonEmpty(u"channels"_s, env.python.channels, u"channel"_s);
    nonEmpty(u"run_arguments"_s, env.docker.runArguments, u"argument"_s);

    const QList<env::MatchSpec> &conda = env.python.condaDependencies;
    for (int i = 0; i < conda.size(); ++i) {
        const auto parsed = env::parseMatchSpec(conda.at(i).text);
        if (!parsed)
            error(u"conda"_s, i, columnNote(parsed.error()));
    }
    auto pipRows = [&](const QString &field, const QList<env::PipRequirement> &rows) {
        for (int i = 0; i < rows.size(); ++i) {
            const auto parsed = env::parsePipLine(rows.at(i).text);
            if (!parsed)
                error(field, i, columnNote(parsed.error()));
            else if (parsed->kind == env::PipRequirement::Kind::Verbatim)
                problems << FieldProblem{field, i, u"kept as written: not a requirement Ferry understands"_s, true};
        }
    };
    pipRows(u"pip"_s, env.python.pipRequirements);
    pipRows(u"pip_constraints"_s, env.python.pipConstraints);

    static const QRegularExpression variablePattern(u"^[A-Za-z_][A-Za-z0-9_]*$"_s);
    QStringList seen;
    for (int i = 0; i < env.variables.size(); ++i) {
        const auto &[name, value] = env.variables.at(i);
        if (!variablePattern.match(name).hasMatch())
            error(u"variables"_s, i,
                  u"'%1' is not a variable name: use letters, digits and '_', not starting with a digit"_s.arg(name));
        else if (seen.contains(name))
            error(u"variables"_s, i, u"%1 is set twice: delete one of the rows"_s.arg(name));
        else if (env.isSecretVariable(name) && value.trimmed().isEmpty())
            error(u"variables"_s, i, u"%1 is secret but names no keychain secret: choose one"_s.arg(name));
        seen << name;
    }
    return problems;
}

EnvironmentDocument::EnvironmentDocument(QObject *parent)
    : QObject(parent), m_undo(new QUndoStack(this)), m_watcher(new QFileSystemWatcher(this))
{
    connect(m_undo, &QUndoStack::cleanChanged, this, [this](bool clean) { Q_EMIT dirtyChanged(!clean); });
    connect(m_watcher, &QFileSystemWatcher::fileChanged, this, &EnvironmentDocument::fileChanged);
    m_problems = validateForEditor(m_environment);
}

EnvironmentDocument::~EnvironmentDocument() = default;

env::Diagnostics EnvironmentDocument::load(const QString &path)
{
    const QString absolute = QFileInfo(path).absoluteFilePath();
    const env::EnvironmentRead read = env::readEnvironment(absolute);
    const auto text = readTextFile(absolute);
    const bool ferryFormat = text && env::detectFormat(absolute, *text) == env::Format::Ferry;
    m_sourcePath = absolute;
    m_diskText = text ? *text : QString();
    if (ferryFormat) {
        setPath(absolute);
    } else {
        setPath({});
    }
    env::Environment loaded = read.environment;
    if (!ferryFormat && loaded.name.isEmpty())
        loaded.name = env::environmentNameFromPath(absolute);
    m_undo->clear();
    apply(loaded);
    if (!ferryFormat)
        m_undo->resetClean(); // an import is unsaved until it has a Ferry file
    return read.diagnostics;
}

void EnvironmentDocument::setNew(const env::Environment &environment, const QString &path)
{
    m_sourcePath.clear();
    m_diskText.clear();
    setPath({});
    m_suggestedPath = path;
    m_undo->clear();
    apply(environment);
    m_undo->resetClean();
}

void EnvironmentDocument::setPath(const QString &path)
{
    if (!m_watcher->files().isEmpty())
        m_watcher->removePaths(m_watcher->files());
    const bool changedPath = m_path != path;
    m_path = path;
    watch();
    if (changedPath)
        Q_EMIT pathChanged(path);
}

void EnvironmentDocument::watch()
{
    // A file replaced by an atomic save is a new file: watch its name again.
    if (!m_path.isEmpty() && QFileInfo::exists(m_path) && !m_watcher->files().contains(m_path))
        m_watcher->addPath(m_path);
}

QString EnvironmentDocument::baseDir() const
{
    const QString file = m_path.isEmpty() ? m_sourcePath : m_path;
    return file.isEmpty() ? QDir::currentPath() : QFileInfo(file).absolutePath();
}

QString EnvironmentDocument::title() const
{
    QString name = m_path.isEmpty() ? (m_environment.name.isEmpty() ? tr("new environment") : m_environment.name)
                                    : QFileInfo(m_path).fileName();
    return isDirty() ? name + u'*' : name;
}

bool EnvironmentDocument::isDirty() const
{
    return !m_undo->isClean();
}

bool EnvironmentDocument::existsOnDisk() const
{
    return !m_path.isEmpty() && QFileInfo::exists(m_path);
}

Expected<env::VersionedSave> EnvironmentDocument::save(const QString &path)
{
    const QString target =
        QFileInfo(path.isEmpty() ? (m_path.isEmpty() ? m_suggestedPath : m_path) : path).absoluteFilePath();
    if (path.isEmpty() && m_path.isEmpty() && m_suggestedPath.isEmpty())
        return Error{tr("this environment has no file yet"), {}, 0, 0, tr("choose where to save it")};
    if (!QDir().mkpath(QFileInfo(target).absolutePath()))
        return Error{tr("cannot create the folder"), QFileInfo(target).absolutePath(), 0, 0,
                     tr("check that the workspace is writable")};
    auto saved = env::saveVersioned(target, m_environment);
    if (!saved)
        return saved;
    if (!(saved->written == m_environment))
        m_undo->push(
            new EditCommand(this, tr("Version %1").arg(saved->written.version), {}, m_environment, saved->written));
    m_diskText = env::writeEnvironmentYaml(saved->written);
    m_sourcePath = target;
    setPath(target);
    watch();
    m_undo->setClean();
    return saved;
}

env::Diagnostics EnvironmentDocument::reload()
{
    if (m_path.isEmpty())
        return {};
    return load(m_path);
}

void EnvironmentDocument::fileChanged()
{
    watch();
    if (m_path.isEmpty() || !QFileInfo::exists(m_path))
        return; // removed, or between the steps of a replace: a later change comes
    const auto text = readTextFile(m_path);
    if (!text || *text == m_diskText)
        return;
    if (isDirty()) {
        m_diskText = *text; // ask once per change
        Q_EMIT changedOnDisk();
        return;
    }
    load(m_path);
    Q_EMIT reloadedFromDisk();
}

bool EnvironmentDocument::edit(const QString &text, const QString &mergeKey,
                               const std::function<void(env::Environment &)> &change)
{
    env::Environment after = m_environment;
    change(after);
    if (after == m_environment)
        return false;
    m_undo->push(new EditCommand(this, text, mergeKey, m_environment, std::move(after)));
    return true;
}

bool EnvironmentDocument::replace(const QString &text, const env::Environment &environment)
{
    return edit(text, {}, [&](env::Environment &env) { env = environment; });
}

void EnvironmentDocument::apply(const env::Environment &environment)
{
    m_environment = environment;
    QList<FieldProblem> problems = validateForEditor(m_environment);
    const bool problemsChangedNow = problems != m_problems;
    m_problems = std::move(problems);
    Q_EMIT changed();
    if (problemsChangedNow)
        Q_EMIT problemsChanged();
}

QList<FieldProblem> EnvironmentDocument::problemsOf(const QString &field) const
{
    QList<FieldProblem> out;
    for (const FieldProblem &p : m_problems)
        if (p.field == field)
            out << p;
    return out;
}

QString EnvironmentDocument::problemAt(const QString &field, int row) const
{
    QStringList messages;
    for (const FieldProblem &p : m_problems)
        if (p.field == field && p.row == row)
            messages << p.message;
    return messages.join(u'\n');
}

bool EnvironmentDocument::hasErrors() const
{
    return std::any_of(m_problems.cbegin(), m_problems.cend(), [](const FieldProblem &p) { return !p.warning; });
}

QStringList EnvironmentDocument::problemMessages() const
{
    const QString file = m_path.isEmpty() ? m_environment.name : QFileInfo(m_path).fileName();
    QStringList lines;
    for (const FieldProblem &p : m_problems) {
        const QString where = p.row >= 0 ? u"%1 row %2"_s.arg(p.field).arg(p.row + 1) : p.field;
        lines << u"%1: %2: %3%4"_s.arg(file, where, p.warning ? tr("warning: ") : QString(), p.message);
    }
    return lines;
}

} // namespace ferry::ui
