#include "ui/compare/compareview.h"

#include "snapshot/snapshot.h"
#include "tracking/runlabels.h"
#include "ui/chart/losschartpanel.h"
#include "ui/chart/seriesstore.h"
#include "ui/compare/comparepages.h"
#include "ui/compare/diffhighlighter.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QShortcut>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <limits>

using namespace Qt::StringLiterals;

namespace ferry::ui {

namespace {

QString changeMark(run::RunDiff::File::Change change)
{
    switch (change) {
    case run::RunDiff::File::Change::Added:
        return u"A"_s;
    case run::RunDiff::File::Change::Removed:
        return u"D"_s;
    case run::RunDiff::File::Change::Changed:
        break;
    }
    return u"M"_s;
}

QString gitLine(const run::RunRecord &record)
{
    const auto spec = run::RunSpec::fromJson(record.spec);
    if (!spec || !spec->snapshot || !spec->snapshot->git.repository)
        return QCoreApplication::translate("ferry::ui::CompareView", "not in git");
    const snapshot::GitState &git = spec->snapshot->git;
    return u"%1%2%3"_s.arg(
        git.commit.left(12), git.branch.isEmpty() ? QString() : u" ("_s + git.branch + u')',
        git.dirty ? QCoreApplication::translate("ferry::ui::CompareView", " with uncommitted changes") : QString());
}

} // namespace

CompareView::CompareView(QWidget *parent)
    : QWidget(parent), m_summary(new QLabel(this)), m_tabs(new QTabWidget(this)),
      m_allParameters(new QCheckBox(tr("Show all parameters"), this)), m_parameters(new QTableWidget(this)),
      m_against(new QComboBox(this)), m_codeNote(new QLabel(this)), m_files(new QListWidget(this)),
      m_diff(new QPlainTextEdit(this)), m_highlighter(new DiffHighlighter(m_diff->document())),
      m_environment(new QTreeWidget(this)), m_setup(new QTableWidget(this)), m_other(new QTreeWidget(this)),
      m_step(new QSpinBox(this)), m_metrics(new QTableWidget(this)), m_curves(new LossChartPanel(this))
{
    m_summary->setWordWrap(true);
    m_summary->setTextFormat(Qt::PlainText);
    m_allParameters->setObjectName(u"allParameters"_s);
    m_parameters->setObjectName(u"parameters"_s);
    m_environment->setObjectName(u"environment"_s);
    m_setup->setObjectName(u"setup"_s);
    m_other->setObjectName(u"otherDifferences"_s);
    for (QTableWidget *table : {m_parameters, m_setup})
        table->verticalHeader()->hide();

    auto *parametersPage = new QWidget(this);
    auto *parametersLayout = new QVBoxLayout(parametersPage);
    parametersLayout->addWidget(m_allParameters);
    parametersLayout->addWidget(m_parameters, 1);
    connect(m_allParameters, &QCheckBox::toggled, this, &CompareView::showParameters);

    auto *setupPage = new QSplitter(Qt::Vertical, this);
    setupPage->addWidget(m_setup);
    setupPage->addWidget(m_other);

    m_tabs->addTab(parametersPage, tr("Parameters"));
    m_tabs->addTab(buildCodePage(), tr("Code"));
    m_tabs->addTab(m_environment, tr("Environment"));
    m_tabs->addTab(setupPage, tr("Setup"));
    m_tabs->addTab(buildMetricsPage(), tr("Metrics"));

    // A window of its own: it closes as a dialog does, with Escape, Ctrl+W or its Close button
    // (review 2026-12-06, finding 11).
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    m_close = buttons->button(QDialogButtonBox::Close);
    m_close->setObjectName(u"closeCompare"_s);
    connect(buttons, &QDialogButtonBox::rejected, this, &QWidget::close);
    for (const QKeySequence &key : {QKeySequence(Qt::Key_Escape), QKeySequence(Qt::CTRL | Qt::Key_W)}) {
        auto *shortcut = new QShortcut(key, this);
        shortcut->setContext(Qt::WindowShortcut);
        connect(shortcut, &QShortcut::activated, this, &QWidget::close);
    }

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_summary);
    layout->addWidget(m_tabs, 1);
    layout->addWidget(buttons);
    connect(&m_watcher, &QFutureWatcher<Expected<Comparison>>::finished, this, &CompareView::read);
}

