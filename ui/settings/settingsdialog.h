// SettingsDialog: Edit > Settings, one page per concern, its General page editing typed settings.
#pragma once

#include <QDialog>

class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QSettings;
class QSpinBox;
class QStackedWidget;

namespace ferry::ui {

// Edit > Settings: one page per concern (General; Secrets when a keychain store is given;
// others added by the window). The General page edits typed settings declared next to their
// features (the container engine, the terminal, the trainer's threads) and writes them on OK.
class SettingsDialog : public QDialog {
    Q_OBJECT
public:
    explicit SettingsDialog(QSettings &settings, QWidget *parent = nullptr);

    void addPage(const QString &title, QWidget *page);
    QStringList pageTitles() const;
    void showPage(const QString &title);

    QComboBox *engineBox() const { return m_engine; }
    QLineEdit *terminalEdit() const { return m_terminal; }
    QSpinBox *threadsBox() const { return m_threads; }
    QLabel *engineStatus() const { return m_engineStatus; }

    // Writes the General page's values (what OK does).
    void apply();

private:
    void checkEngine();

    QSettings &m_settings;
    QListWidget *m_pages;
    QStackedWidget *m_stack;
    QComboBox *m_engine;
    QLabel *m_engineStatus;
    QLineEdit *m_terminal;
    QSpinBox *m_threads;
};

} // namespace ferry::ui
