// Completion (Tab after a word) and inspect (Shift+Tab) from the kernel, for the cells' editors.
//
// Completion: one match is inserted; several share what they have in common inserted, then show
// in a popup that narrows as you type (Enter or Tab takes the selected one, Esc closes it). The
// chosen match replaces the reply's cursor_start..cursor_end (the protocol counts code points, a
// QString UTF-16 units: converted both ways). A reply is used only if the editor's text and
// cursor are still what was asked about, and only the latest request's (qtconsole's rule): a
// reply that comes after you typed on is dropped.
#pragma once

#include "kernelhost/notebookkernel.h"

#include <QObject>
#include <QPointer>
#include <QSet>

class QCompleter;
class QStringListModel;

namespace ferry::ui {

class CodeEditor;
class InspectPopup;

class CodeAssist : public QObject {
    Q_OBJECT
public:
    CodeAssist(kernels::NotebookKernel &kernel, QWidget *parent);

    // The editor's Tab and Shift+Tab go to the kernel from now on.
    void attach(CodeEditor *editor);

    QCompleter *completer() const { return m_completer; }
    InspectPopup *inspectPopup() const { return m_inspect; }

protected:
    // The popup's Enter, Tab and Esc: QCompleter hands them to the editor first, which would take
    // them (a new line, an indent, command mode).
    bool eventFilter(QObject *watched, QEvent *event) override;

Q_SIGNALS:
    // A reply that came for a text or cursor that changed since, or for an older request.
    void replyDropped(const QString &requestId);

private:
    struct Request {
        QString id;
        QPointer<CodeEditor> editor;
        QString code;
        int cursor = 0; // UTF-16
    };
    void complete(CodeEditor *editor, int cursor);
    void inspect(CodeEditor *editor, int cursor);
    void replyReceived(const QString &requestId, const kernels::JupyterMessage &reply);
    bool current(const Request &request) const;
    void showCompletions(const Request &request, const QJsonObject &reply);
    void showPopup(CodeEditor *editor);
    static void replace(CodeEditor *editor, qsizetype start, qsizetype end, const QString &text);
    void followTyping();
    void choose(const QString &completion);

    kernels::NotebookKernel &m_kernel;
    QCompleter *m_completer = nullptr;
    QStringListModel *m_matches = nullptr;
    InspectPopup *m_inspect = nullptr;
    Request m_completion;
    Request m_inspection;
    QSet<QString> m_superseded; // requests a newer one replaced: their replies are dropped
    // The completion shown: the text before and after the word it completes.
    QPointer<CodeEditor> m_shownIn;
    QString m_before;
    QString m_after;
};

} // namespace ferry::ui
