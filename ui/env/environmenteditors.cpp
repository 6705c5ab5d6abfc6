#include "ui/env/environmenteditors.h"

#include "env/formats.h"
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

EnvironmentEditors::EnvironmentEditors(QWidget *parent) : QTabWidget(parent)
{
    setObjectName(u"environmentEditors"_s);
    setTabsClosable(true);
    setDocumentMode(true);
    setMovable(true);
    connect(this, &QTabWidget::tabCloseRequested, this, &EnvironmentEditors::closeEditor);
    auto *newAction = new QAction(tr("&New Environment…"), this);
    newAction->setObjectName(u"newEnvironment"_s);
    connect(newAction, &QAction::triggered, this, &EnvironmentEditors::newEnvironment);
    auto *openAction = new QAction(tr("&Open Environment File…"), this);
    openAction->setObjectName(u"openEnvironmentFile"_s);
    connect(openAction, &QAction::triggered, this, &EnvironmentEditors::chooseFileToOpen);
    m_actions << newAction << openAction;
}

QList<EnvironmentEditor *> EnvironmentEditors::editors() const
{
    QList<EnvironmentEditor *> out;
    for (int i = 0; i < count(); ++i)
        if (auto *editor = qobject_cast<EnvironmentEditor *>(widget(i)))
            out << editor;
    return out;
}

EnvironmentEditor *EnvironmentEditors::currentEditor() const
{
    return qobject_cast<EnvironmentEditor *>(currentWidget());
}

EnvironmentEditor *EnvironmentEditors::editorFor(const QString &path) const
{
    const QString absolute = QFileInfo(path).absoluteFilePath();
    for (EnvironmentEditor *editor : editors())
        if (editor->document()->path() == absolute || editor->document()->sourcePath() == absolute)
            return editor;
    return nullptr;
}

EnvironmentEditor *EnvironmentEditors::add()
{
    auto *editor = new EnvironmentEditor(this);
    editor->setWorkspaceRoot(m_workspaceRoot);
    editor->setSecretNames(m_secretNames);
    editor->imagePanel()->setEngineProgram(m_engine);
    editor->imagePanel()->setTerminalProgram(m_terminal);
    connect(editor, &EnvironmentEditor::problemsChanged, this, &EnvironmentEditors::problemsChanged);
    connect(editor, &EnvironmentEditor::message, this, &EnvironmentEditors::message);
    connect(editor->imagePanel(), &ImagePanel::problem, this, &EnvironmentEditors::problem);
    connect(editor, &EnvironmentEditor::secretValueOffered, this, &EnvironmentEditors::secretValueOffered);
    connect(editor, &EnvironmentEditor::titleChanged, this, [this, editor](const QString &title) {
        const int index = indexOf(editor);
        if (index >= 0) {
            setTabText(index, title);
            setTabToolTip(index, editor->document()->path());
        }
    });
    addTab(editor, QString());
    return editor;
}

EnvironmentEditor *EnvironmentEditors::open(const QString &path)
{
    EnvironmentEditor *editor = editorFor(path);
    if (!editor) {
        editor = add();
        editor->open(path);
        if (editor->document()->path().isEmpty() && !m_workspaceRoot.isEmpty()) // an imported file
            editor->document()->setSuggestedPath(
                QDir(m_workspaceRoot)
                    .filePath(u"environments/"_s + editor->document()->environment().name + u".yml"_s));
        setTabText(indexOf(editor), editor->title());
        setTabToolTip(indexOf(editor), editor->document()->sourcePath());
    }
    setCurrentWidget(editor);
    Q_EMIT opened();
    return editor;
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
    NewEnvironmentDialog dialog(folder, this);
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
    EnvironmentEditor *editor = add();
    editor->startNew(environment, dialog.targetPath());
    setCurrentWidget(editor);
    Q_EMIT opened();
    editor->save(); // the file exists from the start: the workspace lists it
}

void EnvironmentEditors::chooseFileToOpen()
{
    const QString start =
        m_workspaceRoot.isEmpty() ? QDir::homePath() : QDir(m_workspaceRoot).filePath(u"environments"_s);
    const QString file = QFileDialog::getOpenFileName(
        this, tr("Open Environment File"), start, tr("Environment files (*.yml *.yaml *.txt *.json);;All files (*)"));
    if (!file.isEmpty())
        open(file);
}

bool EnvironmentEditors::closeEditor(int index)
{
    auto *editor = qobject_cast<EnvironmentEditor *>(widget(index));
    if (!editor)
        return false;
    if (!editor->maybeClose())
        return false;
    Q_EMIT problemsChanged(editor->problemSource(), {}); // its problems go with it
    removeTab(index);
    delete editor;
    return true;
}

void EnvironmentEditors::removeAll()
{
    while (count() > 0) {
        QWidget *editor = widget(0);
        removeTab(0);
        editor->deleteLater();
    }
}

bool EnvironmentEditors::closeAll()
{
    for (EnvironmentEditor *editor : editors())
        if (!editor->maybeClose())
            return false;
    return true;
}

} // namespace ferry::ui
