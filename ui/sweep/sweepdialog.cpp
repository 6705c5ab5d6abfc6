#include "ui/sweep/sweepdialog.h"

#include "sweep/sweepestimate.h"

#include "sweep/sweepcontroller.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QDirIterator>
#include <QFontDatabase>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSaveFile>
#include <QSpinBox>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace ferry::ui {

namespace {

enum ParameterColumn { ParameterNameColumn, DistributionColumn, MinColumn, MaxColumn, ValuesColumn, ParameterColumns };

const QStringList kDistributions{u"values"_s, u"uniform"_s, u"log_uniform"_s, u"int_uniform"_s, u"log_int_uniform"_s};

// The workspace's Python scripts, relative to it (two folders deep, .ferry left out).
QStringList workspaceScripts(const QString &root)
{
    QStringList scripts;
    QDirIterator it(root, {u"*.py"_s}, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext() && scripts.size() < 200) {
        const QString relative = QDir(root).relativeFilePath(it.next());
        if (!relative.startsWith(u'.') && relative.count(u'/') <= 2)
            scripts << relative;
    }
    scripts.sort();
    return scripts;
}

// A Values cell: a list in brackets (["64,32", "128,64"]) or values split at commas.
QStringList valuesOf(const QString &text)
{
    const QString trimmed = text.trimmed();
    if (trimmed.startsWith(u'[')) {
        QStringList values;
        for (const QJsonValue &v : QJsonDocument::fromJson(trimmed.toUtf8()).array())
            values << (v.isString() ? v.toString() : QString::number(v.toDouble(), 'g', 17));
        return values;
    }
    QStringList values;
    for (const QString &v : trimmed.split(u',', Qt::SkipEmptyParts))
        values << v.trimmed();
    return values;
}

QString valuesText(const QStringList &values)
{
    const bool plain = std::none_of(values.cbegin(), values.cend(), [](const QString &v) { return v.contains(u','); });
    if (plain)
        return values.join(u", "_s);
    QStringList quoted;
    for (const QString &v : values)
        quoted << u'"' + QString(v).replace(u"\""_s, u"\\\""_s) + u'"';
    return u'[' + quoted.join(u", "_s) + u']';
}

} // namespace

