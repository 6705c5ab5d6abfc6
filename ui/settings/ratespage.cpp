#include "ui/settings/ratespage.h"

#include "cost/money.h"

#include <QComboBox>
#include <QCompleter>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalBlocker>
#include <QTableWidget>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace ferry::ui {

namespace {

enum RateColumn { kRateTarget, kRateAmount, kRateUnit, kRateSource, kRateColumns };

// A catalog row as the page offers it: "aws g5.xlarge (1 × A10G), us-east-1: 1.006 USD/h, 2026-12-07".
QString catalogLabel(const cost::CatalogEntry &e)
{
    const QString gpus = e.acceleratorName.isEmpty()
                             ? QString()
                             : u" (%1 × %2)"_s.arg(QString::number(e.acceleratorCount), e.acceleratorName);
    return u"%1 %2%3, %4: %5, %6"_s.arg(e.cloud, e.instanceType, gpus, e.region,
                                        e.price ? cost::priceText(*e.price) + u"/h"_s : u"no price"_s, e.dateText());
}

} // namespace

RatesPage::RatesPage(const cost::Rates &rates, cost::PriceCatalog catalog, const QStringList &hosts, QWidget *parent)
    : QWidget(parent), m_table(new QTableWidget(0, kRateColumns, this)), m_target(new QLineEdit(this)),
      m_add(new QPushButton(tr("Add"), this)), m_remove(new QPushButton(tr("Remove"), this)),
      m_useCatalog(new QPushButton(tr("Use for the selected target"), this)), m_catalogBox(new QComboBox(this)),
      m_problem(new QLabel(this)), m_month(new QLineEdit(this)), m_workspaceMonth(new QLineEdit(this)),
      m_catalog(std::move(catalog))
{
    auto *explain = new QLabel(tr("What an hour costs where runs run, in %1 (the price catalog's currency), shown "
                                  "beside every estimate and in 'ferry cost report'. A target without a rate has an "
                                  "unknown cost, never 0; this machine (local, container and embedded runs) costs "
                                  "nothing until you set its rate. A Slurm partition may cost per GPU-hour.")
                                   .arg(cost::kCurrency),
                               this);
    explain->setWordWrap(true);
    m_table->setObjectName(u"rates"_s);
    m_table->setHorizontalHeaderLabels({tr("Target"), tr("Amount (%1)").arg(cost::kCurrency), tr("Per"), tr("Source")});
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->verticalHeader()->setVisible(false);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    for (auto it = rates.cbegin(); it != rates.cend(); ++it)
        addRow(it.key(), *it);
    m_table->resizeColumnsToContents();

    m_target->setObjectName(u"newRateTarget"_s);
    m_target->setPlaceholderText(tr("local, ssh:HOST, slurm:HOST, slurm:HOST/PARTITION or kernel:TARGET"));
    QStringList offered{u"local"_s};
    for (const QString &host : hosts)
        offered << u"ssh:"_s + host << u"slurm:"_s + host;
    m_target->setCompleter(new QCompleter(offered, m_target));
    m_catalogBox->setObjectName(u"catalog"_s);
    for (int i = 0; i < m_catalog.entries.size(); ++i)
        m_catalogBox->addItem(catalogLabel(m_catalog.entries.at(i)), i);
    m_catalogBox->setToolTip(tr("Prices as of each row's date, from the cloud's public pricing page: check them "
                                "before money depends on them"));
    m_problem->setObjectName(u"ratesProblem"_s);
    m_problem->setWordWrap(true);
    m_problem->setStyleSheet(u"color: #c62828;"_s);

    auto *addRowLayout = new QHBoxLayout;
    addRowLayout->addWidget(m_target, 1);
    addRowLayout->addWidget(m_add);
    addRowLayout->addWidget(m_remove);
    auto *catalogRow = new QHBoxLayout;
    catalogRow->addWidget(new QLabel(tr("From the catalog:"), this));
    catalogRow->addWidget(m_catalogBox, 1);
    catalogRow->addWidget(m_useCatalog);
    m_month->setObjectName(u"monthBudget"_s);
    m_month->setPlaceholderText(tr("none (an amount in %1, e.g. 200, or hours, e.g. 100h)").arg(cost::kCurrency));
    m_month->setToolTip(tr("Once this calendar month's runs and kernels of a workspace have cost this (at their "
                           "rates) or taken these hours, new runs are refused (ferry budget show); for every "
                           "workspace without a budget of its own"));
    m_workspaceMonth->setObjectName(u"workspaceMonthBudget"_s);
    m_workspaceMonth->setToolTip(tr("This workspace's own budget for a month, kept in it (.ferry/budget.json): "
                                    "empty, the default holds; none, no budget here"));
    auto *monthRows = new QFormLayout;
    monthRows->addRow(tr("This workspace's month:"), m_workspaceMonth);
    monthRows->addRow(tr("Default month, every workspace:"), m_month);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(explain);
    layout->addWidget(m_table, 1);
    layout->addLayout(addRowLayout);
    layout->addLayout(catalogRow);
    layout->addLayout(monthRows);
    layout->addWidget(m_problem);
    connect(m_month, &QLineEdit::textChanged, this, &RatesPage::check);
    connect(m_workspaceMonth, &QLineEdit::textChanged, this, &RatesPage::check);
    setWorkspaceMonthBudget(false, {});

    connect(m_add, &QPushButton::clicked, this, &RatesPage::add);
    connect(m_target, &QLineEdit::returnPressed, this, &RatesPage::add);
    connect(m_remove, &QPushButton::clicked, this, [this] {
        m_table->removeRow(m_table->currentRow());
        check();
    });
    connect(m_useCatalog, &QPushButton::clicked, this, &RatesPage::useCatalog);
    connect(m_table, &QTableWidget::itemChanged, this, [this](QTableWidgetItem *item) {
        if (item->column() == kRateAmount) { // typed in: the user's own amount now
            const QSignalBlocker blocker(m_table);
            m_table->item(item->row(), kRateSource)->setText(QString(cost::kSetByYou));
        }
        check();
    });
    check();
}

