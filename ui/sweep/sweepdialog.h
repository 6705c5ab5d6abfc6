// SweepDialog: the form that writes a sweep file, checked as `ferry sweep plan` checks it, and can
// start the sweep.
#pragma once

// The sweep form (Run > New Sweep…, beside the launch dialog): what the trials run (script,
// environment, target, fixed hyperparameters), the search (method, metric, the parameters in a
// table, trials, at once, early stopping, seed). What it saves is the sweep file
// (sweeps/NAME.yml, sweep/sweepfile.h), shown as it will be written and checked as `ferry sweep
// plan` checks it; Save and Start also starts it (its detached controller).
#include "cost/rates.h"
#include "store/runstore.h"
#include "sweep/sweepfile.h"
#include "workspace/workspace.h"

#include <QDialog>

class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace ferry::ui {

class SweepDialog : public QDialog {
    Q_OBJECT
public:
    SweepDialog(const workspace::Workspace &workspace, QString ferryProgram, QWidget *parent = nullptr);

    // Fills the form from a sweep file's spec (an existing file to edit, or a template).
    void setSpec(const sweep::SweepSpec &spec, const QString &name);
    // The spec the form describes now, and the file it writes.
    sweep::SweepSpec spec() const;
    QString yaml() const;
    QString filePath() const;
    // What `ferry sweep plan` would say of the file (empty: nothing).
    QString problems() const;
    // Writes the file; false (and says why) when it has errors or cannot be written.
    bool save();
    // The workspace's runs and the rates the estimate rests on (sweep/sweepestimate.h: what
    // `ferry sweep plan` says), shown under the problems and following every change.
    void setEstimateSource(const QList<run::RunRecord> &history, const cost::Rates &rates);
    QLabel *estimateLabel() const { return m_estimate; }

    QTableWidget *parameters() const { return m_parameters; }
    QPushButton *startButton() const { return m_start; }

Q_SIGNALS:
    void started(const QString &sweepId);

private:
    void addParameterRow(const sweep::Parameter &p);
    void updatePreview();
    void previewEveryChange(); // each field, when it changes, redraws the file's preview
    void saveAndStart();

    workspace::Workspace m_workspace;
    QString m_ferryProgram;
    QLineEdit *m_name;
    QComboBox *m_script;
    QLineEdit *m_environment;
    QLineEdit *m_target;
    QLineEdit *m_options; // target_options as "key=value" pairs (sweep::targetOptionsFromText)
    QLineEdit *m_fixed;
    QComboBox *m_method;
    QLineEdit *m_metric;
    QComboBox *m_goal;
    QComboBox *m_summary;
    QTableWidget *m_parameters;
    QSpinBox *m_maxTrials;
    QSpinBox *m_maxParallel;
    QComboBox *m_stopping;
    QSpinBox *m_minSteps;
    QSpinBox *m_seed;
    QPlainTextEdit *m_preview;
    QLabel *m_problems;
    QLabel *m_estimate;
    QList<run::RunRecord> m_history;
    cost::Rates m_rates;
    QPushButton *m_start;
};

} // namespace ferry::ui
