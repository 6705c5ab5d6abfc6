// Finding runs in the window (issue 19): the runs view's filter takes the query grammar
// (tracking/runquery.h), matched by the loader against a real store, with a bad query's column
// said below the box; the details pane edits a run's tags and note and saves them to the store.
#include "support/testmain.h"
#include "ui/runs/rundetailsview.h"
#include "ui/runs/runsview.h"

#include <QDir>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace ferry;

namespace {

run::RunRecord record(const QString &id, qint64 created)
{
    run::RunRecord r;
    r.id = id;
    r.name = u"train"_s;
    r.target = u"local"_s;
    r.status = run::RunStatus::Succeeded;
    r.createdMs = created;
    return r;
}

QStringList shownIds(const ui::RunsView &view)
{
    QStringList ids;
    for (int i = 0; i < view.proxy()->rowCount(); ++i)
        ids << view.proxy()->index(i, 0).data(ui::RunsModel::RunIdRole).toString();
    ids.sort();
    return ids;
}

} // namespace

class TestRunsQueryView : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_ws;
    std::unique_ptr<run::RunStore> m_store;

private Q_SLOTS:
    void init()
    {
        m_store.reset();
        QDir(m_ws.path()).removeRecursively();
        auto opened = run::RunStore::open(run::RunStore::pathInWorkspace(m_ws.path()));
        QVERIFY(opened);
        m_store = std::move(*opened);
        run::RunRecord a = record(u"a"_s, 1000);
        a.tags = {u"baseline"_s};
        m_store->createRun(a);
        m_store->createRun(record(u"b"_s, 2000));
        m_store->setParams(u"a"_s, {{u"lr"_s, u"0.1"_s}});
        m_store->setParams(u"b"_s, {{u"lr"_s, u"0.01"_s}});
        m_store->appendMetrics(u"a"_s, {{u"loss"_s, 0, 0.9, 1}, {u"loss"_s, 1, 0.2, 2}}, 1);
        m_store->flush();
    }

    void filterTakesTheQueryGrammar()
    {
        ui::RunsLoader loader;
        ui::RunsView view;
        connect(&loader, &ui::RunsLoader::loaded, &view, &ui::RunsView::setRows);
        connect(&view, &ui::RunsView::queryChanged, &loader, &ui::RunsLoader::setQuery);
        QSignalSpy loaded(&loader, &ui::RunsLoader::loaded);
        loader.setStore(m_store.get());
        QTRY_COMPARE(shownIds(view), (QStringList{u"a"_s, u"b"_s}));

        view.filterEdit()->setText(u"hp.lr < 0.05"_s);
        QTRY_COMPARE(shownIds(view), QStringList{u"b"_s});
        QVERIFY(view.filterError()->isHidden());
        view.filterEdit()->setText(u"tag = baseline and metrics.loss.min < 0.5"_s);
        QTRY_COMPARE(shownIds(view), QStringList{u"a"_s});

        // A query that does not parse says where, below the box, and filters nothing.
        view.filterEdit()->setText(u"hp.lr <"_s);
        QVERIFY(!view.filterError()->isHidden());
        QCOMPARE(view.filterError()->text(), u"column 8: expected a value after '<'"_s);
        QTRY_COMPARE(shownIds(view), (QStringList{u"a"_s, u"b"_s}));

        // Words stay words: any field contains them, the tags too.
        QVERIFY(!ui::RunsView::isQuery(u"baseline"_s));
        view.filterEdit()->setText(u"baseline"_s);
        QVERIFY(view.filterError()->isHidden());
        QTRY_COMPARE(shownIds(view), QStringList{u"a"_s});

        // A run tagged later is found on the next read.
        view.filterEdit()->setText(u"tag = paper"_s);
        QTRY_COMPARE(shownIds(view), QStringList());
        m_store->addTags(u"b"_s, {u"paper"_s});
        m_store->flush();
        loader.reload();
        QTRY_COMPARE(shownIds(view), QStringList{u"b"_s});
        view.filterEdit()->clear();
        QTRY_COMPARE(shownIds(view), (QStringList{u"a"_s, u"b"_s}));
    }

    void detailsEditTagsAndNote()
    {
        ui::RunDetailsView view;
        view.setStore(m_store.get(), m_ws.path());
        view.showRun(u"a"_s);
        QTRY_COMPARE(view.runId(), u"a"_s);
        QCOMPARE(view.tagsEdit()->text(), u"baseline"_s);
        QVERIFY(!view.saveNotesButton()->isEnabled());

        view.tagsEdit()->selectAll();
        QTest::keyClicks(view.tagsEdit(), u"baseline paper/fig3"_s);
        QTest::keyClicks(view.noteEdit(), u"lr too high"_s);
        QVERIFY(view.saveNotesButton()->isEnabled());
        QTest::mouseClick(view.saveNotesButton(), Qt::LeftButton);
        QVERIFY(!view.saveNotesButton()->isEnabled());
        m_store->flush();
        QCOMPARE(m_store->run(u"a"_s)->tags, (QStringList{u"baseline"_s, u"paper/fig3"_s}));
        QCOMPARE(m_store->run(u"a"_s)->note, u"lr too high"_s);

        // A tag that cannot be one is said in the pane; nothing is saved.
        QTest::keyClicks(view.tagsEdit(), u" it's"_s);
        QTest::mouseClick(view.saveNotesButton(), Qt::LeftButton);
        QVERIFY(!view.notesError()->isHidden());
        QVERIFY2(view.notesError()->text().contains(u"tag 'it's' has a character"_s),
                 qPrintable(view.notesError()->text()));
        m_store->flush();
        QCOMPARE(m_store->run(u"a"_s)->tags, (QStringList{u"baseline"_s, u"paper/fig3"_s}));

        // Another run shows its own; coming back shows what was saved.
        view.showRun(u"b"_s);
        QTRY_COMPARE(view.runId(), u"b"_s);
        QCOMPARE(view.tagsEdit()->text(), QString());
        QCOMPARE(view.noteEdit()->toPlainText(), QString());
        view.showRun(u"a"_s);
        QTRY_COMPARE(view.runId(), u"a"_s);
        QCOMPARE(view.tagsEdit()->text(), u"baseline paper/fig3"_s);
        QCOMPARE(view.noteEdit()->toPlainText(), u"lr too high"_s);
    }
};

FERRY_TEST_MAIN(TestRunsQueryView)
#include "tst_runsqueryview.moc"
