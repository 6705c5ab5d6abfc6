// The window's compare and reproduce actions (issue 19): the compare view (ui/compare/) for the
// runs selected in the table, and "Re-run exactly" (the code of a run's snapshot, as `ferry runs
// rerun`), from the Run menu, the runs table's context menu and the details pane.
#include "ui/window/mainwindow.h"

#include "ui/compare/compareview.h"
#include "ui/runs/runactions.h"
#include "ui/runs/runsview.h"
#include "ui/train/trainpanel.h"

#include <QAction>
#include <QKeySequence>
#include <QMenu>
#include <QTableView>

using namespace Qt::StringLiterals;

namespace ferry::ui {

void MainWindow::compareRuns(const QStringList &runIds)
{
    if (!store() || runIds.size() < 2) {
        reportProblem(Error{tr("Select two or more runs in the runs table to compare them (the first one selected "
                               "is the baseline)"),
                            {},
                            0,
                            0,
                            {}});
        return;
    }
    if (!m_compareView) {
        m_compareView = new CompareView(this);
        m_compareView->setObjectName(u"compareView"_s);
        m_compareView->setWindowFlag(Qt::Window);
        m_compareView->resize(1280, 820);
        connect(m_compareView, &CompareView::problem, this, &MainWindow::reportProblem);
    }
    m_compareView->setWindowTitle(tr("Compare %n run(s) — %1", nullptr, int(runIds.size())).arg(m_workspace->name()));
    m_compareView->setStore(store(), runsDir());
    m_compareView->compare(runIds);
    m_compareView->show();
    m_compareView->raise();
    m_compareView->activateWindow();
}

void MainWindow::rerunExactly(const QString &runId)
{
    const auto row = m_rows.constFind(runId);
    if (runId.isEmpty() || row == m_rows.constEnd()) {
        reportProblem(Error{tr("Select the run to re-run in the runs table"), {}, 0, 0, {}});
        return;
    }
    // The embedded trainer has no code to keep: its settings and data are the run.
    if (const auto spec = run::RunSpec::fromJson(row->record.spec);
        spec && spec->target.kind == run::TargetKind::Embedded) {
        if (m_train->isTraining()) {
            reportProblem(Error{tr("A training is under way: re-run %1 once it ends").arg(runId), {}, 0, 0, {}});
            return;
        }
        m_sideTabs->setCurrentWidget(m_train);
        m_train->trainAgain(*spec, runId);
        return;
    }
    m_actions->rerunExactly(row->record);
}

void MainWindow::addCompareActions(QMenu *runMenu)
{
    runMenu->addSeparator();
    runMenu->addAction(tr("&Compare Selected Runs"), this, [this] { compareRuns(m_runs->selectedRunIds()); })
        ->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_D));
    runMenu->addAction(tr("Re-run E&xactly"), this, [this] { rerunExactly(m_runs->currentRunId()); })
        ->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E));
    // The runs table's own menu: the same, and a re-run with changes.
    QTableView *table = m_runs->table();
    table->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(table, &QWidget::customContextMenuRequested, this, [this, table](const QPoint &at) {
        const QStringList selected = m_runs->selectedRunIds();
        const QString current = m_runs->currentRunId();
        QMenu menu(this);
        QAction *compare = menu.addAction(tr("Compare %n Run(s)", nullptr, int(selected.size())), this,
                                          [this, selected] { compareRuns(selected); });
        compare->setEnabled(selected.size() >= 2);
        menu.addSeparator();
        QAction *exact = menu.addAction(tr("Re-run Exactly"), this, [this, current] { rerunExactly(current); });
        QAction *changes = menu.addAction(tr("Re-run with Changes…"), this, [this, current] {
            if (const auto spec = run::RunSpec::fromJson(m_rows.value(current).record.spec))
                rerun(*spec);
        });
        for (QAction *one : {exact, changes})
            one->setEnabled(!current.isEmpty());
        menu.exec(table->viewport()->mapToGlobal(at));
    });
}

} // namespace ferry::ui
