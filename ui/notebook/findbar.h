// Find and replace across a notebook's cells (Ctrl+F in the notebook, as JupyterLab's search):
// the text to find, optionally what to put in its place; Enter finds the next, Shift+Enter the
// previous, Esc closes.
#pragma once

#include <QWidget>

class QCheckBox;
class QLabel;
class QLineEdit;

namespace ferry::ui {

class FindBar : public QWidget {
    Q_OBJECT
public:
    explicit FindBar(QWidget *parent = nullptr);

    QString findText() const;
    QString replaceText() const;
    bool caseSensitive() const;
    void open(const QString &text); // shown, the find field focused with `text`
    void setStatus(const QString &text);

Q_SIGNALS:
    void findNext(bool backwards);
    void replaceOne();
    void replaceAll();
    void closed();

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    QLineEdit *m_find;
    QLineEdit *m_replace;
    QCheckBox *m_case;
    QLabel *m_status;
};

} // namespace ferry::ui
