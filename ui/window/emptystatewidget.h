// What the centre of the window shows before there is anything to show.
#pragma once

#include <QWidget>

class QLabel;
class QPushButton;

namespace ferry::ui {

// What the centre of the window shows before there is anything to show: what Ferry is
// for and the one thing to do next.
class EmptyStateWidget : public QWidget {
    Q_OBJECT
public:
    explicit EmptyStateWidget(QWidget *parent = nullptr);

    // Empty name: no workspace is open.
    void setWorkspace(const QString &name, const QString &path);
    QString heading() const;
    QString body() const;

Q_SIGNALS:
    void openWorkspaceRequested();
    void newWorkspaceRequested();
    void exampleRequested();

private:
    QLabel *m_heading;
    QLabel *m_body;
    QPushButton *m_open;
    QPushButton *m_new;
    QPushButton *m_example;
};

} // namespace ferry::ui
