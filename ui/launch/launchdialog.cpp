#include "ui/launch/launchdialog.h"

#include "cost/budget.h"
#include "cost/estimate.h"
#include "env/formats.h"
#include "env/runarguments.h"
#include "run/runsecrets.h"
#include "ui/launch/remotetargetfields.h"
#include "ui/launch/secretvariablesbox.h"
#include "ui/settings/hostspage.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QDirIterator>
#include <QFileInfo>
#include <QFontMetrics>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace ferry::ui {

namespace {

enum HpColumn { kHpUse, kHpName, kHpValue, kHpType, kHpDefault, kHpHelp, kHpColumns };

// The Value column shows this much whatever the defaults' widths (review 2026-12-06, finding 12:
// "0.056…" wrapped while Help took the width); Help gives way, its whole text in its tip.
constexpr QLatin1StringView kValueColumnSample{"0.000123456789"};
constexpr int kHelpColumnMaxWidth = 360;

QString settingsKey(const QString &script)
{
    QString key = QFileInfo(script).absoluteFilePath();
    key.replace(u'/', u'|'); // one key, not a group per folder
    return u"launch/"_s + key;
}

QTableWidgetItem *readOnly(const QString &text)
{
    auto *item = new QTableWidgetItem(text);
    item->setFlags(item->flags() & ~Qt::ItemIsEditable);
    return item;
}

} // namespace

