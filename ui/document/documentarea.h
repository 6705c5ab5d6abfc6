// DocumentArea: the tabs in the middle of the window: the runs first, then the open documents.
#pragma once

#include "ui/document/document.h" // whole: its signals carry Document pointers

#include <QTabWidget>

#include <functional>

namespace ferry::ui {

// The middle of the window: the home tab (the runs, or the empty state without a workspace),
// always there and never closed, then one tab per open document (an environment, a notebook),
// closable and movable. A file opens once: opening it again shows its tab. Closing a document
// with unsaved edits asks first; closing the last one leaves the home tab. Its slots are what the
// window's actions do (Save, Close Tab, the next and the previous tab).
class DocumentArea : public QTabWidget {
    Q_OBJECT
public:
    explicit DocumentArea(QWidget *parent = nullptr);

    // The first tab; an area without one (a test's) has documents only.
    void setHome(QWidget *home, const QString &title);
    QWidget *home() const { return m_home; }

    // The document of the file at `path` (made absolute), or nullptr.
    Document *documentFor(const QString &path) const;
    // Shows the tab of the document open at `path`; else adds the one `make` returns (nullptr:
    // nothing could be opened) and shows it. Returns the document shown, or nullptr.
    Document *open(const QString &path, const std::function<Document *()> &make);
    // Adds a document (one with no file yet, say) as a tab and shows it; the area owns it.
    void add(Document *document);
    Document *currentDocument() const;   // nullptr: the home tab is current
    QList<Document *> documents() const; // in the tabs' order

    // Closes the document, asking about unsaved edits first; false: it stays open.
    bool closeDocument(Document *document);
    // Asks each document about its unsaved edits; false as soon as one stays (none is closed).
    bool mayCloseAll();
    // mayCloseAll(), then closes every document; false: the user kept them all open.
    bool closeAll();

public Q_SLOTS:
    void saveCurrent();  // the current document, if it is one
    void closeCurrent(); // the current document's tab, never the home tab
    void showNext();     // the next tab, the first after the last
    void showPrevious();

Q_SIGNALS:
    // Another tab is current (nullptr: the home tab).
    void currentDocumentChanged(ferry::ui::Document *document);
    // A document's title, path or unsaved state changed.
    void documentChanged(ferry::ui::Document *document);
    // The document's tab is gone and the document is deleted soon: what it listed goes with it.
    void documentClosed(ferry::ui::Document *document);

private:
    void showState(Document *document); // its tab's text and tooltip
    void remove(Document *document);
    void step(int by);

    QWidget *m_home = nullptr;
};

} // namespace ferry::ui
