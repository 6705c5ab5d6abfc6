// A notebook open in the window: its cells, run in a kernel of the notebook's environment on the
// notebook's target (core/kernelhost/notebookkernel.h), with JupyterLab's keys: command mode
// (A/B insert, D,D delete, M/Y markdown/code, Z undo, Enter edit, I,I interrupt, 0,0 restart,
// up/down or J/K move) and edit mode (Esc to command mode); Shift+Enter runs and goes on,
// Ctrl+Enter runs in place, Alt+Enter runs and inserts below; Ctrl+S saves. Hidden state made
// visible: stale cells (Shift+R in command mode runs them) and the variables pane
// (namespacewatcher.h); Tab and Shift+Tab ask the kernel (codeassist.h).
#pragma once

#include "kernelhost/notebookkernel.h"
#include "kernels/celloutputs.h"
#include "notebook/notebookdocument.h"
#include "run/runspec.h"
#include "ui/document/document.h"

#include <QFutureWatcher>
#include <QHash>
#include <QPointer>
#include <QSet>
#include <QTimer>
#include <QWidget>

#include <functional>
#include <memory>

class QComboBox;
class QDateTime;
class QLabel;
class QScrollArea;
class QVBoxLayout;
class QAction;

namespace ferry::ui {

class CellMetrics;
class CellWidget;
class CodeAssist;
class FindBar;
class NamespaceWatcher;
class VariablesPane;

// What Run as Job launches: the notebook's code cells as a script (core/notebook/conversion.h),
// its constants as hyperparameters, in the notebook's environment and on its target.
struct NotebookJob {
    // absolute: <notebook's folder>/notebook-jobs/<name>.py (cells chosen: <name>.cells-3-5.py),
    // written; it runs in the notebook's folder (ConversionOptions::fromNotebookFolder).
    QString script;
    QList<run::Hyperparameter> hyperparameters;
    QString environmentFile; // absolute; empty: this machine's Python
    run::TargetSpec target;
    QString notebook;  // absolute
    QStringList cells; // the code cells' ids, in order
};

class NotebookEditor : public Document {
    Q_OBJECT
public:
    // Kernels go to `kernelsDir` (the workspace's .ferry/kernels); `ferryBinary` starts their runs
    // (empty: this program).
    explicit NotebookEditor(QString kernelsDir, const QString &ferryBinary = {}, QWidget *parent = nullptr);
    ~NotebookEditor() override;

    // Opens `path` (.ipynb, or a percent-format .py); an Error (nothing shown) when it cannot be read.
    // When an autosave newer than the file is beside it (Ferry ended with unsaved edits), `askRestore`
    // (by default a question to the user) says whether to take it: then it is what opens, unsaved.
    Expected<void> open(const QString &path);
    std::function<bool(const QDateTime &savedAt)> askRestore;
    std::function<bool(const QString &path, const QString &code, const QString &problem)> askInsert;
    // The side file of unsaved edits: `.NAME.ferry-autosave` beside the notebook, written every
    // `autosaveMs` while there are unsaved edits (on another thread; autosaveNow() writes it at
    // once), removed by a save or a discard.
    static QString autosavePath(const QString &notebookPath);
    void autosaveNow();
    void setAutosaveInterval(int ms) { m_autosave.setInterval(ms); }

    // The environments the kernel may run in (the workspace's), offered beside "python3 on PATH".
    void setEnvironmentChoices(const QStringList &environmentFiles);
    // Writes the notebook to `path` (its own: save()); an Error when it cannot.
    Expected<void> saveAs(const QString &path);

    // Document: the tab of the window's document area.
    QString path() const override { return m_document.path; }
    QString title() const override;
    bool isModified() const override { return m_modified; }
    bool save() override;       // says what failed in a message box
    bool maybeClose() override; // save, discard or stay
    // Writes the job's script (prepareJob: no question asked) of the cells at `chosen` (their
    // order; empty: every cell); an Error when the notebook cannot become one (not Python, no file
    // yet, no code cell chosen).
    Expected<NotebookJob> prepareJob(const QList<int> &chosen = {});
    // The notebook as it is now (cells with their outputs and counts).
    notebook::NotebookDocument document() const;

