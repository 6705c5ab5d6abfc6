#pragma once

#include "common/setting.h"

#include <QStringList>
#include <QWidget>

class QLineEdit;
class QListWidget;
class QPushButton;

namespace ferry::ui {

// The SSH hosts and Slurm clusters the user runs on (names as ~/.ssh/config or ssh know them:
// "gpu-box", "me@10.0.0.5"), offered by the launch dialog.
inline const Setting<QStringList> kRemoteHostsSetting{"remote/hosts"};

// The hosts page of the settings: the list, a field to add one, Remove, and Check… (the
// window opens the host's page: what it offers, its host key).
class HostsPage : public QWidget {
    Q_OBJECT
public:
    explicit HostsPage(QStringList hosts, QWidget *parent = nullptr);

    QStringList hosts() const;
    QListWidget *hostList() const { return m_list; }
    QLineEdit *hostEdit() const { return m_edit; }
    QPushButton *addButton() const { return m_add; }
    QPushButton *removeButton() const { return m_remove; }
    QPushButton *checkButton() const { return m_check; }

Q_SIGNALS:
    void checkRequested(const QString &host);

private:
    void add();
    void updateButtons();

    QListWidget *m_list;
    QLineEdit *m_edit;
    QPushButton *m_add, *m_remove, *m_check;
};

} // namespace ferry::ui
