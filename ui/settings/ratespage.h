// RatesPage: the settings page of rates, what an hour of this machine, each SSH host, Slurm
// cluster or partition and kernel target costs, typed in or taken from the price catalog.
#pragma once

#include "common/error.h"
#include "cost/budget.h"
#include "cost/catalog.h"
#include "cost/rates.h"

#include <QList>
#include <QStringList>
#include <QWidget>

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTableWidget;

namespace ferry::ui {

// The rates page of the settings (docs/cost.md): a table of rate targets (local, ssh:HOST,
// slurm:HOST, slurm:HOST/PARTITION, kernel:TARGET) with an amount in USD, per hour or per
// GPU-hour, and its source; a field to add a target (the Hosts page's hosts offered), Remove,
// and a row of the price catalog (its price, region and date) to take for the selected target.
// A target left out has an unknown rate; this machine's is 0 until set.
class RatesPage : public QWidget {
    Q_OBJECT
public:
    RatesPage(const cost::Rates &rates, cost::PriceCatalog catalog, const QStringList &hosts,
              QWidget *parent = nullptr);

    // The rates as the table has them, and each row that cannot be one (its target or amount),
    // left out.
    struct Edited {
        cost::Rates rates;
        QList<Error> problems;
    };
    Edited rates() const;
    // The default budget for a month of every workspace without its own (docs/cost.md: `ferry budget
    // set month --default`): empty, none; an Error for a text that is not one.
    void setMonthBudget(const std::optional<cost::MonthBudget> &budget);
    Expected<std::optional<cost::MonthBudget>> monthBudget() const;
    QLineEdit *monthBudgetEdit() const { return m_month; }
    // The open workspace's own (`ferry budget set month`, cost::workspaceMonthBudget): nullopt (an
    // empty field) when the default holds there, "none" for none there; the field is disabled
    // without a workspace (`open` false).
    using OwnMonthBudget = std::optional<std::optional<cost::MonthBudget>>;
    void setWorkspaceMonthBudget(bool open, const OwnMonthBudget &own);
    Expected<OwnMonthBudget> workspaceMonthBudget() const;
    QLineEdit *workspaceMonthBudgetEdit() const { return m_workspaceMonth; }

    QTableWidget *table() const { return m_table; }
    QLineEdit *targetEdit() const { return m_target; }
    QPushButton *addButton() const { return m_add; }
    QPushButton *removeButton() const { return m_remove; }
    QComboBox *catalogBox() const { return m_catalogBox; }
    QPushButton *useCatalogButton() const { return m_useCatalog; }
    QLabel *problemLabel() const { return m_problem; }

private:
    void addRow(const QString &target, const cost::Rate &rate);
    void add();
    void useCatalog();
    void check();

    QTableWidget *m_table;
    QLineEdit *m_target;
    QPushButton *m_add, *m_remove, *m_useCatalog;
    QComboBox *m_catalogBox;
    QLabel *m_problem;
    QLineEdit *m_month;
    QLineEdit *m_workspaceMonth;
    cost::PriceCatalog m_catalog;
};

} // namespace ferry::ui
