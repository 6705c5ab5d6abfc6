// The window's sweeps: the sweep form and the sweeps window (ui/sweep/), wired to the open
// workspace's run store and to the launch dialog ("Re-run best with…").
#include "ui/window/mainwindow.h"

#include "ui/sweep/sweepdialog.h"
#include "ui/sweep/sweepview.h"

#include <QMessageBox>

using namespace Qt::StringLiterals;

namespace ferry::ui {

void MainWindow::showSweeps(const QString &sweepId)
{
    if (!m_workspace) {
        QMessageBox::information(this, tr("Sweeps"), tr("Open a workspace first: its sweeps are shown here."));
        return;
    }
    if (!m_sweepView) {
        m_sweepView = new SweepView(this);
        m_sweepView->setWindowFlag(Qt::Window);
        m_sweepView->resize(1280, 760);
        connect(m_sweepView, &SweepView::rerunRequested, this, &MainWindow::rerun);
        connect(m_sweepView, &SweepView::problem, this, [this](const QString &text) {
            reportProblem(Error{text, {}, 0, 0, {}});
        });
    }
    m_sweepView->setWindowTitle(tr("Sweeps — %1").arg(m_workspace->name()));
    if (m_sweepView->currentSweep().isEmpty() || !m_sweepView->isVisible())
        m_sweepView->setWorkspace(*m_workspace, store(), m_services.ferryBinary);
    if (!sweepId.isEmpty())
        m_sweepView->showSweep(sweepId);
    m_sweepView->show();
    m_sweepView->raise();
    m_sweepView->activateWindow();
}

void MainWindow::openSweepForm()
{
    if (!m_workspace) {
        QMessageBox::information(this, tr("New Sweep"), tr("Open a workspace first: a sweep runs one of its scripts."));
        return;
    }
    SweepDialog dialog(*m_workspace, m_services.ferryBinary, this);
    connect(&dialog, &SweepDialog::started, this, [this](const QString &id) { showSweeps(id); });
    dialog.exec();
}

} // namespace ferry::ui