void RatesPage::addRow(const QString &target, const cost::Rate &rate)
{
    const QSignalBlocker blocker(m_table);
    const int row = m_table->rowCount();
    m_table->insertRow(row);
    m_table->setItem(row, kRateTarget, new QTableWidgetItem(target));
    m_table->setItem(row, kRateAmount, new QTableWidgetItem(cost::plainAmount(rate.amount)));
    auto *unit = new QComboBox(m_table);
    unit->addItem(tr("hour"), int(cost::RateUnit::Hour));
    unit->addItem(tr("GPU-hour"), int(cost::RateUnit::GpuHour));
    unit->setCurrentIndex(rate.unit == cost::RateUnit::GpuHour ? 1 : 0);
    connect(unit, &QComboBox::currentIndexChanged, this, &RatesPage::check);
    m_table->setCellWidget(row, kRateUnit, unit);
    auto *source = new QTableWidgetItem(rate.source);
    source->setFlags(source->flags() & ~Qt::ItemIsEditable);
    m_table->setItem(row, kRateSource, source);
}

void RatesPage::add()
{
    const auto target = cost::checkRateTarget(m_target->text());
    if (!target) {
        m_problem->setText(target.error().toString());
        return;
    }
    for (int row = 0; row < m_table->rowCount(); ++row) {
        if (m_table->item(row, kRateTarget)->text().trimmed() == *target) {
            m_table->selectRow(row);
            m_target->clear();
            return;
        }
    }
    addRow(*target, cost::Rate{0, cost::RateUnit::Hour, QString(cost::kSetByYou)});
    m_table->selectRow(m_table->rowCount() - 1);
    m_table->editItem(m_table->item(m_table->rowCount() - 1, kRateAmount));
    m_target->clear();
    check();
}

