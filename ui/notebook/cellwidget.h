// One cell of the notebook view: its prompt ("[3]:", "[*]:" while it runs, a mark when edited after
// it ran, run out of order, or stale), its editor (code, or markdown rendered when not edited) and outputs.
#pragma once

#include "notebook/notebookdocument.h"

#include <QFrame>
#include <QStringList>

class QLabel;
class QVBoxLayout;

namespace ferry::ui {

class CodeEditor;
class OutputArea;
class SafeBrowser;

class CellWidget : public QFrame {
    Q_OBJECT
public:
    enum class Run { Never, Queued, Running, Done, Failed };

    explicit CellWidget(const notebook::DocumentCell &cell, QWidget *parent = nullptr);

    notebook::DocumentCell cell() const; // as it is now: its source, outputs, count
    QString id() const { return m_cell.id; }
    notebook::CellKind kind() const { return m_cell.kind; }
    void setKind(notebook::CellKind kind);
    QString source() const;
    CodeEditor *editor() const { return m_editor; }
    OutputArea *outputArea() const { return m_outputs; }

    // Selected (command mode) and, within that, edited (edit mode): drawn as JupyterLab does.
    void setSelected(bool selected, bool editing);
    // Markdown: rendered unless edited.
    void setRendered(bool rendered);
    bool rendered() const;

    void setOutputs(const QJsonArray &outputs);
    // The live chart of what the cell printed (CellMetrics), under its outputs; nullptr: none.
    void setChart(QWidget *chart);
    QWidget *chart() const { return m_chart; }
    void setRun(Run run, int executionCount = -1);
    Run run() const { return m_run; }
    int executionCount() const;
    // Marks: edited since it ran; ran out of order (before a cell above it ran last).
    void setOutOfOrder(bool outOfOrder);
    bool editedSinceRun() const { return m_editedSinceRun; }
    bool outOfOrder() const { return m_outOfOrder; }
    // Stale: a cell that ran after it bound again `names`, which it read (namespacewatcher.h).
    void setStale(const QStringList &names);
    QStringList staleNames() const { return m_staleNames; }

Q_SIGNALS:
    void clicked(Qt::KeyboardModifiers modifiers);
    // Files or folders dropped on the cell (its editor or around it).
    void filesDropped(const QStringList &paths);

protected:
    void mousePressEvent(QMouseEvent *event) override;
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;
    void paintEvent(QPaintEvent *event) override;

private:
    void updatePrompt();

    notebook::DocumentCell m_cell;
    QLabel *m_prompt = nullptr;
    CodeEditor *m_editor = nullptr;
    SafeBrowser *m_rendered = nullptr;
    OutputArea *m_outputs = nullptr;
    QWidget *m_chart = nullptr;
    QVBoxLayout *m_column = nullptr; // editor, rendered markdown, outputs, chart
    Run m_run = Run::Never;
    bool m_editedSinceRun = false;
    bool m_outOfOrder = false;
    QStringList m_staleNames;
    QString m_sourceAtRun;
    enum class Look { Plain, Selected, Edited }; // the selection drawn (a bar at the left)
    Look m_look = Look::Plain;
    static constexpr int kBar = 4;
};

} // namespace ferry::ui
