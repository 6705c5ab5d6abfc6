#include "ui/env/environmenteditor.h"

#include "env/exportwriter.h"
#include "ui/env/dockersectionform.h"
#include "ui/env/environmentdocument.h"
#include "ui/env/environmentpreview.h"
#include "ui/env/formbinder.h"
#include "ui/env/imagepanel.h"
#include "ui/env/pythonsectionform.h"
#include "ui/env/secretnamedelegate.h"
#include "ui/env/tableeditor.h"
#include "ui/env/variablesmodel.h"
#include "ui/env/versionsview.h"

#include <QAction>
#include <QDir>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QMimeData>
#include <QScrollArea>
#include <QScrollBar>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QToolBar>
#include <QToolButton>
#include <QUndoStack>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;
using ferry::env::Environment;

namespace ferry::ui {

namespace {

QString formatTitle(env::Format format)
{
    switch (format) {
    case env::Format::Ferry:
        return QObject::tr("Ferry environment (.yml)");
    case env::Format::Conda:
        return QObject::tr("conda environment.yml");
    case env::Format::Pip:
        return QObject::tr("pip requirements.txt");
    case env::Format::AzureMlV1:
        return QObject::tr("AzureML v1 (azureml_environment.json)");
    case env::Format::AzureMlV2:
        return QObject::tr("AzureML v2 environment YAML");
    case env::Format::Dockerfile:
        return QObject::tr("Dockerfile");
    case env::Format::Devcontainer:
        return QObject::tr("Devcontainer (.devcontainer folder)");
    }
    return {};
}

QStringList localFiles(const QMimeData *mime)
{
    QStringList files;
    for (const QUrl &url : mime->urls()) {
        if (!url.isLocalFile() || !QFileInfo(url.toLocalFile()).isFile())
            return {};
        files << url.toLocalFile();
    }
    return files;
}

} // namespace

EnvironmentEditor::EnvironmentEditor(QWidget *parent)
    : Document(parent), m_document(new EnvironmentDocument(this)), m_toolBar(new QToolBar(this)),
      m_name(new QLineEdit(this)), m_version(new QLineEdit(this)), m_description(new QLineEdit(this)),
      m_sections(new QTabWidget(this)), m_docker(new DockerSectionForm(m_document, this)),
      m_python(new PythonSectionForm(m_document, this)),
      m_variables(new TableEditor(new VariablesModel(m_document, this), u"variables"_s, this)),
      m_versions(new VersionsView(m_document, this)), m_preview(new EnvironmentPreview(m_document, this)),
      m_image(new ImagePanel(m_document, this)), m_variablesModel(static_cast<VariablesModel *>(m_variables->model()))
{
    setObjectName(u"environmentEditor"_s);
    setAcceptDrops(true);
    m_confirm = [this](const QString &question) {
        return QMessageBox::question(this, tr("Environment"), question) == QMessageBox::Yes;
    };
    m_chooseSavePath = [this](const QString &suggested) {
        return QFileDialog::getSaveFileName(this, tr("Save Environment"), suggested, tr("Ferry environment (*.yml)"));
    };
    m_image->setConfirm([this](const QString &q) { return m_confirm(q); });
    m_image->setEnsureSaved([this] {
        if (!m_document->isDirty() && !m_document->path().isEmpty())
            return true;
        return m_confirm(tr("The devcontainer is made from the saved file. Save the environment now?")) && save();
    });

    m_name->setObjectName(u"environmentName"_s);
    m_version->setObjectName(u"environmentVersion"_s);
    m_version->setMaximumWidth(90);
    m_version->setToolTip(tr("Saving a changed spec under the same name makes the next version"));
    m_description->setObjectName(u"environmentDescription"_s);
    m_description->setPlaceholderText(tr("what this environment is for"));
    auto *binder = new FormBinder(m_document, this);
    binder->text(
        m_name, env::Field::Name, tr("name"), [](const Environment &e) { return e.name; },
        [](Environment &e, const QString &v) { e.name = v.trimmed(); });
    binder->text(
        m_version, env::Field::Version, tr("version"), [](const Environment &e) { return e.version; },
        [](Environment &e, const QString &v) { e.version = v.trimmed(); });
    binder->text(
        m_description, env::Field::Description, tr("description"), [](const Environment &e) { return e.description; },
        [](Environment &e, const QString &v) { e.description = v; });

    QHeaderView *variableColumns = m_variables->view()->horizontalHeader();
    variableColumns->setStretchLastSection(false);
    variableColumns->setSectionResizeMode(VariablesModel::Value, QHeaderView::Stretch);
    variableColumns->setSectionResizeMode(VariablesModel::Secret, QHeaderView::ResizeToContents);
    m_variables->view()->setColumnWidth(VariablesModel::Name, 220);
    auto *variablesPage = new QWidget(this);
    auto *variablesLayout = new QVBoxLayout(variablesPage);
    auto *variablesNote =
        new QLabel(tr("Given to every run and the devcontainer, never baked into the image. A secret variable's value "
                      "stays in the keychain: the file names the secret."),
                   variablesPage);
    variablesNote->setWordWrap(true);
    variablesLayout->addWidget(variablesNote);
    variablesLayout->addWidget(m_variables, 1);
    m_variables->view()->setItemDelegateForColumn(VariablesModel::Value, new SecretNameDelegate(this));
    connect(m_variablesModel, &VariablesModel::secretValueOffered, this, &EnvironmentEditor::secretValueOffered);

    m_sections->setObjectName(u"environmentSections"_s);
    m_sections->addTab(m_docker, tr("Docker"));
    m_sections->addTab(m_python, tr("Python"));
    m_sections->addTab(variablesPage, tr("Variables"));
    m_sections->addTab(m_versions, tr("Versions"));

    createActions();

    // Two rows: the forms beside the preview are narrow, and a name cut short reads wrong.
    auto *nameRow = new QHBoxLayout;
    nameRow->addWidget(m_name, 1);
    nameRow->addWidget(new QLabel(tr("Version:"), this));
    nameRow->addWidget(m_version);
    auto *header = new QFormLayout;
    header->addRow(tr("Name:"), nameRow);
    header->addRow(tr("Description:"), m_description);

    auto *left = new QWidget(this);
    auto *leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->addLayout(header);
    leftLayout->addWidget(m_sections, 1);
    // The forms scroll up and down when the window is low, rather than hold the window to their
    // height; they keep their width, and the preview beside them takes the rest.
    auto *leftScroll = new QScrollArea(this);
    leftScroll->setObjectName(u"environmentForms"_s);
    leftScroll->setWidgetResizable(true);
    leftScroll->setFrameShape(QFrame::NoFrame);
    leftScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    leftScroll->setWidget(left);
    leftScroll->setMinimumWidth(left->minimumSizeHint().width() + leftScroll->verticalScrollBar()->sizeHint().width());

    auto *top = new QSplitter(Qt::Horizontal, this);
    top->setObjectName(u"editorSplitter"_s);
    top->setChildrenCollapsible(false);
    top->addWidget(leftScroll);
    top->addWidget(m_preview);
    top->setStretchFactor(0, 1);
    top->setStretchFactor(1, 1);
    top->setSizes({1000, 1000}); // in proportion: the preview gets room for a Dockerfile's lines and the image tag
    auto *vertical = new QSplitter(Qt::Vertical, this);
    vertical->addWidget(top);
    vertical->addWidget(m_image);
    vertical->setStretchFactor(0, 4);
    vertical->setStretchFactor(1, 1);
    vertical->setSizes({800, 130});

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_toolBar);
    layout->addWidget(vertical, 1);

