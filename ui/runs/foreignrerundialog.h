// ForeignRerunDialog: what a rerun of a run from elsewhere asks (target, data, secrets, consent)
// before anything runs.
#pragma once

// The window's question before a run from elsewhere runs again (ForeignRerunDialog, below).
#include "run/runspec.h"
#include "tracking/rerun.h"

#include <QDialog>

class QCheckBox;
class QComboBox;
class QLabel;
class QPlainTextEdit;
class QVBoxLayout;
class QTableWidget;

namespace ferry::ui {

class RemoteTargetFields;
class SecretVariablesBox;

// The question a rerun of a run from elsewhere asks before anything runs (docs/security.md,
// "Handing a run to a colleague"; second review H3): what came with the run and was kept aside,
// then where it runs (target, host and its options), its data channels (the original's names,
// paths given here), its keychain secrets (the variables its environment names, each secret
// picked here), the consent its environment's isolation-breaking run arguments need, and,
// updated as they change, what it will run: interpreter, script, arguments, variables, target,
// data and consents. Nothing of the bundle's host, paths, secrets or consents is prefilled.
class ForeignRerunDialog : public QDialog {
    Q_OBJECT
public:
    // `prepared`: the rerun as rerunSpec made it (its code written, nothing granted);
    // `original`: the imported run; `notes`: what the preparation left out; `secretNames`: the
    // keychain's names (no keychain access here).
    ForeignRerunDialog(const run::RunSpec &prepared, const run::RunSpec &original, const QStringList &notes,
                       const QStringList &secretNames, QWidget *parent = nullptr);

    // What the user gave: applied to the prepared rerun with run::applyGrants.
    run::RerunChanges changes() const;
    // The rerun as it will start with those answers.
    run::RunSpec rerun() const;
    // Why it cannot start as it stands (no host for an SSH target); empty: it can.
    QString problem() const;

    QComboBox *targetBox() const { return m_target; }
    RemoteTargetFields *remoteFields() const { return m_remote; }
    QTableWidget *channelTable() const { return m_channels; }
    QCheckBox *allowRunArgumentsBox() const { return m_allowRunArguments; }
    SecretVariablesBox *secretVariables() const { return m_secrets; }
    QPlainTextEdit *summaryView() const { return m_summary; }

private:
    void addWhereItCameFrom(QVBoxLayout *layout, const run::RunSpec &original, const QStringList &notes);
    void setUpTarget(const run::RunSpec &original);
    void setUpChannels(const run::RunSpec &original);
    void setUpEnvironmentQuestions(const QStringList &secretNames);
    // The target as the box and the remote fields say; the first problem with it, if any.
    QString applyTarget(run::TargetSpec &target) const;
    void update();

    run::RunSpec m_prepared;
    QComboBox *m_target;
    RemoteTargetFields *m_remote;
    QTableWidget *m_channels;
    QCheckBox *m_allowRunArguments;
    SecretVariablesBox *m_secrets;
    QPlainTextEdit *m_summary;
    QLabel *m_problem;
};

} // namespace ferry::ui