void RatesPage::useCatalog()
{
    const int row = m_table->currentRow();
    const int index = m_catalogBox->currentData().toInt();
    if (row < 0 || index < 0 || index >= m_catalog.entries.size()) {
        m_problem->setText(tr("Select the target the catalog's price is for"));
        return;
    }
    const auto rate = cost::catalogRate(m_catalog.entries.at(index), false);
    if (!rate) {
        m_problem->setText(rate.error().toString());
        return;
    }
    {
        const QSignalBlocker blocker(m_table);
        m_table->item(row, kRateAmount)->setText(cost::plainAmount(rate->amount));
        m_table->item(row, kRateSource)->setText(rate->source);
        qobject_cast<QComboBox *>(m_table->cellWidget(row, kRateUnit))->setCurrentIndex(0);
    }
    check();
}

RatesPage::Edited RatesPage::rates() const
{
    Edited edited;
    for (int row = 0; row < m_table->rowCount(); ++row) {
        const QString target = m_table->item(row, kRateTarget)->text();
        bool ok = false;
        const QString amountText = m_table->item(row, kRateAmount)->text().trimmed();
        const double amount = amountText.toDouble(&ok);
        const auto *unit = qobject_cast<QComboBox *>(m_table->cellWidget(row, kRateUnit));
        const cost::Rate rate{amount, cost::RateUnit(unit->currentData().toInt()),
                              m_table->item(row, kRateSource)->text()};
        const auto checked = cost::checkRate(target, rate);
        if (!ok) {
            edited.problems << Error{tr("%1: '%2' is not an amount").arg(target.trimmed(), amountText),
                                     {},
                                     0,
                                     0,
                                     tr("write a number of %1, e.g. 2.50").arg(cost::kCurrency)};
        } else if (!checked) {
            edited.problems << checked.error();
        } else if (edited.rates.contains(*checked)) {
            edited.problems << Error{tr("%1 is listed twice: the first row counts").arg(*checked), {}, 0, 0, {}};
        } else {
            edited.rates.insert(*checked, rate);
        }
    }
    return edited;
}

void RatesPage::setMonthBudget(const std::optional<cost::MonthBudget> &budget)
{
    m_month->setText(budget ? cost::monthBudgetText(*budget) : QString());
}

Expected<std::optional<cost::MonthBudget>> RatesPage::monthBudget() const
{
    if (m_month->text().trimmed().isEmpty())
        return std::optional<cost::MonthBudget>();
    const auto budget = cost::parseMonthBudget(m_month->text());
    if (!budget)
        return budget.error();
    return std::optional<cost::MonthBudget>(*budget);
}

void RatesPage::setWorkspaceMonthBudget(bool open, const OwnMonthBudget &own)
{
    m_workspaceMonth->setEnabled(open);
    m_workspaceMonth->setText(!own ? QString() : *own ? cost::monthBudgetText(**own) : u"none"_s);
    m_workspaceMonth->setPlaceholderText(open ? tr("the default below (or an amount, hours, or none)")
                                              : tr("open a workspace to give it its own"));
}

Expected<RatesPage::OwnMonthBudget> RatesPage::workspaceMonthBudget() const
{
    const QString text = m_workspaceMonth->text().trimmed();
    if (text.isEmpty())
        return OwnMonthBudget();
    const auto budget = cost::parseOwnMonthBudget(text);
    if (!budget)
        return budget.error();
    return OwnMonthBudget(*budget);
}

void RatesPage::check()
{
    const Edited edited = rates();
    const auto month = monthBudget();
    const auto own = workspaceMonthBudget();
    m_problem->setText(!edited.problems.isEmpty() ? edited.problems.first().toString()
                       : !own                     ? own.error().toString()
                       : !month                   ? month.error().toString()
                                                  : QString());
    m_remove->setEnabled(m_table->currentRow() >= 0 || m_table->rowCount() > 0);
}

} // namespace ferry::ui
