#include "ui/cost/costsview.h"

#include "common/durationtext.h"
#include "cost/kernelcost.h"
#include "cost/money.h"
#include "kernelhost/kernelhost.h"

#include <QComboBox>
#include <QDateEdit>
#include <QDateTime>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QtConcurrent>

#include <cmath>

using namespace Qt::StringLiterals;

namespace ferry::ui {

namespace {

QString costsTimeText(double seconds)
{
    return ferry::durationText(qint64(std::llround(seconds * 1000)));
}

QTableWidgetItem *costsCell(const QString &text, bool right = false, const QString &tip = {})
{
    auto *item = new QTableWidgetItem(text);
    if (right)
        item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    item->setToolTip(tip);
    return item;
}

} // namespace

CostsView::CostsView(QWidget *parent)
    : QWidget(parent), m_grouping(new QComboBox(this)), m_since(new QDateEdit(this)), m_table(new QTableWidget(this)),
      m_total(new QLabel(this))
{
    setObjectName(u"costsView"_s);
    setWindowTitle(tr("Costs"));
    m_grouping->setObjectName(u"costsGrouping"_s);
    m_grouping->addItem(tr("Each run"));
    m_grouping->addItem(tr("Target"), int(cost::Grouping::Target));
    m_grouping->addItem(tr("Sweep"), int(cost::Grouping::Sweep));
    m_grouping->addItem(tr("Tag"), int(cost::Grouping::Tag));
    m_grouping->addItem(tr("Month"), int(cost::Grouping::Month));
    m_since->setObjectName(u"costsSince"_s);
    m_since->setCalendarPopup(true);
    m_since->setDisplayFormat(u"yyyy-MM-dd"_s);
    m_since->setDate(QDate(QDate::currentDate().year(), 1, 1));
    m_since->setMinimumDate(QDate(2000, 1, 1));
    auto *refreshButton = new QPushButton(tr("Refresh"), this);
    m_table->setObjectName(u"costsTable"_s);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setAlternatingRowColors(true);
    m_table->verticalHeader()->hide();
    m_total->setObjectName(u"costsTotal"_s);
    m_total->setWordWrap(true);
    m_total->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto *note =
        new QLabel(tr("In %1, each run at the rate recorded when it was launched (a run of an earlier Ferry, and a "
                      "kernel, at the rates set now: Settings › Rates). "
                      "A time with + is a run or kernel still going. The same on the command line: "
                      "ferry cost report --by target|sweep|tag|month.")
                       .arg(QString(cost::kCurrency)),
                   this);
    note->setWordWrap(true);
    auto *bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Show"), this));
    bar->addWidget(m_grouping);
    bar->addSpacing(12);
    bar->addWidget(new QLabel(tr("Started since"), this));
    bar->addWidget(m_since);
    bar->addStretch(1);
    bar->addWidget(refreshButton);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(m_table, 1);
    layout->addWidget(m_total);
    layout->addWidget(note);
    connect(m_grouping, &QComboBox::currentIndexChanged, this, &CostsView::showRows);
    connect(m_since, &QDateEdit::dateChanged, this, &CostsView::refresh);
    connect(refreshButton, &QPushButton::clicked, this, &CostsView::refresh);
    connect(&m_watcher, &QFutureWatcher<QList<cost::RunCost>>::finished, this, [this] {
        m_rows = m_watcher.result();
        showRows();
        if (std::exchange(m_again, false))
            refresh();
        else
            Q_EMIT loaded();
    });
}

CostsView::~CostsView()
{
    m_watcher.waitForFinished();
}

void CostsView::setSource(run::RunStore *store, const QString &kernelsDir, const QString &ferryBinary,
                          const cost::Rates &rates)
{
    m_watcher.waitForFinished();
    m_store = store;
    m_kernelsDir = kernelsDir;
    m_ferry = ferryBinary;
    m_rates = rates;
    refresh();
}

QList<cost::RunCost> CostsView::load(const run::RunStore &store, const QString &kernelsDir, const QString &ferryBinary,
                                     const cost::Rates &rates, qint64 sinceMs, qint64 nowMs)
{
    QList<run::RunRecord> records = store.runs();
    if (!kernelsDir.isEmpty()) {
        for (const kernels::KernelSession &k : kernels::kernelSessions(kernelsDir, ferryBinary))
            records << cost::kernelRecord(k.id, k.spec, k.startedMs, k.finishedMs);
    }
    return cost::costReport(records, rates, sinceMs, nowMs);
}

void CostsView::refresh()
{
    if (m_watcher.isRunning()) {
        m_again = true;
        return;
    }
    if (!m_store) {
        m_rows.clear();
        showRows();
        return;
    }
    const qint64 since = QDateTime(m_since->date(), QTime(0, 0)).toMSecsSinceEpoch();
    m_watcher.setFuture(
        QtConcurrent::run([store = m_store, dir = m_kernelsDir, ferry = m_ferry, rates = m_rates, since] {
            return load(*store, dir, ferry, rates, since, QDateTime::currentMSecsSinceEpoch());
        }));
}

void CostsView::showRows()
{
    m_table->clearContents();
    const QVariant grouping = m_grouping->currentData();
    if (grouping.isValid())
        showGroups(cost::Grouping(grouping.toInt()));
    else
        showRuns();
    // Each column as wide as its cells, so that a run's or a group's numbers sit beside its name and
    // beside each other; each run's rate source, text read from its start, takes the rest of the
    // width (a group's last column is a number: the rest is left empty, not a gap before it).
    QHeaderView *header = m_table->horizontalHeader();
    for (int c = 0; c < m_table->columnCount(); ++c)
        header->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    header->setStretchLastSection(!grouping.isValid());
    const cost::CostGroup total = cost::totalCost(m_rows);
    QString text = tr("Total: %1 (runs and kernels), %2, %3")
                       .arg(total.runs)
                       .arg(costsTimeText(total.seconds), cost::moneyText(total.cost));
    if (total.unpriced > 0)
        text += tr(" — and %1 at an unknown rate, not counted: set a rate in Settings › Rates").arg(total.unpriced);
    m_total->setText(text);
}

void CostsView::showRuns()
{
    m_table->setColumnCount(6);
    m_table->setHorizontalHeaderLabels(
        {tr("Run"), tr("Target"), tr("Time"), tr("Rate"), tr("Cost"), tr("Rate source")});
    m_table->setRowCount(int(m_rows.size()));
    for (int i = 0; i < m_rows.size(); ++i) {
        const cost::RunCost &r = m_rows[i];
        const auto c = r.cost();
        const QString source =
            r.rate ? (r.rate->isDefault ? r.rate->rate.source : r.rate->target + u", "_s + r.rate->rate.source)
                   : tr("no rate for this target: Settings › Rates");
        m_table->setItem(i, 0, costsCell(r.run));
        m_table->setItem(i, 1, costsCell(r.target));
        m_table->setItem(i, 2, costsCell(costsTimeText(r.seconds) + (r.running ? u"+"_s : QString()), true));
        m_table->setItem(i, 3, costsCell(r.rate ? cost::priceText(r.rate->perHour()) + u"/h"_s : tr("unknown"), true));
        m_table->setItem(i, 4, costsCell(c ? cost::moneyText(*c) : tr("unknown"), true, source));
        m_table->setItem(i, 5, costsCell(source));
    }
}

void CostsView::showGroups(cost::Grouping grouping)
{
    const QList<cost::CostGroup> groups = cost::groupCosts(m_rows, grouping);
    m_table->setColumnCount(5);
    m_table->setHorizontalHeaderLabels(
        {m_grouping->currentText(), tr("Runs"), tr("Time"), tr("Cost"), tr("At an unknown rate")});
    m_table->setRowCount(int(groups.size()));
    for (int i = 0; i < groups.size(); ++i) {
        const cost::CostGroup &g = groups[i];
        const QString costText = g.unpriced == g.runs
                                     ? tr("unknown")
                                     : cost::moneyText(g.cost) + (g.unpriced > 0 ? tr(" + unknown") : QString());
        m_table->setItem(i, 0, costsCell(g.name));
        m_table->setItem(i, 1, costsCell(QString::number(g.runs), true));
        m_table->setItem(i, 2, costsCell(costsTimeText(g.seconds), true));
        m_table->setItem(i, 3, costsCell(costText, true));
        m_table->setItem(i, 4, costsCell(QString::number(g.unpriced), true));
    }
}

} // namespace ferry::ui