LaunchDialog::LaunchDialog(QSettings &settings, const QString &workspaceRoot, QWidget *parent)
    : QDialog(parent), m_settings(settings), m_root(workspaceRoot), m_script(new QComboBox(this)),
      m_environment(new QComboBox(this)), m_target(new QComboBox(this)), m_remote(new RemoteTargetFields(this)),
      m_hyperparameters(new QTableWidget(this)), m_channels(new QTableWidget(this)), m_metrics(new QTableWidget(this)),
      m_note(new QLabel(this)), m_problem(new QLabel(this)), m_estimate(new QLabel(this)),
      m_secrets(new SecretVariablesBox(this)), m_allowRunArguments(new QCheckBox(this)), m_maxCost(new QLineEdit(this)),
      m_maxTime(new QLineEdit(this))
{
    setWindowTitle(tr("Start a run"));
    setObjectName(u"launchDialog"_s);
    m_remote->setKnownHosts(kRemoteHostsSetting.get(settings));
    resize(860, 760);
    // The workspace's scripts and environments.
    QDirIterator scripts(m_root, {u"*.py"_s}, QDir::Files, QDirIterator::Subdirectories);
    QStringList found;
    while (scripts.hasNext()) {
        const QString path = scripts.next();
        if (!path.contains(u"/.ferry/"_s) && !path.contains(u"/.git/"_s))
            found << QDir(m_root).relativeFilePath(path);
    }
    found.sort();
    m_script->addItems(found);
    m_script->setEditable(true);
    m_environment->addItem(tr("(none: this machine's Python)"), QString());
    const QDir environments(QDir(m_root).filePath(u"environments"_s));
    for (const QString &file : environments.entryList({u"*.yml"_s, u"*.yaml"_s}, QDir::Files, QDir::Name))
        m_environment->addItem(u"environments/"_s + file, environments.filePath(file));
    m_target->addItem(tr("local (this machine)"), u"local"_s);
    m_target->addItem(tr("container (the environment's image)"), u"container"_s);
    m_target->addItem(tr("SSH host"), u"ssh"_s);
    m_target->addItem(tr("Slurm cluster"), u"slurm"_s);
    connect(m_target, &QComboBox::currentIndexChanged, this, [this] {
        const auto kind = run::TargetSpec::parse(m_target->currentData().toString() + u":x"_s);
        m_remote->setKind(kind ? kind->kind : run::TargetKind::Local);
        refresh();
    });
    connect(m_remote, &RemoteTargetFields::changed, this, &LaunchDialog::refresh);

    m_hyperparameters->setColumnCount(kHpColumns);
    m_hyperparameters->setHorizontalHeaderLabels(
        {tr("Use"), tr("Name"), tr("Value"), tr("Type"), tr("Default"), tr("Help")});
    m_hyperparameters->horizontalHeader()->setStretchLastSection(true);
    m_hyperparameters->verticalHeader()->setVisible(false);
    m_channels->setColumnCount(2);
    m_channels->setHorizontalHeaderLabels({tr("Channel"), tr("Path")});
    m_channels->horizontalHeader()->setStretchLastSection(true);
    m_channels->verticalHeader()->setVisible(false);
    m_metrics->setColumnCount(2);
    m_metrics->setHorizontalHeaderLabels({tr("Metric"), tr("Regex (one capture group)")});
    m_metrics->horizontalHeader()->setStretchLastSection(true);
    m_metrics->verticalHeader()->setVisible(false);
    m_environment->setObjectName(u"environment"_s);
    m_target->setObjectName(u"target"_s);
    m_hyperparameters->setObjectName(u"hyperparameters"_s);
    m_channels->setObjectName(u"channels"_s);
    m_metrics->setObjectName(u"metrics"_s);
    m_note->setWordWrap(true);
    m_problem->setObjectName(u"launchProblem"_s);
    m_problem->setWordWrap(true);
    m_problem->setStyleSheet(u"color: #c62828;"_s);
    m_problem->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_estimate->setObjectName(u"estimate"_s);
    m_estimate->setWordWrap(true);
    m_estimate->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto *addChannel = new QPushButton(tr("Add channel"), this);
    connect(addChannel, &QPushButton::clicked, this, [this] { m_channels->insertRow(m_channels->rowCount()); });
    auto *addMetric = new QPushButton(tr("Add metric definition"), this);
    connect(addMetric, &QPushButton::clicked, this, [this] { addMetricRow(); });

    auto *form = new QFormLayout;
    form->addRow(tr("Script"), m_script);
    form->addRow(tr("Environment"), m_environment);
    form->addRow(tr("Target"), m_target);
    form->addRow(m_remote);
    // An environment from elsewhere can ask for --privileged or a host mount: allowed per run, by a
    // click that says what it allows (review L15); hidden while the environment asks for nothing such.
    m_allowRunArguments->setObjectName(u"allowRunArguments"_s);
    m_allowRunArguments->setVisible(false);
    form->addRow(QString(), m_allowRunArguments);
    // The run's caps: stopped by its supervisor at the first reached, after SIGTERM and a grace.
    m_maxCost->setObjectName(u"maxCost"_s);
    m_maxCost->setPlaceholderText(tr("none (an amount in USD at the target's rate, e.g. 12.50)"));
    m_maxTime->setObjectName(u"maxTime"_s);
    m_maxTime->setPlaceholderText(tr("none (H:MM:SS, e.g. 2:30:00)"));
    for (QLineEdit *field : {m_maxCost, m_maxTime})
        connect(field, &QLineEdit::textChanged, this, &LaunchDialog::refresh);
    form->addRow(tr("Max cost"), m_maxCost);
    form->addRow(tr("Max time"), m_maxTime);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    m_start = buttons->button(QDialogButtonBox::Ok);
    m_start->setText(tr("Start"));
    m_start->setObjectName(u"start"_s);
    connect(buttons, &QDialogButtonBox::accepted, this, [this] {
        if (const QString why = problem(); !why.isEmpty())
            m_problem->setText(why); // inline, not a message box: the field is right there
        else
            accept();
    });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    // Everything but the buttons scrolls: the dialog fits a laptop's screen with every section.
    auto *content = new QWidget(this);
    auto *layout = new QVBoxLayout(content);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(form);
    layout->addWidget(
        new QLabel(tr("Hyperparameters (from the script's argparse calls; passed as --name value)"), this));
    layout->addWidget(m_hyperparameters, 3);
    layout->addWidget(m_note);
    auto *channelRow = new QHBoxLayout;
    channelRow->addWidget(new QLabel(tr("Data channels (SM_CHANNEL_<NAME>)"), this), 1);
    channelRow->addWidget(addChannel);
    layout->addLayout(channelRow);
    layout->addWidget(m_channels, 1);
    auto *metricRow = new QHBoxLayout;
    metricRow->addWidget(new QLabel(tr("Metric definitions (empty: JSON lines and key=value are read)"), this), 1);
    metricRow->addWidget(addMetric);
    layout->addLayout(metricRow);
    layout->addWidget(m_metrics, 1);
    layout->addWidget(m_secrets, 1);
    auto *scroll = new QScrollArea(this);
    scroll->setWidget(content);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    auto *outer = new QVBoxLayout(this);
    outer->addWidget(scroll, 1);
    outer->addWidget(m_estimate); // beside Start, whatever is scrolled into view
    outer->addWidget(m_problem);
    outer->addWidget(buttons);

    connect(m_script, &QComboBox::currentTextChanged, this, &LaunchDialog::scriptChanged);
    connect(m_environment, &QComboBox::currentIndexChanged, this, &LaunchDialog::environmentChanged);
    // A value typed in is a value to pass.
    connect(m_hyperparameters, &QTableWidget::itemChanged, this, [this](QTableWidgetItem *item) {
        if (item->column() == kHpValue) {
            if (QTableWidgetItem *use = m_hyperparameters->item(item->row(), kHpUse);
                use && (use->flags() & Qt::ItemIsUserCheckable))
                use->setCheckState(Qt::Checked);
        }
        refresh();
    });
    connect(m_channels, &QTableWidget::itemChanged, this, &LaunchDialog::refresh);
    scriptChanged();
    environmentChanged();
}