SweepDialog::SweepDialog(const workspace::Workspace &workspace, QString ferryProgram, QWidget *parent)
    : QDialog(parent), m_workspace(workspace), m_ferryProgram(std::move(ferryProgram)), m_name(new QLineEdit(this)),
      m_script(new QComboBox(this)), m_environment(new QLineEdit(this)), m_target(new QLineEdit(u"local"_s, this)),
      m_options(new QLineEdit(this)), m_fixed(new QLineEdit(this)), m_method(new QComboBox(this)),
      m_metric(new QLineEdit(u"val_loss"_s, this)), m_goal(new QComboBox(this)), m_summary(new QComboBox(this)),
      m_parameters(new QTableWidget(0, ParameterColumns, this)), m_maxTrials(new QSpinBox(this)),
      m_maxParallel(new QSpinBox(this)), m_stopping(new QComboBox(this)), m_minSteps(new QSpinBox(this)),
      m_seed(new QSpinBox(this)), m_preview(new QPlainTextEdit(this)), m_problems(new QLabel(this)),
      m_estimate(new QLabel(this)), m_start(new QPushButton(tr("Save and Start"), this))
{
    setWindowTitle(tr("New Sweep"));
    setObjectName(u"sweepDialog"_s);
    m_name->setText(u"sweep"_s);
    m_script->setEditable(true);
    m_script->addItems(workspaceScripts(workspace.root()));
    m_environment->setPlaceholderText(tr("optional: an environment file, e.g. environments/torch.yml"));
    m_target->setPlaceholderText(tr("local, container, ssh:HOST or slurm:HOST"));
    m_options->setObjectName(u"sweepTargetOptions"_s);
    m_options->setPlaceholderText(tr("optional: e.g. gpus=1 partition=gpu, or nodes=2 gpus-per-node=4 on Slurm"));
    m_fixed->setPlaceholderText(tr("optional: the same for every trial, e.g. epochs=5 steps=200"));
    m_method->addItems({u"random"_s, u"grid"_s, u"bayes"_s});
    m_goal->addItems({u"minimize"_s, u"maximize"_s});
    m_summary->addItems({u"last"_s, u"best"_s});
    m_parameters->setObjectName(u"sweepParameters"_s);
    m_parameters->setHorizontalHeaderLabels({tr("Parameter"), tr("Distribution"), tr("Min"), tr("Max"), tr("Values")});
    m_parameters->horizontalHeader()->setStretchLastSection(true);
    m_parameters->verticalHeader()->hide();
    m_parameters->setMinimumHeight(140);
    m_maxTrials->setRange(0, 100000);
    m_maxTrials->setSpecialValueText(tr("every combination (grid)"));
    m_maxTrials->setValue(20);
    m_maxParallel->setRange(1, 1024);
    m_maxParallel->setValue(2);
    m_stopping->addItems({u"none"_s, u"median"_s, u"asha"_s, u"bandit"_s});
    m_minSteps->setRange(0, 100000000);
    m_seed->setRange(0, std::numeric_limits<int>::max());
    m_preview->setReadOnly(true);
    m_preview->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_preview->setObjectName(u"sweepPreview"_s);
    m_preview->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_problems->setWordWrap(true);
    m_problems->setObjectName(u"sweepProblems"_s);
    m_estimate->setObjectName(u"sweepEstimate"_s);
    m_estimate->setWordWrap(true);
    m_estimate->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto *form = new QFormLayout;
    form->addRow(tr("Name:"), m_name);
    form->addRow(tr("Script:"), m_script);
    form->addRow(tr("Environment:"), m_environment);
    form->addRow(tr("Target:"), m_target);
    form->addRow(tr("Target options:"), m_options);
    form->addRow(tr("Fixed:"), m_fixed);
    form->addRow(tr("Method:"), m_method);
    auto *metric = new QHBoxLayout;
    metric->addWidget(m_metric, 1);
    metric->addWidget(m_goal);
    metric->addWidget(m_summary);
    form->addRow(tr("Metric:"), metric);
    auto *add = new QPushButton(tr("Add Parameter"), this);
    auto *remove = new QPushButton(tr("Remove"), this);
    auto *parameterButtons = new QHBoxLayout;
    parameterButtons->addWidget(add);
    parameterButtons->addWidget(remove);
    parameterButtons->addStretch();
    auto *limits = new QHBoxLayout;
    limits->addWidget(new QLabel(tr("Trials:"), this));
    limits->addWidget(m_maxTrials);
    limits->addWidget(new QLabel(tr("At once:"), this));
    limits->addWidget(m_maxParallel);
    limits->addWidget(new QLabel(tr("Seed:"), this));
    limits->addWidget(m_seed);
    auto *stopping = new QHBoxLayout;
    stopping->addWidget(m_stopping);
    stopping->addWidget(new QLabel(tr("from step"), this));
    stopping->addWidget(m_minSteps);
    stopping->addStretch();
    form->addRow(tr("Early stopping:"), stopping);

    auto *left = new QWidget(this);
    auto *leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->addLayout(form);
    leftLayout->addWidget(new QLabel(tr("Parameters (Values: a, b, c or [\"64,32\", \"128,64\"]):"), this));
    leftLayout->addWidget(m_parameters, 1);
    leftLayout->addLayout(parameterButtons);
    leftLayout->addLayout(limits);
    auto *right = new QWidget(this);
    auto *rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(0, 0, 0, 0);
    rightLayout->addWidget(new QLabel(tr("The sweep file:"), this));
    rightLayout->addWidget(m_preview, 1);
    rightLayout->addWidget(m_problems);
    rightLayout->addWidget(m_estimate);
    auto *split = new QSplitter(this);
    split->addWidget(left);
    split->addWidget(right);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Cancel, this);
    buttons->addButton(m_start, QDialogButtonBox::AcceptRole);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(split, 1);
    layout->addWidget(buttons);
    resize(1000, 640);

    connect(add, &QPushButton::clicked, this,
            [this] { addParameterRow(sweep::Parameter::range(u"lr"_s, sweep::Distribution::LogUniform, 1e-5, 1e-1)); });
    connect(remove, &QPushButton::clicked, this, [this] {
        if (m_parameters->currentRow() >= 0)
            m_parameters->removeRow(m_parameters->currentRow());
        updatePreview();
    });
    connect(buttons->button(QDialogButtonBox::Save), &QPushButton::clicked, this, [this] {
        if (save())
            accept();
    });
    connect(m_start, &QPushButton::clicked, this, &SweepDialog::saveAndStart);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    previewEveryChange();
    addParameterRow(sweep::Parameter::range(u"lr"_s, sweep::Distribution::LogUniform, 1e-5, 1e-1));
    updatePreview();
}

