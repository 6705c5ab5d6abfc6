// The environment editor's Python section: version, channels, conda and pip dependencies.
#pragma once

#include <QWidget>

class QTabWidget;

namespace ferry::ui {

class EnvironmentDocument;
class TableEditor;

// The Python section: version, interpreter, user-managed flag; conda channels (in priority
// order) and dependencies; pip requirements, constraints and options; the devcontainer's tools.
class PythonSectionForm : public QWidget {
    Q_OBJECT
public:
    explicit PythonSectionForm(EnvironmentDocument *document, QWidget *parent = nullptr);

    TableEditor *channels() const { return m_channels; }
    TableEditor *conda() const { return m_conda; }
    TableEditor *pip() const { return m_pip; }
    TableEditor *constraints() const { return m_constraints; }
    QTabWidget *tabs() const { return m_tabs; }

private:
    TableEditor *m_channels;
    TableEditor *m_conda;
    TableEditor *m_pip;
    TableEditor *m_constraints;
    QTabWidget *m_tabs;
};

} // namespace ferry::ui