void LaunchDialog::setHistory(const QList<run::RunRecord> &history)
{
    m_history = history;
    refresh();
}

void LaunchDialog::refresh()
{
    if (!m_start) // still being built
        return;
    const QString why = problem();
    m_start->setEnabled(why.isEmpty());
    const bool named = !m_script->currentText().trimmed().isEmpty();
    // Nothing is wrong before anything is typed: Start just waits for a script.
    m_problem->setText(named ? why : QString());
    m_problem->setVisible(named && !why.isEmpty());
    if (!named) {
        m_estimate->setText(tr("Estimate: choose a script"));
        return;
    }
    const run::RunSpec planned = spec();
    const cost::CostEstimate estimate = cost::estimateCost(planned, m_history, cost::readRates(m_settings).rates);
    m_estimate->setText(cost::estimateText(estimate, planned));
}

void LaunchDialog::fitHyperparameterColumns()
{
    m_hyperparameters->resizeColumnsToContents();
    const int value = m_hyperparameters->fontMetrics().horizontalAdvance(QString(kValueColumnSample)) + 16;
    m_hyperparameters->setColumnWidth(kHpValue, std::max(m_hyperparameters->columnWidth(kHpValue), value));
    m_hyperparameters->setColumnWidth(kHpHelp, std::min(m_hyperparameters->columnWidth(kHpHelp), kHelpColumnMaxWidth));
}

void LaunchDialog::setSecretNames(const QStringList &names)
{
    m_secrets->setSecretNames(names);
}

// The environment's secret variables, names only (its file is small; its values stay in the keychain).
void LaunchDialog::environmentChanged()
{
    const QString file = m_environment->currentData().toString();
    const env::Environment environment = file.isEmpty() ? env::Environment{} : env::readEnvironment(file).environment;
    m_secrets->setEnvironmentSecrets(file.isEmpty() ? QList<std::pair<QString, QString>>{}
                                                    : run::secretVariablesOf(environment));
    const QList<env::IsolationBreak> breaks = env::isolationBreakingArguments(environment.docker.runArguments);
    m_allowRunArguments->setChecked(false); // never carried over to another environment
    m_allowRunArguments->setVisible(!breaks.isEmpty());
    QStringList arguments;
    for (const env::IsolationBreak &b : breaks)
        arguments << b.argument;
    // The arguments on a line of their own (a check box does not wrap); what each does in the tip.
    m_allowRunArguments->setText(
        tr("Allow its run arguments, which undo the container's isolation:\n%1").arg(arguments.join(u"   "_s)));
    m_allowRunArguments->setToolTip(env::describeIsolationBreaks(breaks));
    refresh();
}