void SweepDialog::previewEveryChange()
{
    connect(m_parameters, &QTableWidget::cellChanged, this, &SweepDialog::updatePreview);
    for (QLineEdit *edit : {m_name, m_environment, m_target, m_options, m_fixed, m_metric})
        connect(edit, &QLineEdit::textChanged, this, &SweepDialog::updatePreview);
    for (QComboBox *box : {m_script, m_method, m_goal, m_summary, m_stopping})
        connect(box, &QComboBox::currentTextChanged, this, &SweepDialog::updatePreview);
    for (QSpinBox *box : {m_maxTrials, m_maxParallel, m_minSteps, m_seed})
        connect(box, &QSpinBox::valueChanged, this, &SweepDialog::updatePreview);
}

void SweepDialog::addParameterRow(const sweep::Parameter &p)
{
    const QSignalBlocker blocker(m_parameters);
    const int row = m_parameters->rowCount();
    m_parameters->insertRow(row);
    m_parameters->setItem(row, ParameterNameColumn, new QTableWidgetItem(p.name));
    auto *distribution = new QComboBox(m_parameters);
    distribution->addItems(kDistributions);
    distribution->setCurrentText(sweep::distributionName(p.distribution));
    connect(distribution, &QComboBox::currentTextChanged, this, &SweepDialog::updatePreview);
    m_parameters->setCellWidget(row, DistributionColumn, distribution);
    const bool values = p.distribution == sweep::Distribution::Values;
    m_parameters->setItem(row, MinColumn, new QTableWidgetItem(values ? QString() : QString::number(p.min, 'g', 10)));
    m_parameters->setItem(row, MaxColumn, new QTableWidgetItem(values ? QString() : QString::number(p.max, 'g', 10)));
    m_parameters->setItem(row, ValuesColumn, new QTableWidgetItem(valuesText(p.values)));
    updatePreview();
}

void SweepDialog::setSpec(const sweep::SweepSpec &spec, const QString &name)
{
    m_name->setText(name);
    m_script->setCurrentText(spec.script);
    m_environment->setText(spec.environment);
    m_target->setText(spec.target);
    m_options->setText(sweep::targetOptionsText(spec.targetOptions));
    QStringList fixed;
    for (const run::Hyperparameter &h : spec.fixed)
        fixed << h.name + u'=' + h.value;
    m_fixed->setText(fixed.join(u' '));
    m_method->setCurrentText(sweep::methodName(spec.method));
    m_metric->setText(spec.metric);
    m_goal->setCurrentIndex(spec.goal == sweep::Goal::Minimize ? 0 : 1);
    m_summary->setCurrentIndex(spec.summary == sweep::Summary::Last ? 0 : 1);
    m_parameters->setRowCount(0);
    for (const sweep::Parameter &p : spec.parameters)
        addParameterRow(p);
    m_maxTrials->setValue(spec.maxTrials);
    m_maxParallel->setValue(spec.maxParallel);
    m_stopping->setCurrentIndex(int(spec.earlyStopping.rule));
    m_minSteps->setValue(int(spec.earlyStopping.minSteps));
    m_seed->setValue(int(spec.seed));
    updatePreview();
}

