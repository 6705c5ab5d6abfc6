// ExportRunDialog: previews and writes a run as the AzureML or SageMaker job file their own tools
// submit.
#pragma once

#include "cloud/cloudhandoff.h"
#include "env/environment.h"
#include "run/runspec.h"

#include <QDialog>

#include <optional>

class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;

namespace ferry::ui {

// Run > Export for AzureML / SageMaker: the run as the file the service's own tools submit
// (run/cloudhandoff.h), with the few settings each needs and the file shown as it will be
// written, updated as they change. Nothing is submitted.
class ExportRunDialog : public QDialog {
    Q_OBJECT
public:
    enum class Service { AzureMl, SageMaker };

    ExportRunDialog(run::RunSpec spec, std::optional<env::Environment> environment, QWidget *parent = nullptr);

    void setService(Service service);
    Service service() const;
    void setOutputPath(const QString &path);
    QString outputPath() const;
    // The file as it would be written, or empty when a setting is missing (problem() says which).
    QString preview() const { return m_text; }
    QString problem() const { return m_problem; }
    // Writes the file (atomically); false with errorString() on failure.
    bool save();
    QString errorString() const { return m_error; }

    QLineEdit *computeEdit() const { return m_compute; }
    QLineEdit *instanceTypeEdit() const { return m_instanceType; }
    QLineEdit *registeredEnvironmentEdit() const { return m_registered; }
    QLineEdit *maxTimeEdit() const { return m_maxTime; }

private:
    void regenerate();
    // The options as set; an Error for a max time that cannot be read.
    Expected<run::HandoffOptions> options() const;

    run::RunSpec m_spec;
    std::optional<env::Environment> m_environment;
    QComboBox *m_service;
    QLineEdit *m_compute, *m_experiment, *m_registered, *m_instanceType, *m_output;
    QLineEdit *m_maxTime; // SageMaker: the job's time cap instead of the run's caps
    QSpinBox *m_instances;
    QPlainTextEdit *m_previewView;
    QLabel *m_status;
    QPushButton *m_save;
    QString m_text, m_problem, m_error;
};

} // namespace ferry::ui