    connect(m_document, &EnvironmentDocument::problemsChanged, this, &EnvironmentEditor::reportProblems);
    connect(m_document, &EnvironmentDocument::pathChanged, this, &EnvironmentEditor::reportProblems);
    connect(m_document, &EnvironmentDocument::dirtyChanged, this, &Document::modifiedChanged);
    connect(m_document, &EnvironmentDocument::pathChanged, this, &Document::titleChanged);
    connect(m_document, &EnvironmentDocument::changed, this, [this] {
        if (m_document->path().isEmpty()) // named by the environment's name until it has a file
            Q_EMIT titleChanged();
    });
    connect(m_document, &EnvironmentDocument::changedOnDisk, this, &EnvironmentEditor::onChangedOnDisk);
    connect(m_document, &EnvironmentDocument::reloadedFromDisk, this, [this] {
        m_versions->refresh();
        Q_EMIT message(tr("%1 changed on disk: read again").arg(QFileInfo(m_document->path()).fileName()));
    });
}

EnvironmentEditor::~EnvironmentEditor() = default;

void EnvironmentEditor::createActions()
{
    m_toolBar->setObjectName(u"environmentToolBar"_s);
    m_toolBar->setToolButtonStyle(Qt::ToolButtonTextOnly);
    // Its key (Ctrl+S) is the window's Save, which saves the document in view.
    m_toolBar->addAction(tr("&Save"), this, [this] { this->save(); })->setObjectName(u"saveEnvironment"_s);
    // Short texts, so the tool bar does not jump; what would be undone is the tooltip.
    QUndoStack *stack = m_document->undoStack();
    auto *undo = new QAction(tr("&Undo"), this);
    undo->setObjectName(u"undoEnvironment"_s);
    undo->setShortcut(QKeySequence::Undo);
    undo->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    auto *redo = new QAction(tr("&Redo"), this);
    redo->setObjectName(u"redoEnvironment"_s);
    redo->setShortcut(QKeySequence::Redo);
    redo->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(undo, &QAction::triggered, stack, &QUndoStack::undo);
    connect(redo, &QAction::triggered, stack, &QUndoStack::redo);
    connect(stack, &QUndoStack::canUndoChanged, undo, &QAction::setEnabled);
    connect(stack, &QUndoStack::canRedoChanged, redo, &QAction::setEnabled);
    connect(stack, &QUndoStack::undoTextChanged, undo,
            [undo](const QString &text) { undo->setToolTip(tr("Undo %1").arg(text)); });
    connect(stack, &QUndoStack::redoTextChanged, redo,
            [redo](const QString &text) { redo->setToolTip(tr("Redo %1").arg(text)); });
    undo->setEnabled(false);
    redo->setEnabled(false);
    m_toolBar->addAction(undo);
    m_toolBar->addAction(redo);
    addAction(undo);
    addAction(redo);
    m_toolBar->addSeparator();
    m_toolBar->addAction(tr("&Import…"), this, &EnvironmentEditor::chooseImport)->setObjectName(u"importEnvironment"_s);
    auto *exportMenu = new QMenu(tr("&Export"), this);
    exportMenu->setObjectName(u"exportMenu"_s);
    for (const QString &name : env::exportFormatNames()) {
        const env::Format format = *env::formatFromName(name);
        exportMenu->addAction(formatTitle(format), this, [this, format] { chooseExport(format); })->setData(name);
    }
    auto *exportButton = new QToolButton(this);
    exportButton->setText(tr("&Export"));
    exportButton->setMenu(exportMenu);
    exportButton->setPopupMode(QToolButton::InstantPopup);
    m_toolBar->addWidget(exportButton);
}

