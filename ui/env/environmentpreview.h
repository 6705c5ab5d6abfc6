// What an environment becomes as you type: the files Ferry would write and the image they name.
#pragma once

#include "env/environment.h"

#include <QFutureWatcher>
#include <QStringList>
#include <QWidget>

class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QTabWidget;
class QTimer;

namespace ferry::ui {

class EnvironmentDocument;

// What the environment becomes: the files Ferry would write, and the image it names.
struct PreviewTexts {
    QString conda;        // environment.yml
    QString pip;          // requirements.txt
    QString dockerfile;   // Dockerfile
    QString devcontainer; // devcontainer.json
    QString hash;         // canonical spec hash (64 hex digits)
    QString tag;          // <name>-<version>-<hash8>
    QString image;        // ferry:<tag>
    // What each file leaves out, one line each: [0] environment.yml, [1] requirements.txt,
    // [2] Dockerfile, [3] devcontainer.json (the order of the preview's tabs).
    QList<QStringList> notes;
};
PreviewTexts generatePreview(const env::Environment &environment, const QString &baseDir);

// The live preview beside the form: the generated files and the hash and image tag, updated as
// the user types (after a short pause, generated off the GUI thread; a result overtaken by a
// newer edit is dropped).
class EnvironmentPreview : public QWidget {
    Q_OBJECT
public:
    explicit EnvironmentPreview(EnvironmentDocument *document, QWidget *parent = nullptr);
    ~EnvironmentPreview() override;

    const PreviewTexts &texts() const { return m_texts; }
    bool isUpToDate() const;
    void setDelay(int milliseconds);
    QTabWidget *tabs() const { return m_tabs; }

Q_SIGNALS:
    void updated();

private:
    void schedule();
    void start();
    void finished();
    void showNotes();

    EnvironmentDocument *m_document;
    QTimer *m_timer;
    QFutureWatcher<PreviewTexts> m_watcher;
    bool m_again = false; // changed while generating: generate once more when done
    // The generation started last and the one shown: the watcher reports finished before its
    // finished() slot has shown the result, so only these tell that the texts are current.
    quint64 m_started = 0;
    quint64 m_shown = 0;
    PreviewTexts m_texts;
    QLineEdit *m_tag;
    QLineEdit *m_hash;
    QLabel *m_notes;
    QTabWidget *m_tabs;
    QPlainTextEdit *m_conda;
    QPlainTextEdit *m_pip;
    QPlainTextEdit *m_dockerfile;
    QPlainTextEdit *m_devcontainer;
};

} // namespace ferry::ui