void LaunchDialog::setScript(const QString &path)
{
    const QString relative = QFileInfo(path).isAbsolute() ? QDir(m_root).relativeFilePath(path) : path;
    if (m_script->findText(relative) < 0)
        m_script->addItem(relative);
    m_script->setCurrentText(relative);
    scriptChanged();
}

void LaunchDialog::setChannels(const QList<run::DataChannel> &channels)
{
    m_channels->setRowCount(0);
    for (const run::DataChannel &c : channels) {
        const int row = m_channels->rowCount();
        m_channels->insertRow(row);
        m_channels->setItem(row, 0, new QTableWidgetItem(c.name));
        m_channels->setItem(row, 1, new QTableWidgetItem(c.path));
    }
    refresh();
}

void LaunchDialog::setHyperparameters(const QList<run::Hyperparameter> &values)
{
    const QSignalBlocker blocker(m_hyperparameters);
    for (int row = 0; row < m_hyperparameters->rowCount(); ++row) {
        const QString name = m_hyperparameters->item(row, kHpName)->text();
        const auto it =
            std::find_if(values.cbegin(), values.cend(), [&](const run::Hyperparameter &h) { return h.name == name; });
        if (it == values.cend())
            continue;
        m_hyperparameters->item(row, kHpValue)->setText(it->value);
        if (m_hyperparameters->item(row, kHpUse)->flags() & Qt::ItemIsUserCheckable)
            m_hyperparameters->item(row, kHpUse)->setCheckState(Qt::Checked);
    }
    fitHyperparameterColumns();
    refresh();
}

void LaunchDialog::scriptChanged()
{
    const QString named = m_script->currentText().trimmed();
    const QString script = QDir(m_root).filePath(named);
    // Nothing named, or nothing there (yet): no table and no note; Start says why it waits.
    const auto found = !named.isEmpty() && QFileInfo(script).isFile()
                           ? run::discoverScriptParametersInFile(script)
                           : Expected<QList<run::ScriptParameter>>(QList<run::ScriptParameter>());
    m_parameters = found ? *found : QList<run::ScriptParameter>();
    const QSignalBlocker blocker(m_hyperparameters);
    m_hyperparameters->setRowCount(0);
    int contract = 0;
    for (const run::ScriptParameter &p : std::as_const(m_parameters)) {
        if (p.isContract()) { // folders and settings the contract fills in
            ++contract;
            continue;
        }
        const int row = m_hyperparameters->rowCount();
        m_hyperparameters->insertRow(row);
        auto *use = readOnly(QString());
        if (p.isFlag) { // the contract passes every hyperparameter as --name value: a flag cannot be one
            use->setFlags(use->flags() & ~Qt::ItemIsEnabled);
            use->setToolTip(tr("a flag (store_true/false) takes no value; use type=str2bool to tune it"));
        } else {
            use->setFlags(use->flags() | Qt::ItemIsUserCheckable);
            use->setCheckState(p.required ? Qt::Checked : Qt::Unchecked);
        }
        m_hyperparameters->setItem(row, kHpUse, use);
        m_hyperparameters->setItem(row, kHpName, readOnly(p.name));
        m_hyperparameters->setItem(row, kHpValue, new QTableWidgetItem(p.isFlag ? QString() : p.defaultText()));
        m_hyperparameters->setItem(row, kHpType, readOnly(p.isFlag ? tr("flag") : p.type));
        m_hyperparameters->setItem(row, kHpDefault, readOnly(p.defaultText()));
        m_hyperparameters->setItem(row, kHpHelp, readOnly(p.help));
        m_hyperparameters->item(row, kHpHelp)->setToolTip(p.help);
    }
    fitHyperparameterColumns();
    m_note->setText(!found ? found.error().toString()
                    : contract > 0
                        ? tr("%1 more argument(s) take their default from SM_* variables: the contract fills them in.")
                              .arg(contract)
                        : QString());
    restore();
    refresh();
}