CompareView::~CompareView()
{
    m_watcher.waitForFinished();
}

QWidget *CompareView::buildCodePage()
{
    m_against->setObjectName(u"codeAgainst"_s);
    m_files->setObjectName(u"files"_s);
    m_diff->setObjectName(u"diff"_s);
    m_diff->setReadOnly(true);
    m_diff->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_diff->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_codeNote->setWordWrap(true);
    m_codeNote->setTextFormat(Qt::PlainText);
    m_codeNote->setTextInteractionFlags(Qt::TextSelectableByMouse);
    connect(m_against, &QComboBox::currentIndexChanged, this, &CompareView::showPair);
    connect(m_files, &QListWidget::currentRowChanged, this, &CompareView::showFile);

    auto *page = new QWidget(this);
    auto *top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Baseline against"), page));
    top->addWidget(m_against, 1);
    auto *split = new QSplitter(Qt::Horizontal, page);
    split->addWidget(m_files);
    split->addWidget(m_diff);
    split->setStretchFactor(1, 4);
    split->setSizes({200, 800});
    auto *layout = new QVBoxLayout(page);
    layout->addLayout(top);
    layout->addWidget(m_codeNote);
    layout->addWidget(split, 1);
    return page;
}

QWidget *CompareView::buildMetricsPage()
{
    m_metrics->setObjectName(u"metrics"_s);
    m_metrics->verticalHeader()->hide();
    m_step->setObjectName(u"step"_s);
    m_step->setRange(0, 0);
    m_step->setToolTip(tr("Each run's value at this step: its last point at or before it"));
    connect(m_step, &QSpinBox::valueChanged, this, &CompareView::showMetrics);

    auto *page = new QWidget(this);
    auto *top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Value at step"), page));
    top->addWidget(m_step);
    top->addStretch(1);
    auto *tablePart = new QWidget(page);
    auto *tableLayout = new QVBoxLayout(tablePart);
    tableLayout->setContentsMargins(0, 0, 0, 0);
    tableLayout->addLayout(top);
    tableLayout->addWidget(m_metrics, 1);
    auto *split = new QSplitter(Qt::Vertical, page);
    split->addWidget(tablePart);
    split->addWidget(m_curves);
    split->setStretchFactor(1, 2);
    split->setSizes({320, 480});
    auto *layout = new QVBoxLayout(page);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(split);
    return page;
}

void CompareView::setStore(run::RunStore *store, const QString &runsDir)
{
    m_watcher.waitForFinished();
    m_store = store;
    m_objectsDir = runsDir.isEmpty() ? QString() : snapshot::objectsDirFor(runsDir);
}

void CompareView::compare(const QStringList &runIds)
{
    m_requested = runIds;
    if (!m_store || runIds.size() < 2) {
        Q_EMIT problem(Error{tr("Select two or more runs to compare them"), {}, 0, 0, {}});
        return;
    }
    m_summary->setText(tr("Comparing %n run(s) …", nullptr, int(runIds.size())));
    if (m_watcher.isRunning()) {
        m_readAgain = true;
        return;
    }
    m_watcher.setFuture(QtConcurrent::run(
        [store = m_store, objects = m_objectsDir, runIds] { return loadComparison(*store, objects, runIds); }));
}

void CompareView::read()
{
    if (m_readAgain) {
        m_readAgain = false;
        compare(m_requested);
        return;
    }
    const Expected<Comparison> result = m_watcher.result();
    if (!result) {
        m_summary->setText(result.error().toString());
        Q_EMIT problem(withContext(tr("Compare"), result.error()));
        return;
    }
    showComparison(*result);
}

