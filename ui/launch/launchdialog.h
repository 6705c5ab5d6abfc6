// LaunchDialog: starts a script run with its environment, target, hyperparameters, data and
// metrics, remembered per script.
#pragma once

#include "run/runspec.h"
#include "run/scriptparameters.h"
#include "store/runstore.h"

#include <QDialog>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSettings;
class QTableWidget;

namespace ferry::ui {

class RemoteTargetFields;
class SecretVariablesBox;

// Starts a script run: script, environment, target, hyperparameters (read from the script's
// argparse calls: name, type, default, help; edited in a table), data channels and metric
// definitions. The last choices are remembered per script. Start stays disabled until the run
// can start, and why not is said in the dialog once something is typed (nothing before); the
// estimate of its time and cost (cost/estimate.h) follows every change.
class LaunchDialog : public QDialog {
    Q_OBJECT
public:
    LaunchDialog(QSettings &settings, const QString &workspaceRoot, QWidget *parent = nullptr);

    void setScript(const QString &path);
    void setChannels(const QList<run::DataChannel> &channels);
    // Values for the script's hyperparameters (a run re-run with changes): each one named is
    // used with that value; after setScript, over the remembered choices.
    void setHyperparameters(const QList<run::Hyperparameter> &values);
    // The environment and the target to start with (a notebook's job: the notebook's own), over
    // what was remembered for the script.
    void setEnvironmentAndTarget(const QString &environmentFile, const run::TargetSpec &target);
    // Recorded in the spec: the notebook and cells the script was made from.
    void setNotebookOrigin(const QString &notebook, const QStringList &cells);
    // The workspace's runs the estimate rests on (the store's records, read once by the caller).
    void setHistory(const QList<run::RunRecord> &history);
    // The keychain's secret names, offered for secret variables (names only, no keychain access).
    void setSecretNames(const QStringList &names);
    // The run as the dialog describes it (id, sourceDir and script filled in).
    run::RunSpec spec() const;
    // Stores the choices for this script (the window calls it when the run starts).
    void remember() const;

    QTableWidget *hyperparameterTable() const { return m_hyperparameters; }
    QComboBox *targetBox() const { return m_target; }
    RemoteTargetFields *remoteFields() const { return m_remote; }
    // Why the dialog cannot start the run as it stands (no script, no such script, no host for an
    // SSH target, a bad channel, an environment with errors); empty: it can.
    QString problem() const;
    QPushButton *startButton() const { return m_start; }
    QLabel *problemLabel() const { return m_problem; }
    QLabel *estimateLabel() const { return m_estimate; }
    SecretVariablesBox *secretVariables() const { return m_secrets; }
    // The run's caps (docs/cost.md): `ferry run --max-cost / --max-time`; empty: none.
    QLineEdit *maxCostField() const { return m_maxCost; }
    QLineEdit *maxTimeField() const { return m_maxTime; }

private:
    void scriptChanged();
    void restore();
    void environmentChanged();
    void addMetricRow(const QString &name = {}, const QString &regex = {});
    // Start enabled or not, the problem said (once a script is named), the estimate again.
    void refresh();
    // The table's columns to their contents, the Value column wide enough to read a number.
    void fitHyperparameterColumns();

    QSettings &m_settings;
    QString m_root;
    QComboBox *m_script;
    QComboBox *m_environment;
    QComboBox *m_target;
    RemoteTargetFields *m_remote;
    QTableWidget *m_hyperparameters;
    QTableWidget *m_channels;
    QTableWidget *m_metrics;
    QLabel *m_note;
    QLabel *m_problem;
    QLabel *m_estimate;
    QPushButton *m_start = nullptr;
    QList<run::RunRecord> m_history;
    SecretVariablesBox *m_secrets;
    QCheckBox *m_allowRunArguments;
    QLineEdit *m_maxCost;
    QLineEdit *m_maxTime;
    QList<run::ScriptParameter> m_parameters;
    QString m_notebook;
    QStringList m_notebookCells;
};

} // namespace ferry::ui
