// Document: a file open in a tab of the window's document area (an environment, a notebook).
#pragma once

#include <QWidget>

namespace ferry::ui {

// What a tab of the document area (documentarea.h) needs from the file it shows: its path and
// title, whether it has unsaved edits, saving, and asking before it closes. The widget is the
// tab's content, owned by the area once added. The area marks unsaved edits (the tab's "*", the
// window title's [*]): a document only says whether it has them and when that changes.
class Document : public QWidget {
    Q_OBJECT
public:
    using QWidget::QWidget;

    // The file, absolute; empty until a new or imported document is first saved.
    virtual QString path() const = 0;
    // The tab's text: the file's name ("torch-cpu.yml"), or what names it until it has a file.
    virtual QString title() const = 0;
    virtual bool isModified() const = 0;
    // Whether this is the document of the file at `absolutePath`: its path(), unless it answers to
    // another file too (an imported environment to the file it was imported from).
    virtual bool isOpenAt(const QString &absolutePath) const;
    // Saves, asking where when it has no file yet; false: not saved.
    virtual bool save() = 0;
    // Asks about unsaved edits (save, discard or stay); false: the user keeps it open.
    virtual bool maybeClose() = 0;

Q_SIGNALS:
    void titleChanged(); // the title or the path
    void modifiedChanged(bool modified);
};

} // namespace ferry::ui