void LaunchDialog::restore()
{
    const QJsonObject saved =
        QJsonDocument::fromJson(
            m_settings.value(settingsKey(QDir(m_root).filePath(m_script->currentText()))).toString().toUtf8())
            .object();
    if (saved.isEmpty())
        return;
    if (const int env = m_environment->findData(saved[u"environment"_s].toString()); env >= 0)
        m_environment->setCurrentIndex(env);
    if (const int target = m_target->findData(saved[u"target"_s].toString()); target >= 0)
        m_target->setCurrentIndex(target);
    m_remote->restore(saved[u"remote"_s].toObject());
    const QJsonObject values = saved[u"hyperparameters"_s].toObject();
    const QSignalBlocker blocker(m_hyperparameters);
    for (int row = 0; row < m_hyperparameters->rowCount(); ++row) {
        const QString name = m_hyperparameters->item(row, kHpName)->text();
        if (values.contains(name)) {
            m_hyperparameters->item(row, kHpValue)->setText(values[name].toString());
            if (m_hyperparameters->item(row, kHpUse)->flags() & Qt::ItemIsUserCheckable)
                m_hyperparameters->item(row, kHpUse)->setCheckState(Qt::Checked);
        }
    }
    m_metrics->setRowCount(0);
    for (const QJsonValue &m : saved[u"metrics"_s].toArray())
        addMetricRow(m[u"Name"_s].toString(), m[u"Regex"_s].toString());
    fitHyperparameterColumns();
}

void LaunchDialog::addMetricRow(const QString &name, const QString &regex)
{
    const int row = m_metrics->rowCount();
    m_metrics->insertRow(row);
    m_metrics->setItem(row, 0, new QTableWidgetItem(name));
    m_metrics->setItem(row, 1, new QTableWidgetItem(regex));
}

run::RunSpec LaunchDialog::spec() const
{
    run::RunSpec spec;
    spec.sourceDir = m_root;
    spec.script = m_script->currentText();
    spec.id = run::newRunId(spec.script);
    spec.environmentFile = m_environment->currentData().toString();
    spec.target.kind =
        m_target->currentData().toString() == u"container"_s ? run::TargetKind::Container : run::TargetKind::Local;
    m_remote->apply(spec.target); // SSH and Slurm: kind, host and options
    for (int row = 0; row < m_hyperparameters->rowCount(); ++row) {
        const QTableWidgetItem *use = m_hyperparameters->item(row, kHpUse);
        if (!(use->flags() & Qt::ItemIsUserCheckable) || use->checkState() != Qt::Checked)
            continue;
        spec.hyperparameters << run::Hyperparameter{m_hyperparameters->item(row, kHpName)->text(),
                                                    m_hyperparameters->item(row, kHpValue)->text()};
    }
    for (int row = 0; row < m_channels->rowCount(); ++row) {
        const QTableWidgetItem *name = m_channels->item(row, 0);
        const QTableWidgetItem *path = m_channels->item(row, 1);
        if (name && path && !name->text().trimmed().isEmpty())
            spec.channels << run::DataChannel{name->text().trimmed(), path->text().trimmed()};
    }
    for (int row = 0; row < m_metrics->rowCount(); ++row) {
        const QTableWidgetItem *name = m_metrics->item(row, 0);
        const QTableWidgetItem *regex = m_metrics->item(row, 1);
        if (name && regex && !name->text().trimmed().isEmpty())
            spec.metricDefinitions << run::MetricDefinition{name->text().trimmed(), regex->text()};
    }
    spec.secretVariables = m_secrets->launchSecrets(); // the environment's come when the run is launched
    if (m_allowRunArguments->isChecked())
        spec.target.options[run::kAllowRunArgumentsOption] = true;
    spec.notebook = m_notebook;
    spec.notebookCells = m_notebookCells;
    // The caps as typed; one that cannot be read is none here, and problem() says so.
    if (const auto cap = cost::parseMaxCost(m_maxCost->text()); cap && !m_maxCost->text().trimmed().isEmpty())
        spec.budget.maxCost = *cap;
    if (const auto cap = cost::parseMaxTime(m_maxTime->text()); cap && !m_maxTime->text().trimmed().isEmpty())
        spec.budget.maxSeconds = *cap;
    spec.budget.graceSeconds = cost::budgetGraceSeconds(m_settings); // Settings: ferry budget set grace
    return spec;
}