    QList<CellWidget *> cells() const { return m_cells; }
    int currentIndex() const { return m_current; }
    void setCurrentIndex(int index); // the selection: that cell alone
    // Shift+Up/Down (or J/K) and Shift+click, as in JupyterLab: the selection grows from the cell
    // it started on to `index`, which becomes the current cell.
    void extendSelection(int index);
    // The cells selected, in order: the current one, or the range Shift made.
    QList<int> selectedIndexes() const;
    bool editing() const { return m_editing; }
    kernels::NotebookKernel &kernel() { return *m_kernel; }
    // The environment file and target the kernel starts with (kept in the notebook's metadata).
    void setKernelChoice(const QString &environmentFile, const QString &target);
    NamespaceWatcher &namespaceWatcher() { return *m_watcher; }
    CodeAssist &codeAssist() { return *m_assist; }
    VariablesPane *variablesPane() const { return m_variables; }

public Q_SLOTS:
    void runCurrent();           // Ctrl+Enter: the selected cells
    void runCurrentAndAdvance(); // Shift+Enter: the selected cells, then the one below them
    void runCurrentAndInsert();  // Alt+Enter
    void runAll();
    void interruptKernel();
    void restartKernel();
    void restartAndRunAll();
    void runStaleCells(); // Shift+R
    void showVariables(bool shown);
    void insertCell(bool below);
    void deleteCurrent(); // D,D: the selected cells
    void setCurrentKind(notebook::CellKind kind);
    void undoCellOperation();
    void moveCurrent(int by);    // Ctrl+Shift+Up / Down
    void splitCurrentAtCursor(); // Ctrl+Shift+- in edit mode
    void mergeWithBelow();       // Shift+M
    void openFind();             // Ctrl+F
    // The next (or previous) match of the find bar's text after the cursor, across cells; false: none.
    bool findNext(bool backwards = false);
    // Replaces the match selected, then finds the next; replaceAll: every match in every cell, one
    // cell operation (Z undoes it); returns how many.
    void replaceOne();
    int replaceAll();
    void enterEditMode();
    void enterCommandMode();
    // The notebook as a training script with its constants as hyperparameters (the import dialog).
    void convertToScript();
    // Run as Job: the selected cells when several are (Shift+Up/Down, Shift+click), else the whole
    // notebook. When those cells ran out of order or were edited since, offers Restart and Run All
    // first (so the job does what the user saw); then writes the job's script and asks for it to
    // be launched (jobRequested).
    void runAsJob();
    // Data dropped on the cell at `index`: the preview (as the data panel shows it) and the code
    // that loads it where the kernel sees it (core/kernelhost/kerneldata.h); accepted, the code
    // goes in a new cell below. `askInsert` (by default the preview dialog) says yes or no.
    void dropDataset(int index, const QString &path);

Q_SIGNALS:
    void kernelStateChanged(const QString &text);
    void jobRequested(const ferry::ui::NotebookJob &job);
    void message(const QString &text);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;

private:
    void build();
    void showKernelChoice();
    void kernelChoiceChanged();
    CellWidget *addCellWidget(const notebook::DocumentCell &cell, int index);
    void run(int index);
    bool ensureKernel();
    // The kernel's start as the notebook chooses it (environment, target, its folder); an Error
    // for a target that is none.
    Expected<kernels::KernelRequest> kernelRequest() const;
    void setModified(bool modified);
    void remember(); // the cells before a cell operation, for Z
    void restore(const QList<notebook::DocumentCell> &cells);
    CellWidget *cellById(const QString &id) const;
    void flushOutputs();
    void autosaveInBackground();
    void markOutOfOrder();
    bool commandKey(QKeyEvent *event);

    QString m_kernelsDir;
    notebook::NotebookDocument m_document;
    QList<CellWidget *> m_cells;
    int m_current = 0;
    int m_anchor = -1; // where a selection of several cells started; -1: the current cell alone
    bool m_editing = false;
    bool m_modified = false;
    QScrollArea *m_scroll = nullptr;
    QWidget *m_column = nullptr;
    QVBoxLayout *m_layout = nullptr;
    QLabel *m_state = nullptr;
    FindBar *m_find = nullptr;
    QComboBox *m_environment = nullptr;
    QComboBox *m_target = nullptr;
    QTimer m_autosave;
    QFutureWatcher<void> m_autosaving; // the timer's autosave, written on another thread
    QString m_autosavingTo;
    int m_saves = 0; // saves and discards: one during an autosave makes its file stale
    int m_savesAtAutosave = 0;
    std::unique_ptr<kernels::NotebookKernel> m_kernel;
    QHash<QString, std::shared_ptr<kernels::CellOutputs>> m_outputs; // by cell id: its current execution
    QHash<QString, QPointer<CellMetrics>> m_metrics;                 // by cell id: its live chart's reader
    QSet<QString> m_dirty;                                           // cells whose outputs changed
    QTimer m_flush;
    QList<QList<notebook::DocumentCell>> m_undo;
    int m_lastKey = 0; // D,D / I,I / 0,0
    int m_runOrder = 0;
    QHash<QString, int> m_ranAt; // cell id -> when it last ran (m_runOrder)
    VariablesPane *m_variables = nullptr;
    NamespaceWatcher *m_watcher = nullptr;
    CodeAssist *m_assist = nullptr;
};

} // namespace ferry::ui
