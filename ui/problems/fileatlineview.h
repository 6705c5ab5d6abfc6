// FileAtLineView: a read-only view of a file opened at the line a problem points to.
#pragma once

#include <QDialog>

class QPlainTextEdit;

namespace ferry::ui {

// A file shown read-only at one line, that line marked: where a problem of the Problems panel
// points (a line of an environment file, a requirements file, a notebook). Large files are shown
// up to their first megabytes, and say so.
class FileAtLineView : public QDialog {
    Q_OBJECT
public:
    explicit FileAtLineView(QWidget *parent = nullptr);
    // False (and a message in the view) when the file cannot be read.
    bool show(const QString &path, int line);
    int currentLine() const; // 1-based, where the cursor is
    QString text() const;

private:
    QPlainTextEdit *m_text;
};

} // namespace ferry::ui
