#include "ui/env/environmentdocument.h"

#include "common/textfile.h"
#include "env/environmentfile.h"
#include "env/formats.h"

#include <QDir>
#include <QFileInfo>
#include <QFileSystemWatcher>
#include <QUndoCommand>
#include <QUndoStack>

using namespace Qt::StringLiterals;

namespace ferry::ui {

namespace {

// One edit: the whole environment before and after, so undo restores it exactly. Edits with
// the same merge key (one field, one cell) following each other become one command.
class EditCommand : public QUndoCommand {
public:
    EditCommand(EnvironmentDocument *document, const QString &text, std::optional<EditKey> key, env::Environment before,
                env::Environment after)
        : QUndoCommand(text), m_document(document), m_key(key), m_before(std::move(before)), m_after(std::move(after))
    {
    }
    // QUndoStack offers a command for merging only to the one before it with the same id: one
    // id per field, and mergeWith compares the cell.
    int id() const override { return m_key ? 1 + static_cast<int>(m_key->field) : -1; }
    bool mergeWith(const QUndoCommand *other) override
    {
        const auto *edit = static_cast<const EditCommand *>(other);
        if (!edit->m_key || !m_key || *edit->m_key != *m_key)
            return false;
        m_after = edit->m_after;
        setObsolete(m_after == m_before); // typed and deleted again: nothing to undo
        return true;
    }
    void redo() override { m_document->apply(m_after); }
    void undo() override { m_document->apply(m_before); }

private:
    EnvironmentDocument *m_document;
    std::optional<EditKey> m_key;
    env::Environment m_before;
    env::Environment m_after;
};

} // namespace

EnvironmentDocument::EnvironmentDocument(QObject *parent)
    : QObject(parent), m_undo(new QUndoStack(this)), m_watcher(new QFileSystemWatcher(this))
{
    connect(m_undo, &QUndoStack::cleanChanged, this, [this](bool clean) { Q_EMIT dirtyChanged(!clean); });
    connect(m_watcher, &QFileSystemWatcher::fileChanged, this, &EnvironmentDocument::fileChanged);
    m_problems = env::validate(m_environment);
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
    return m_path.isEmpty() ? (m_environment.name.isEmpty() ? tr("new environment") : m_environment.name)
                            : QFileInfo(m_path).fileName();
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

bool EnvironmentDocument::edit(const QString &text, std::optional<EditKey> key,
                               const std::function<void(env::Environment &)> &change)
{
    env::Environment after = m_environment;
    change(after);
    if (after == m_environment)
        return false;
    m_undo->push(new EditCommand(this, text, key, m_environment, std::move(after)));
    return true;
}

bool EnvironmentDocument::replace(const QString &text, const env::Environment &environment)
{
    return edit(text, {}, [&](env::Environment &env) { env = environment; });
}

void EnvironmentDocument::apply(const env::Environment &environment)
{
    m_environment = environment;
    env::Findings problems = env::validate(m_environment);
    const bool problemsChangedNow = problems != m_problems;
    m_problems = std::move(problems);
    Q_EMIT changed();
    if (problemsChangedNow)
        Q_EMIT problemsChanged();
}

env::Findings EnvironmentDocument::problemsOf(env::Field field) const
{
    env::Findings out;
    for (const env::Finding &p : m_problems)
        if (p.field == field)
            out << p;
    return out;
}

QString EnvironmentDocument::problemAt(env::Field field, int row) const
{
    QStringList messages;
    for (const env::Finding &p : m_problems)
        if (p.field == field && p.row == row)
            messages << p.text();
    return messages.join(u'\n');
}

bool EnvironmentDocument::hasErrors() const
{
    return std::any_of(m_problems.cbegin(), m_problems.cend(), [](const env::Finding &p) { return p.isError(); });
}

env::Diagnostics EnvironmentDocument::problemDiagnostics() const
{
    // With unsaved edits the file is not what the form shows: no line of it is pointed at.
    const bool saved = !m_path.isEmpty() && !isDirty();
    const env::Diagnostics located = saved ? env::locateFindings(m_problems, m_diskText, m_path) : env::Diagnostics();
    const QString unsavedName = m_path.isEmpty() ? m_environment.name + u": "_s : QString();
    env::Diagnostics diagnostics;
    for (qsizetype i = 0; i < m_problems.size(); ++i) {
        const env::Finding &p = m_problems.at(i);
        const QString field = env::fieldName(p.field);
        const QString where = p.row >= 0 ? u"%1 row %2"_s.arg(field).arg(p.row + 1) : field;
        const QString column = p.column > 0 ? tr("column %1: ").arg(p.column) : QString();
        Error error = i < located.size() ? located.at(i).where : Error{{}, {}, 0, 0, p.hint};
        error.message = unsavedName + where + u": "_s + column + p.message;
        diagnostics << env::Diagnostic{p.severity, error};
    }
    return diagnostics;
}

} // namespace ferry::ui
