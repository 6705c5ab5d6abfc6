// The Costs window (ui/cost/costsview.h) over a store of runs: each run at its recorded rate, and a
// table laid out to be read, each run's or group's numbers beside its name rather than across a gap.
#include "support/runhistory.h"
#include "support/storefolders.h"
#include "support/testmain.h"
#include "ui/cost/costsview.h"

#include <QComboBox>
#include <QDateTime>
#include <QHeaderView>
#include <QLabel>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTest>

using namespace Qt::StringLiterals;

namespace {

// The widest text of a column (its header's or a cell's), as the table's font draws it.
int widestText(const QTableWidget *table, int column)
{
    int widest = table->fontMetrics().horizontalAdvance(table->horizontalHeaderItem(column)->text());
    for (int row = 0; row < table->rowCount(); ++row)
        widest = std::max(widest, table->fontMetrics().horizontalAdvance(table->item(row, column)->text()));
    return widest;
}

} // namespace

class TestCostsView : public QObject {
    Q_OBJECT

    ferry::test::StoreFolders m_folders;

private Q_SLOTS:
    void numbersSitBesideTheirNames()
    {
        auto store = ferry::test::openStore(m_folders.freshPath());
        QVERIFY(store);
        const qint64 start = QDateTime::currentMSecsSinceEpoch() - 7200 * 1000;
        store->createRun(ferry::test::pastRecord(
            {u"20261207-100000-train-aaaa"_s, u"t.py"_s, u"local"_s, {}, start, 3600}, u"/src"_s));
        store->createRun(ferry::test::pastRecord(
            {u"20261207-110000-train-bbbb"_s, u"t.py"_s, u"ssh:gpu1"_s, {}, start + 1000, 1800}, u"/src"_s));
        store->flush();
        ferry::ui::CostsView view;
        view.resize(960, 600);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QSignalSpy loaded(&view, &ferry::ui::CostsView::loaded);
        view.setSource(store.get(), {}, {},
                       {{u"local"_s, ferry::cost::Rate{3.6, ferry::cost::RateUnit::Hour, u"set by you"_s}}});
        QVERIFY(loaded.wait(10000));
        QTableWidget *table = view.table();
        QCOMPARE(table->rowCount(), 2);
        QCOMPARE(table->item(0, 4)->text(), u"3.60 USD"_s);
        QCOMPARE(table->item(1, 4)->text(), u"unknown"_s); // an SSH host without a rate: never 0
        QVERIFY(view.totalLabel()->text().contains(u"1 at an unknown rate"_s));
        QHeaderView *header = table->horizontalHeader();
        // Per run: the run's column no wider than its id, the rate's source (text) taking the rest.
        QVERIFY2(header->sectionSize(0) <= widestText(table, 0) + 40,
                 qPrintable(u"%1 for an id of %2"_s.arg(header->sectionSize(0)).arg(widestText(table, 0))));
        const int last = table->columnCount() - 1;
        QCOMPARE(header->sectionPosition(last) + header->sectionSize(last), table->viewport()->width());
        // Grouped: the group's numbers next to its name; what is left is left empty, past the numbers.
        view.groupingBox()->setCurrentIndex(1); // by target
        QCOMPARE(table->columnCount(), 5);
        QCOMPARE(table->rowCount(), 2);
        QVERIFY2(header->sectionSize(0) <= widestText(table, 0) + 40,
                 qPrintable(u"%1 for names of %2"_s.arg(header->sectionSize(0)).arg(widestText(table, 0))));
        QVERIFY(header->sectionPosition(4) + header->sectionSize(4) < table->viewport()->width() / 2);
    }
};

FERRY_TEST_MAIN(TestCostsView)
#include "tst_costsview.moc"