void CompareView::showComparison(const Comparison &comparison)
{
    m_comparison = comparison;
    QStringList others;
    for (qsizetype i = 1; i < comparison.runs.size(); ++i)
        others << comparison.runs.at(i).id;
    m_summary->setText(tr("Baseline %1, compared with %2").arg(comparison.runs.first().id, others.join(u", "_s)));
    showParameters();
    fillEnvironmentTree(m_environment, comparison);
    fillSetupTable(m_setup, comparison);
    fillOtherDifferences(m_other, comparison);
    {
        const QSignalBlocker block(m_step);
        m_step->setRange(0, int(std::min(comparison.lastStep(), double(std::numeric_limits<int>::max()))));
        m_step->setValue(m_step->maximum());
    }
    showMetrics();
    m_curves->setStore(comparison.chart);
    // Runs of one script share its name: the legend says what differs among them and ends with
    // the end of their ids, as the main window's does.
    for (qsizetype i = 0; i < comparison.runs.size(); ++i) {
        const QString &id = comparison.runs.at(i).id;
        const QString name = comparison.names.value(i, id);
        m_curves->chart()->setRunLabel(id, name == id ? id : name + u" ("_s + run::shortRunId(id) + u')');
    }
    {
        const QSignalBlocker block(m_against);
        m_against->clear();
        for (qsizetype i = 1; i < comparison.runs.size(); ++i)
            m_against->addItem(comparedRunLabel(comparison, int(i)).replace(u'\n', u' '));
    }
    showPair(0);
    Q_EMIT loaded();
}

void CompareView::showParameters()
{
    if (m_comparison)
        fillParameterTable(m_parameters, *m_comparison, m_allParameters->isChecked());
}

void CompareView::showMetrics()
{
    if (m_comparison)
        fillMetricTable(m_metrics, *m_comparison, m_step->value());
}

void CompareView::showPair(int index)
{
    m_files->clear();
    m_diff->clear();
    if (!m_comparison || index < 0 || index >= m_comparison->diffs.size())
        return;
    const run::RunDiff &diff = m_comparison->diffs.at(index);
    QString note =
        tr("%1: %2\n%3: %4")
            .arg(diff.a, gitLine(m_comparison->runs.first()), diff.b, gitLine(m_comparison->runs.at(index + 1)));
    if (!diff.codeKnown)
        note += u'\n' + diff.codeNote;
    else if (diff.files.isEmpty())
        note += u'\n' + tr("The same code: no file differs.");
    else
        note += u'\n' + tr("%n file(s) differ", nullptr, int(diff.files.size()));
    m_codeNote->setText(note);
    for (const run::RunDiff::File &file : diff.files)
        m_files->addItem(changeMark(file.change) + u"  "_s + file.path);
    if (!diff.files.isEmpty())
        m_files->setCurrentRow(0);
}

void CompareView::showFile(int row)
{
    if (!m_comparison || row < 0)
        return;
    const run::RunDiff &diff = m_comparison->diffs.at(std::max(0, m_against->currentIndex()));
    if (row >= diff.files.size())
        return;
    const run::RunDiff::File &file = diff.files.at(row);
    m_highlighter->setPython(file.path.endsWith(u".py"_s) || file.path.endsWith(u".pyi"_s));
    if (file.tooLarge)
        m_diff->setPlainText(file.path + u": "_s + file.tooLargeNote());
    else if (!file.text || file.unified.isEmpty())
        m_diff->setPlainText(tr("%1: a binary or large file (%2 → %3 bytes); its lines are not compared")
                                 .arg(file.path)
                                 .arg(file.sizeA)
                                 .arg(file.sizeB));
    else
        m_diff->setPlainText(file.unified);
}

} // namespace ferry::ui
