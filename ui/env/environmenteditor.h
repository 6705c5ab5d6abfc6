// The environment editor: the forms, tables, preview and image actions of one environment file.
#pragma once

#include "common/diagnostic.h"
#include "common/error.h"
#include "env/environment.h"
#include "env/formats.h"
#include "ui/document/document.h"

#include <QStringList>

#include <functional>

class QAction;
class QLineEdit;
class QMenu;
class QTabWidget;
class QToolBar;

namespace ferry::ui {

class DockerSectionForm;
class EnvironmentDocument;
class EnvironmentPreview;
class ImagePanel;
class PythonSectionForm;
class TableEditor;
class VariablesModel;
class VersionsView;

// One environment in the editor: the Docker and Python sections and the variables as forms
// and tables, the live preview beside them, the image actions and build log below, and the
// versions with their differences. Files dropped on it are imported into it (several merge).
// A document of the window's document area: its file is the Ferry file (an imported one answers
// to the file it came from too).
class EnvironmentEditor : public Document {
    Q_OBJECT
public:
    explicit EnvironmentEditor(QWidget *parent = nullptr);
    ~EnvironmentEditor() override;

    EnvironmentDocument *document() const { return m_document; }
    // Opens a file of any importable format (see EnvironmentDocument::load); its problems are listed.
    env::Diagnostics open(const QString &path);
    // A new environment, saved to `path` on the first save.
    void startNew(const env::Environment &environment, const QString &path);

    void setSecretNames(const QStringList &names);
    void setWorkspaceRoot(const QString &root);
    // Asks the user a yes/no question (a message box unless replaced, e.g. by tests).
    void setConfirm(std::function<bool(const QString &question)> confirm);
    // Asks for a file name to save to (a file dialog unless replaced).
    void setChooseSavePath(std::function<QString(const QString &suggested)> choose);

    // Merges the files (conda, pip, AzureML v1/v2, Ferry) into the environment as one edit;
    // returns what reading them found (with an error nothing is merged).
    env::Diagnostics importFiles(const QStringList &paths);
    // Writes the environment in `format` to `path` (a folder for the devcontainer, else the main
    // file); with problems in the environment the user is asked first. The paths written.
    Expected<QStringList> exportTo(env::Format format, const QString &path);

    // Document: the file, its name, unsaved edits.
    QString path() const override;
    QString title() const override;
    bool isModified() const override;
    bool isOpenAt(const QString &absolutePath) const override;
    // Saves (asking where for a new or imported environment); false when not saved.
    bool save() override;
    // Asks about unsaved edits; false: the user wants to keep the editor open.
    bool maybeClose() override;

    QString problemSource() const { return m_problemSource; }
    // What reading the file found (listed until it is saved), then what the fields show.
    env::Diagnostics problems() const;

    DockerSectionForm *dockerForm() const { return m_docker; }
    PythonSectionForm *pythonForm() const { return m_python; }
    TableEditor *variables() const { return m_variables; }
    EnvironmentPreview *preview() const { return m_preview; }
    VersionsView *versions() const { return m_versions; }
    ImagePanel *imagePanel() const { return m_image; }
    QTabWidget *sections() const { return m_sections; }
    QToolBar *toolBar() const { return m_toolBar; }

Q_SIGNALS:
    // The editor's problems, listed under `source` (its file): replaces what was listed before.
    void problemsChanged(const QString &source, const ferry::Diagnostics &problems);
    void message(const QString &text);
    void secretValueOffered(const QString &secretName, const QString &value);

protected:
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;

private:
    void createActions();
    void chooseImport();
    void chooseExport(env::Format format);
    void reportProblems();
    void onChangedOnDisk();

    EnvironmentDocument *m_document;
    std::function<bool(const QString &)> m_confirm;
    std::function<QString(const QString &)> m_chooseSavePath;
    QString m_problemSource;
    env::Diagnostics m_fileDiagnostics; // from reading the file: listed until it is saved
    QToolBar *m_toolBar;
    QLineEdit *m_name;
    QLineEdit *m_version;
    QLineEdit *m_description;
    QTabWidget *m_sections;
    DockerSectionForm *m_docker;
    PythonSectionForm *m_python;
    TableEditor *m_variables;
    VersionsView *m_versions;
    EnvironmentPreview *m_preview;
    ImagePanel *m_image;
    VariablesModel *m_variablesModel;
};

} // namespace ferry::ui
