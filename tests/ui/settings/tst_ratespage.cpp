// The settings' Rates page: the rates shown as set, a target added and priced by hand or from the
// catalog (its date in the source), and what cannot be a rate said on the page, never stored.
#include "support/testmain.h"
#include "ui/settings/ratespage.h"

#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using ferry::cost::Rate;
using ferry::cost::RateUnit;
using ferry::ui::RatesPage;

class TestRatesPage : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void ratesAreEditedAndTakenFromTheCatalog()
    {
        QTemporaryDir none;
        const ferry::cost::Rates set{{u"local"_s, Rate{3.6, RateUnit::Hour, u"set by you"_s}},
                                     {u"slurm:hpc/gpu"_s, Rate{1.2, RateUnit::GpuHour, u"the centre"_s}}};
        RatesPage page(set, ferry::cost::loadPriceCatalog(none.path()), {u"gpu-box"_s});
        QCOMPARE(page.rates().rates, set);
        QVERIFY(page.rates().problems.isEmpty());
        QVERIFY(page.catalogBox()->count() >= 36);

        // Added by hand: 0 until typed, then the amount typed, the user's.
        page.targetEdit()->setText(u"ssh:gpu-box"_s);
        page.addButton()->click();
        QCOMPARE(page.table()->rowCount(), 3);
        page.table()->item(2, 1)->setText(u"2.5"_s);
        QCOMPARE(page.rates().rates.value(u"ssh:gpu-box"_s), (Rate{2.5, RateUnit::Hour, u"set by you"_s}));

        // From the catalog: its price, and its instance, region and date as the source.
        const int p3 = page.catalogBox()->findText(u"aws p3.2xlarge (1 × V100), us-east-1: 3.06 USD/h, 2026-12-07"_s);
        QVERIFY(p3 >= 0);
        page.catalogBox()->setCurrentIndex(p3);
        page.table()->selectRow(2);
        page.useCatalogButton()->click();
        const Rate taken = page.rates().rates.value(u"ssh:gpu-box"_s);
        QCOMPARE(taken.amount, 3.06);
        QCOMPARE(taken.source, u"aws p3.2xlarge in us-east-1, on demand, catalog of 2026-12-07"_s);

        // A target that is none, and a GPU-hour rate for an SSH host: said, left out.
        page.targetEdit()->setText(u"container"_s);
        page.addButton()->click();
        QCOMPARE(page.table()->rowCount(), 3);
        QVERIFY2(page.problemLabel()->text().contains(u"this machine"_s), qPrintable(page.problemLabel()->text()));
        qobject_cast<QComboBox *>(page.table()->cellWidget(2, 2))->setCurrentIndex(1);
        QVERIFY2(page.problemLabel()->text().contains(u"GPU-hour"_s), qPrintable(page.problemLabel()->text()));
        QVERIFY(!page.rates().rates.contains(u"ssh:gpu-box"_s));
        page.table()->item(1, 1)->setText(u"lots"_s);
        QCOMPARE(page.rates().problems.size(), 2);

        // Removed: no rate, unknown again.
        page.table()->selectRow(0);
        page.removeButton()->click();
        QVERIFY(!page.rates().rates.contains(u"local"_s));
    }

    // The month's budget (docs/cost.md): shown as set, read back, and what is not one said.
    void theMonthsBudgetIsEditedOnThePage()
    {
        QTemporaryDir none;
        RatesPage page({}, ferry::cost::loadPriceCatalog(none.path()), {});
        QVERIFY(!page.monthBudget()->has_value());
        page.setMonthBudget(*ferry::cost::parseMonthBudget(u"200"_s));
        QCOMPARE(page.monthBudgetEdit()->text(), u"200.00 USD"_s);
        QCOMPARE(page.monthBudget()->value().amount, 200.0);
        page.monthBudgetEdit()->setText(u"100h"_s);
        QVERIFY(page.monthBudget()->value().kind == ferry::cost::MonthBudget::Kind::Time);
        QVERIFY(page.problemLabel()->text().isEmpty());
        page.monthBudgetEdit()->setText(u"lots"_s);
        QVERIFY(!page.monthBudget());
        QVERIFY2(page.problemLabel()->text().contains(u"'lots' is not a month's budget"_s),
                 qPrintable(page.problemLabel()->text()));
    }

    // The open workspace's own month (kept in it): empty, the default holds; "none", none there;
    // without a workspace the field is off.
    void theWorkspacesOwnMonthIsEditedOnThePage()
    {
        QTemporaryDir none;
        RatesPage page({}, ferry::cost::loadPriceCatalog(none.path()), {});
        QVERIFY(!page.workspaceMonthBudgetEdit()->isEnabled());
        page.setWorkspaceMonthBudget(true, RatesPage::OwnMonthBudget());
        QVERIFY(page.workspaceMonthBudgetEdit()->isEnabled());
        QVERIFY(page.workspaceMonthBudgetEdit()->placeholderText().startsWith(u"the default"_s));
        QVERIFY(!page.workspaceMonthBudget()->has_value()); // the default
        page.setWorkspaceMonthBudget(true, RatesPage::OwnMonthBudget(std::optional<ferry::cost::MonthBudget>()));
        QCOMPARE(page.workspaceMonthBudgetEdit()->text(), u"none"_s);
        QVERIFY(page.workspaceMonthBudget()->has_value() && !page.workspaceMonthBudget()->value().has_value());
        page.workspaceMonthBudgetEdit()->setText(u"50h"_s);
        QCOMPARE(page.workspaceMonthBudget()->value()->amount, 50.0);
        page.workspaceMonthBudgetEdit()->setText(u"fifty"_s);
        QVERIFY(!page.workspaceMonthBudget());
        QVERIFY2(page.problemLabel()->text().contains(u"'fifty' is not a month's budget"_s),
                 qPrintable(page.problemLabel()->text()));
    }
};

FERRY_TEST_MAIN(TestRatesPage)
#include "tst_ratespage.moc"
