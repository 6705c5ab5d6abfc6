// Which cells are stale (core/notebook/celldependencies.h): a cell that ran and read a name, then
// another cell that ran after it bound the name again, above it or below; what Run Stale Cells
// runs, in the notebook's order.
#include "notebook/celldependencies.h"

#include "support/testmain.h"

#include <QTest>

using namespace Qt::StringLiterals;
using ferry::notebook::CellDependencies;
using ferry::notebook::CellNames;

namespace {

CellNames names(const QStringList &defines, const QStringList &reads)
{
    return {defines, reads, {}};
}

// The names of the sources the tests run (as the kernel would say them).
void know(CellDependencies &d)
{
    d.setNames(u"x = 1"_s, names({u"x"_s}, {}));
    d.setNames(u"x = 2"_s, names({u"x"_s}, {}));
    d.setNames(u"print(x)"_s, names({}, {u"print"_s, u"x"_s}));
    d.setNames(u"y = x * 2"_s, names({u"y"_s}, {u"x"_s}));
    d.setNames(u"print(y)"_s, names({}, {u"print"_s, u"y"_s}));
    d.setNames(u"print(z)"_s, names({}, {u"print"_s, u"z"_s}));
    d.setNames(u"x += 1"_s, names({u"x"_s}, {u"x"_s}));
}

} // namespace

class TestCellDependencies : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void aCellThatBindsAgainMakesItsReadersStale()
    {
        CellDependencies d;
        know(d);
        const QStringList cells{u"a"_s, u"b"_s, u"c"_s};
        d.started(u"a"_s, u"x = 1"_s);
        d.started(u"b"_s, u"print(x)"_s);
        d.started(u"c"_s, u"print(z)"_s);
        QVERIFY(d.stale(cells).isEmpty()); // run in order: nothing stale
        d.started(u"a"_s, u"x = 2"_s);
        const auto stale = d.stale(cells);
        QCOMPARE(stale.keys(), QStringList{u"b"_s});
        QCOMPARE(stale.value(u"b"_s), QStringList{u"x"_s});
        d.started(u"b"_s, u"print(x)"_s); // it ran again: it saw the new x
        QVERIFY(d.stale(cells).isEmpty());
    }

    // Above as well as below: a cell that ran, and read x, before a cell under it bound x.
    void aboveToo()
    {
        CellDependencies d;
        know(d);
        d.started(u"a"_s, u"x = 1"_s);
        d.started(u"b"_s, u"print(x)"_s);
        d.started(u"c"_s, u"x = 2"_s);
        QCOMPARE(d.stale({u"b"_s, u"a"_s, u"c"_s}).keys(), QStringList{u"b"_s});
    }

    // A cell that never ran in this kernel shows nothing of its state; a cell that reads and binds
    // x is not stale by its own run.
    void neverRanOrItsOwnRun()
    {
        CellDependencies d;
        know(d);
        d.started(u"a"_s, u"x = 1"_s);
        d.started(u"c"_s, u"x += 1"_s);
        d.started(u"a"_s, u"x = 2"_s);
        const auto stale = d.stale({u"a"_s, u"b"_s, u"c"_s}); // b never ran
        QCOMPARE(stale.keys(), QStringList{u"c"_s});
        d.started(u"c"_s, u"x += 1"_s);
        d.started(u"c"_s, u"x += 1"_s);
        QVERIFY(d.stale({u"a"_s, u"b"_s, u"c"_s}).isEmpty());
    }

    // Names come from the kernel later: until then nothing is stale, and the sources to ask for
    // are those of the runs (each once).
    void namesComeLater()
    {
        CellDependencies d;
        d.started(u"a"_s, u"x = 1"_s);
        d.started(u"b"_s, u"print(x)"_s);
        d.started(u"a"_s, u"x = 1"_s);
        QCOMPARE(d.sourcesWithoutNames(), (QStringList{u"print(x)"_s, u"x = 1"_s})); // by their last runs
        QVERIFY(d.stale({u"a"_s, u"b"_s}).isEmpty());
        know(d);
        QVERIFY(d.sourcesWithoutNames().isEmpty());
        QCOMPARE(d.stale({u"a"_s, u"b"_s}).keys(), QStringList{u"b"_s});
        d.clear(); // a restart: nothing ran in the new kernel
        QVERIFY(d.stale({u"a"_s, u"b"_s}).isEmpty());
        QVERIFY(!d.ran(u"a"_s));
    }

    // Run Stale Cells: the stale cells and what reads what they bind, transitively, in the
    // notebook's order; a cell that ran and reads nothing they bind stays.
    void whatRunStaleRuns()
    {
        CellDependencies d;
        know(d);
        const QStringList cells{u"a"_s, u"b"_s, u"c"_s, u"d"_s};
        d.started(u"a"_s, u"x = 1"_s);
        d.started(u"b"_s, u"y = x * 2"_s);
        d.started(u"c"_s, u"print(y)"_s);
        d.started(u"d"_s, u"print(z)"_s);
        d.started(u"a"_s, u"x = 2"_s);
        QCOMPARE(d.stale(cells).keys(), QStringList{u"b"_s});
        QCOMPARE(d.toRun(cells), (QStringList{u"b"_s, u"c"_s}));
        QCOMPARE(d.toRun({u"d"_s, u"c"_s, u"b"_s, u"a"_s}), (QStringList{u"c"_s, u"b"_s})); // the order given
    }
};

FERRY_TEST_APPLESS_MAIN(TestCellDependencies)
#include "tst_celldependencies.moc"