env::Diagnostics EnvironmentEditor::open(const QString &path)
{
    m_fileDiagnostics = m_document->load(path);
    m_versions->refresh();
    reportProblems();
    for (QLineEdit *field : {m_name, m_version, m_description})
        field->setCursorPosition(0); // a long description shows its start
    Q_EMIT titleChanged();
    return m_fileDiagnostics;
}

void EnvironmentEditor::startNew(const env::Environment &environment, const QString &path)
{
    m_fileDiagnostics.clear();
    m_document->setNew(environment, path);
    m_versions->refresh();
    reportProblems();
    Q_EMIT titleChanged();
}

void EnvironmentEditor::setSecretNames(const QStringList &names)
{
    m_docker->setSecretNames(names);
    m_variablesModel->setSecretNames(names);
}

void EnvironmentEditor::setWorkspaceRoot(const QString &root)
{
    m_image->setWorkspaceRoot(root);
}

void EnvironmentEditor::setConfirm(std::function<bool(const QString &)> confirm)
{
    m_confirm = std::move(confirm);
}

void EnvironmentEditor::setChooseSavePath(std::function<QString(const QString &)> choose)
{
    m_chooseSavePath = std::move(choose);
}

QString EnvironmentEditor::path() const
{
    return m_document->path();
}

QString EnvironmentEditor::title() const
{
    return m_document->title();
}