void LaunchDialog::setEnvironmentAndTarget(const QString &environmentFile, const run::TargetSpec &target)
{
    int env = m_environment->findData(environmentFile);
    if (env < 0 && !environmentFile.isEmpty()) {
        m_environment->addItem(QDir(m_root).relativeFilePath(environmentFile), environmentFile);
        env = m_environment->count() - 1;
    }
    if (env >= 0)
        m_environment->setCurrentIndex(env);
    const QString kind = target.kind == run::TargetKind::Ssh         ? u"ssh"_s
                         : target.kind == run::TargetKind::Slurm     ? u"slurm"_s
                         : target.kind == run::TargetKind::Container ? u"container"_s
                                                                     : u"local"_s;
    m_target->setCurrentIndex(std::max(0, m_target->findData(kind)));
    if (target.onHost()) {
        QJsonObject remote = m_remote->saved();
        remote[u"host"_s] = target.host;
        m_remote->restore(remote);
    }
}

void LaunchDialog::setNotebookOrigin(const QString &notebook, const QStringList &cells)
{
    m_notebook = notebook;
    m_notebookCells = cells;
}

QString LaunchDialog::problem() const
{
    if (m_script->currentText().trimmed().isEmpty())
        return tr("Choose the script to run");
    run::TargetSpec target;
    if (const QString remote = m_remote->apply(target); !remote.isEmpty())
        return remote;
    if (!m_maxCost->text().trimmed().isEmpty()) {
        if (const auto cap = cost::parseMaxCost(m_maxCost->text()); !cap)
            return cap.error().toString();
    }
    if (!m_maxTime->text().trimmed().isEmpty()) {
        if (const auto cap = cost::parseMaxTime(m_maxTime->text()); !cap)
            return cap.error().toString();
    }
    const run::RunSpec planned = spec();
    if (const QList<Error> problems = run::validateRunSpec(planned); !problems.isEmpty())
        return problems.first().toString();
    if (planned.budget.maxCost > 0) { // a money cap needs the target's rate
        run::RunSpec priced = planned;
        if (const auto rated = cost::recordRateAndBudget(priced, cost::readRates(m_settings).rates); !rated)
            return rated.error().toString();
    }
    if (!planned.environmentFile.isEmpty()) {
        const Diagnostics diagnostics = env::readEnvironment(planned.environmentFile).diagnostics;
        for (const Diagnostic &d : diagnostics) {
            if (d.isError())
                return tr("The environment has errors (%1): fix it in its editor, or run 'ferry env check' on it")
                    .arg(d.toString());
        }
    }
    return {};
}

void LaunchDialog::remember() const
{
    const run::RunSpec s = spec();
    QJsonObject values;
    for (const run::Hyperparameter &hp : s.hyperparameters)
        values[hp.name] = hp.value;
    QJsonArray metrics;
    for (const run::MetricDefinition &m : s.metricDefinitions)
        metrics.append(QJsonObject{{u"Name"_s, m.name}, {u"Regex"_s, m.regex}});
    const QJsonObject saved{{u"environment"_s, s.environmentFile},
                            {u"target"_s, m_target->currentData().toString()},
                            {u"remote"_s, m_remote->saved()},
                            {u"hyperparameters"_s, values},
                            {u"metrics"_s, metrics}};
    m_settings.setValue(settingsKey(QDir(m_root).filePath(s.script)),
                        QString::fromUtf8(QJsonDocument(saved).toJson(QJsonDocument::Compact)));
}

} // namespace ferry::ui
