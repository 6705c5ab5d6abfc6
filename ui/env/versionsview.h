// The kept versions of an environment and, side by side, what changed between two of them.
#pragma once

#include "env/environment.h"

#include <QWidget>

class QComboBox;
class QLabel;
class QTreeWidget;

namespace ferry::ui {

class EnvironmentDocument;

// The versions of the environment (kept in the versions folder beside its file, plus the one
// being edited) and, side by side, what changed between two of them: dependencies and
// variables added, removed or changed, and settings changed.
class VersionsView : public QWidget {
    Q_OBJECT
public:
    explicit VersionsView(EnvironmentDocument *document, QWidget *parent = nullptr);

    // Reads the versions folder again (after a save) and shows the newest change.
    void refresh();
    // Compares two entries of the lists (index 0 is the newest stored version's predecessor
    // order as listed; the last entry is the one being edited).
    void compare(int left, int right);
    QTreeWidget *diffTree() const { return m_diff; }
    QComboBox *leftChoice() const { return m_left; }
    QComboBox *rightChoice() const { return m_right; }

private:
    void showDiff();
    env::Environment environmentAt(int index) const;

    EnvironmentDocument *m_document;
    QComboBox *m_left;
    QComboBox *m_right;
    QLabel *m_summary;
    QTreeWidget *m_diff;
};

} // namespace ferry::ui