sweep::SweepSpec SweepDialog::spec() const
{
    sweep::SweepSpec s;
    s.script = m_script->currentText().trimmed();
    s.environment = m_environment->text().trimmed();
    s.target = m_target->text().trimmed().isEmpty() ? u"local"_s : m_target->text().trimmed();
    if (const auto options = sweep::targetOptionsFromText(m_options->text()))
        s.targetOptions = *options; // else problems() says why
    for (const QString &pair : m_fixed->text().split(u' ', Qt::SkipEmptyParts)) {
        const qsizetype eq = pair.indexOf(u'=');
        s.fixed.append({eq < 0 ? pair : pair.left(eq), eq < 0 ? QString() : pair.mid(eq + 1)});
    }
    s.method = m_method->currentIndex() == 1   ? sweep::Method::Grid
               : m_method->currentIndex() == 2 ? sweep::Method::Bayes
                                               : sweep::Method::Random;
    s.metric = m_metric->text().trimmed();
    s.goal = m_goal->currentIndex() == 0 ? sweep::Goal::Minimize : sweep::Goal::Maximize;
    s.summary = m_summary->currentIndex() == 0 ? sweep::Summary::Last : sweep::Summary::Best;
    for (int row = 0; row < m_parameters->rowCount(); ++row) {
        const auto text = [&](int column) {
            const QTableWidgetItem *item = m_parameters->item(row, column);
            return item ? item->text().trimmed() : QString();
        };
        const auto *box = qobject_cast<QComboBox *>(m_parameters->cellWidget(row, DistributionColumn));
        const auto distribution = sweep::Distribution(std::max(0, box ? box->currentIndex() : 0));
        if (distribution == sweep::Distribution::Values)
            s.parameters << sweep::Parameter::list(text(ParameterNameColumn), valuesOf(text(ValuesColumn)));
        else
            s.parameters << sweep::Parameter::range(text(ParameterNameColumn), distribution, text(MinColumn).toDouble(),
                                                    text(MaxColumn).toDouble());
    }
    s.maxTrials = m_maxTrials->value();
    s.maxParallel = m_maxParallel->value();
    s.earlyStopping.rule = sweep::StoppingRule(m_stopping->currentIndex());
    s.earlyStopping.minSteps = m_minSteps->value();
    s.seed = quint64(m_seed->value());
    return s;
}

QString SweepDialog::yaml() const
{
    return sweep::toSweepYaml(spec());
}

QString SweepDialog::filePath() const
{
    return m_workspace.sweepFilesDir() + u'/' + m_name->text().trimmed() + u".yml"_s;
}

QString SweepDialog::problems() const
{
    QStringList lines;
    static const QRegularExpression name(u"^[A-Za-z0-9_.-]+$"_s);
    if (!name.match(m_name->text().trimmed()).hasMatch())
        lines << tr("error: a sweep's name is letters, digits, '-', '_' and '.' (its file is sweeps/NAME.yml)");
    if (const auto options = sweep::targetOptionsFromText(m_options->text()); !options)
        lines << u"error: "_s + options.error().message + u" ("_s + options.error().hint + u')';
    const QString relative = u"sweeps/"_s + m_name->text().trimmed() + u".yml"_s;
    for (const Diagnostic &d : sweep::parseSweepYaml(yaml(), relative).diagnostics)
        lines << d.toString();
    return lines.join(u'\n');
}

void SweepDialog::updatePreview()
{
    m_preview->setPlainText(yaml());
    const QString text = problems();
    m_problems->setText(text.isEmpty() ? tr("The file is ready: %1").arg(filePath()) : text);
    const bool errors = text.contains(u"error:"_s);
    m_problems->setStyleSheet(errors ? u"color: #b00020;"_s : QString());
    m_start->setEnabled(!errors);
    // The estimate, as `ferry sweep plan` gives it (the launch dialog's rule, for every trial).
    const auto base = errors ? Expected<run::RunSpec>(Error{tr("the file has errors"), {}, 0, 0, {}})
                             : sweep::trialTemplate(spec(), filePath(), m_workspace.root());
    if (!base)
        m_estimate->setText(tr("estimate: none (%1)").arg(base.error().message));
    else
        m_estimate->setText(sweep::sweepEstimateText(spec(), sweep::estimateTrials(spec(), *base, m_history, m_rates)));
}

void SweepDialog::setEstimateSource(const QList<run::RunRecord> &history, const cost::Rates &rates)
{
    m_history = history;
    m_rates = rates;
    updatePreview();
}

bool SweepDialog::save()
{
    const QString text = problems();
    if (text.contains(u"error:"_s)) {
        QMessageBox::warning(this, tr("Sweep"), text);
        return false;
    }
    QDir().mkpath(m_workspace.sweepFilesDir());
    QSaveFile file(filePath());
    if (!file.open(QIODevice::WriteOnly) || file.write(yaml().toUtf8()) < 0 || !file.commit()) {
        QMessageBox::warning(this, tr("Sweep"), tr("Cannot write %1: %2").arg(filePath(), file.errorString()));
        return false;
    }
    return true;
}

void SweepDialog::saveAndStart()
{
    if (!save())
        return;
    const QString text = yaml();
    const auto state = sweep::startSweep(m_workspace, filePath(), text.toUtf8(), spec(), m_ferryProgram);
    if (!state) {
        QMessageBox::warning(this, tr("Sweep"), state.error().toString());
        return;
    }
    Q_EMIT started(state->id);
    accept();
}

} // namespace ferry::ui