bool EnvironmentEditor::isModified() const
{
    return m_document->isDirty();
}

bool EnvironmentEditor::isOpenAt(const QString &absolutePath) const
{
    return Document::isOpenAt(absolutePath) || (!absolutePath.isEmpty() && m_document->sourcePath() == absolutePath);
}

env::Diagnostics EnvironmentEditor::problems() const
{
    return m_fileDiagnostics + m_document->problemDiagnostics();
}

void EnvironmentEditor::reportProblems()
{
    const QString source = m_document->path().isEmpty()
                               ? u"new:"_s + QString::number(reinterpret_cast<quintptr>(this), 16)
                               : m_document->path();
    if (!m_problemSource.isEmpty() && source != m_problemSource)
        Q_EMIT problemsChanged(m_problemSource, {});
    m_problemSource = source;
    Q_EMIT problemsChanged(m_problemSource, problems());
}

env::Diagnostics EnvironmentEditor::importFiles(const QStringList &paths)
{
    const env::EnvironmentRead read = env::importEnvironments(paths);
    for (const env::Diagnostic &d : read.diagnostics)
        Q_EMIT message(d.toString());
    if (env::hasErrors(read.diagnostics))
        return read.diagnostics;
    env::Environment merged = m_document->environment();
    env::Diagnostics diagnostics = read.diagnostics;
    env::mergeEnvironment(merged, read.environment, paths.join(u", "_s), diagnostics);
    QStringList names;
    for (const QString &p : paths)
        names << QFileInfo(p).fileName();
    if (m_document->replace(tr("Import %1").arg(names.join(u", "_s)), merged))
        Q_EMIT message(tr("Imported %1").arg(names.join(u", "_s)));
    return diagnostics;
}

Expected<QStringList> EnvironmentEditor::exportTo(env::Format format, const QString &path)
{
    if (m_document->hasErrors() &&
        !m_confirm(tr("The environment has problems (see the Problems list). Export it anyway?")))
        return Error{tr("export cancelled: the environment has problems"), path, 0, 0,
                     tr("fix the marked fields first")};
    const bool folder = format == env::Format::Devcontainer;
    const QString dir = folder ? path : QFileInfo(path).absolutePath();
    const QString mainName = folder ? QString() : QFileInfo(path).fileName();
    env::Export exported = env::exportEnvironment(m_document->environment(), format, m_document->baseDir(), mainName);
    for (const env::Diagnostic &d : exported.diagnostics) {
        if (d.isError())
            return d.where;
        Q_EMIT message(d.toString());
    }
    if (!mainName.isEmpty())
        exported.files.first().name = mainName;
    return env::writeGeneratedFiles(exported.files, dir);
}

