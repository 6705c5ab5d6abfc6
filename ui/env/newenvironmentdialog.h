// The "New Environment" dialog: a name and a template or an existing file to start from.
#pragma once

#include <QDialog>

class QLabel;
class QLineEdit;
class QListWidget;

namespace ferry::ui {

// "New Environment": a name and a template, or an existing file (conda environment.yml,
// requirements.txt, AzureML) to start from.
class NewEnvironmentDialog : public QDialog {
    Q_OBJECT
public:
    // `folder`: where the new file goes (the workspace's environments/); names taken there are refused.
    explicit NewEnvironmentDialog(const QString &folder, QWidget *parent = nullptr);

    QString name() const;
    QString templateId() const; // empty when a file was chosen
    QString sourceFile() const; // the existing file to start from, or empty
    QString targetPath() const; // <folder>/<name>.yml

private:
    void validate();

    QString m_folder;
    QString m_sourceFile;
    QLineEdit *m_name;
    QListWidget *m_templates;
    QLabel *m_message;
    class QPushButton *m_ok;
};

} // namespace ferry::ui
