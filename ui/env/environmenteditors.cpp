#include "ui/env/environmenteditors.h"

#include "env/formats.h"
#include "ui/document/documentarea.h"
#include "ui/env/environmentdocument.h"
#include "ui/env/environmenteditor.h"
#include "ui/env/environmenttemplates.h"
#include "ui/env/imagepanel.h"
#include "ui/env/newenvironmentdialog.h"

#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>

using namespace Qt::StringLiterals;

namespace ferry::ui {

EnvironmentEditors::EnvironmentEditors(DocumentArea *area, QObject *parent) : QObject(parent), m_area(area)
{
    auto *newAction = new QAction(tr("&New Environment…"), this);
    newAction->setObjectName(u"newEnvironment"_s);
    connect(newAction, &QAction::triggered, this, &EnvironmentEditors::newEnvironment);
    auto *openAction = new QAction(tr("&Open Environment File…"), this);
    openAction->setObjectName(u"openEnvironmentFile"_s);
    connect(openAction, &QAction::triggered, this, &EnvironmentEditors::chooseFileToOpen);
    m_actions << newAction << openAction;
    // A closed editor's problems go with it.
    connect(m_area, &DocumentArea::documentClosed, this, [this](Document *document) {
        if (auto *editor = qobject_cast<EnvironmentEditor *>(document))
            Q_EMIT problemsChanged(editor->problemSource(), {});
    });
}

QList<EnvironmentEditor *> EnvironmentEditors::editors() const
{
    QList<EnvironmentEditor *> out;
    for (Document *document : m_area->documents())
        if (auto *editor = qobject_cast<EnvironmentEditor *>(document))
            out << editor;
    return out;
}

EnvironmentEditor *EnvironmentEditors::currentEditor() const
{
    return qobject_cast<EnvironmentEditor *>(m_area->currentDocument());
}

EnvironmentEditor *EnvironmentEditors::editorFor(const QString &path) const
{
    return qobject_cast<EnvironmentEditor *>(m_area->documentFor(path));
}

EnvironmentEditor *EnvironmentEditors::make()
{
    auto *editor = new EnvironmentEditor(m_area);
    editor->setWorkspaceRoot(m_workspaceRoot);
    editor->setSecretNames(m_secretNames);
    editor->imagePanel()->setEngineProgram(m_engine);
    editor->imagePanel()->setTerminalProgram(m_terminal);
    connect(editor, &EnvironmentEditor::problemsChanged, this, &EnvironmentEditors::problemsChanged);
    connect(editor, &EnvironmentEditor::message, this, &EnvironmentEditors::message);
    connect(editor->imagePanel(), &ImagePanel::problem, this, &EnvironmentEditors::problem);
    connect(editor, &EnvironmentEditor::secretValueOffered, this, &EnvironmentEditors::secretValueOffered);
    return editor;
}

EnvironmentEditor *EnvironmentEditors::open(const QString &path)
{
    // Another kind of document open at the path is not an environment's editor.
    if (Document *open = m_area->documentFor(path); open && !qobject_cast<EnvironmentEditor *>(open))
        return nullptr;
    return qobject_cast<EnvironmentEditor *>(m_area->open(path, [this, path] {
        EnvironmentEditor *editor = make();
        editor->open(path);
        if (editor->document()->path().isEmpty() && !m_workspaceRoot.isEmpty()) // an imported file
            editor->document()->setSuggestedPath(
                QDir(m_workspaceRoot)
                    .filePath(u"environments/"_s + editor->document()->environment().name + u".yml"_s));
        return editor;
    }));
}

void EnvironmentEditors::setWorkspaceRoot(const QString &root)
{
    m_workspaceRoot = root;
    for (EnvironmentEditor *editor : editors())
        editor->setWorkspaceRoot(root);
}

void EnvironmentEditors::setSecretNames(const QStringList &names)
{
    m_secretNames = names;
    for (EnvironmentEditor *editor : editors())
        editor->setSecretNames(names);
}

void EnvironmentEditors::setTools(const QString &engine, const QString &terminal)
{
    m_engine = engine;
    m_terminal = terminal;
    for (EnvironmentEditor *editor : editors()) {
        editor->imagePanel()->setEngineProgram(engine);
        editor->imagePanel()->setTerminalProgram(terminal);
    }
}

void EnvironmentEditors::newEnvironment()
{
    const QString folder =
        m_workspaceRoot.isEmpty() ? QDir::homePath() : QDir(m_workspaceRoot).filePath(u"environments"_s);
    NewEnvironmentDialog dialog(folder, m_area);
    if (dialog.exec() != QDialog::Accepted)
        return;
    env::Environment environment;
    if (!dialog.sourceFile().isEmpty()) {
        const env::EnvironmentRead read = env::readEnvironment(dialog.sourceFile());
        for (const env::Diagnostic &d : read.diagnostics)
            Q_EMIT message(d.toString());
        if (env::hasErrors(read.diagnostics))
            return;
        environment = read.environment;
        environment.name = dialog.name();
    } else {
        const auto made = environmentFromTemplate(dialog.templateId(), dialog.name());
        if (!made) {
            Q_EMIT message(made.error().toString());
            return;
        }
        environment = *made;
    }
    QDir().mkpath(folder);
    EnvironmentEditor *editor = make();
    editor->startNew(environment, dialog.targetPath());
    m_area->add(editor);
    editor->save(); // the file exists from the start: the workspace lists it
}

void EnvironmentEditors::chooseFileToOpen()
{
    const QString start =
        m_workspaceRoot.isEmpty() ? QDir::homePath() : QDir(m_workspaceRoot).filePath(u"environments"_s);
    const QString file = QFileDialog::getOpenFileName(
        m_area, tr("Open Environment File"), start, tr("Environment files (*.yml *.yaml *.txt *.json);;All files (*)"));
    if (!file.isEmpty())
        open(file);
}

} // namespace ferry::ui
