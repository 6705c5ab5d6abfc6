// NotebookImportDialog: previews the script a notebook import will write (hyperparameters, IPython
// lines) before writing it.
#pragma once

#include "common/error.h"
#include "notebook/conversion.h"

#include <QDialog>

#include <memory>

class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPlainTextEdit;
class QTableWidget;

namespace ferry::ui {

// Shows what importing a notebook will write before anything is written: the constants offered
// as hyperparameters (each can be left out), the IPython lines that get commented out, and the
// script itself; Convert writes it. The notebook is read off the GUI thread.
class NotebookImportDialog : public QDialog {
    Q_OBJECT
public:
    // `outputPath`: where the script goes (the caller picks a default, e.g. WORKSPACE/NAME.py).
    NotebookImportDialog(const QString &notebookPath, const QString &outputPath, QWidget *parent = nullptr);
    ~NotebookImportDialog() override;

    // Whether the notebook has been read (and could be).
    bool isReady() const { return m_notebook != nullptr; }
    QTableWidget *hyperparameterTable() const { return m_hyperparameters; }
    QLineEdit *outputEdit() const { return m_output; }
    QString outputPath() const;
    QString scriptText() const;
    // Writes the script (the Convert button); the Error says why not.
    Expected<QString> write();

    // The default place for the script: the workspace root (or the notebook's folder) / NAME.py.
    static QString defaultOutputPath(const QString &notebookPath, const QString &workspaceRoot);

Q_SIGNALS:
    void ready();                           // the notebook was read; the proposal shows
    void failed(const ferry::Error &error); // the notebook could not be read or converted

private:
    void notebookRead(const Expected<notebook::Notebook> &result);
    void refresh();
    notebook::ConversionOptions options() const;

    QString m_path;
    std::unique_ptr<notebook::Notebook> m_notebook;
    QLabel *m_summary;
    QTableWidget *m_hyperparameters;
    QListWidget *m_ipython;
    QPlainTextEdit *m_preview;
    QLineEdit *m_output;
    QDialogButtonBox *m_buttons;
};

} // namespace ferry::ui