bool EnvironmentEditor::save()
{
    // A file that could not be read whole would lose what was not read.
    if (env::hasErrors(m_fileDiagnostics) &&
        !m_confirm(tr("%1 had errors when it was read (see the Problems list): saving writes it again from what "
                      "could be read, and the rest is lost. Save anyway?")
                       .arg(QFileInfo(m_document->sourcePath()).fileName())))
        return false;
    QString target;
    if (m_document->path().isEmpty() && !m_document->suggestedPath().isEmpty() &&
        !QFileInfo::exists(m_document->suggestedPath())) {
        target = m_document->suggestedPath(); // a new environment: its name was chosen already
    } else if (m_document->path().isEmpty()) {
        target = m_chooseSavePath(m_document->suggestedPath().isEmpty()
                                      ? QDir(m_document->baseDir()).filePath(m_document->environment().name + u".yml"_s)
                                      : m_document->suggestedPath());
        if (target.isEmpty())
            return false;
    }
    const auto saved = m_document->save(target);
    if (!saved) {
        Q_EMIT message(tr("Cannot save: %1").arg(saved.error().toString()));
        return false;
    }
    m_fileDiagnostics.clear();
    reportProblems();
    m_versions->refresh();
    Q_EMIT message(saved->storedVersion.isEmpty() ? tr("Saved %1").arg(QFileInfo(m_document->path()).fileName())
                                                  : tr("Saved %1 as version %2 (version %3 kept)")
                                                        .arg(QFileInfo(m_document->path()).fileName(),
                                                             saved->written.version, saved->storedVersion));
    return true;
}

bool EnvironmentEditor::maybeClose()
{
    if (!m_document->isDirty())
        return true;
    const auto answer = QMessageBox::question(
        this, tr("Unsaved Environment"), tr("%1 has unsaved edits. Save them?").arg(m_document->environment().name),
        QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel);
    if (answer == QMessageBox::Save)
        return save();
    return answer == QMessageBox::Discard;
}

void EnvironmentEditor::onChangedOnDisk()
{
    const QString name = QFileInfo(m_document->path()).fileName();
    if (m_confirm(
            tr("%1 changed on disk, and you have unsaved edits. Read the file again and drop your edits?").arg(name))) {
        open(m_document->path());
        Q_EMIT message(tr("%1 read again from disk").arg(name));
    } else {
        Q_EMIT message(tr("%1 changed on disk: your edits are kept (saving replaces the file)").arg(name));
    }
}

void EnvironmentEditor::chooseImport()
{
    const QStringList files =
        QFileDialog::getOpenFileNames(this, tr("Import into the Environment"), m_document->baseDir(),
                                      tr("Environment files (*.yml *.yaml *.txt *.json);;All files (*)"));
    if (!files.isEmpty())
        importFiles(files);
}

void EnvironmentEditor::chooseExport(env::Format format)
{
    const env::Environment &env = m_document->environment();
    QString path;
    if (format == env::Format::Devcontainer) {
        path = QFileDialog::getExistingDirectory(this, tr("Export the Devcontainer into a Folder"),
                                                 QDir(m_document->baseDir()).filePath(u".devcontainer"_s));
    } else {
        const env::Export probe = env::exportEnvironment(env, format, m_document->baseDir());
        const QString suggested = QDir(m_document->baseDir()).filePath(probe.files.value(0).name);
        path = QFileDialog::getSaveFileName(this, tr("Export as %1").arg(formatTitle(format)), suggested);
    }
    if (path.isEmpty())
        return;
    const auto written = exportTo(format, path);
    if (!written)
        Q_EMIT message(tr("Export: %1").arg(written.error().toString()));
    else
        Q_EMIT message(tr("Exported %1").arg(written->join(u", "_s)));
}

void EnvironmentEditor::dragEnterEvent(QDragEnterEvent *event)
{
    if (!localFiles(event->mimeData()).isEmpty())
        event->acceptProposedAction();
}

void EnvironmentEditor::dropEvent(QDropEvent *event)
{
    const QStringList files = localFiles(event->mimeData());
    if (files.isEmpty())
        return;
    event->acceptProposedAction();
    importFiles(files);
}

} // namespace ferry::ui
