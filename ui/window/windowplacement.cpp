#include "ui/window/windowplacement.h"

#include "common/setting.h"

#include <QDockWidget>
#include <QMainWindow>
#include <QScreen>
#include <QStyle>

namespace ferry::ui {

namespace {
const Setting<QByteArray> kGeometry{"mainWindow/geometry"};
const Setting<QByteArray> kDockState{"mainWindow/state"};
constexpr double kScreenShare = 0.9; // of the available screen, when the window is not maximised
} // namespace

WindowPlacement::WindowPlacement(QMainWindow &window, QSettings &settings, QList<QPair<QDockWidget *, double>> docks)
    : m_window(window), m_settings(settings), m_docks(std::move(docks))
{
}

void WindowPlacement::restore()
{
    const QByteArray geometry = kGeometry.get(m_settings);
    m_firstStart = geometry.isEmpty() || !m_window.restoreGeometry(geometry);
    if (!m_firstStart) {
        m_window.restoreState(kDockState.get(m_settings));
        return;
    }
    // A size that fits the screen (a fixed one overflows a laptop's), centred, then maximised.
    if (const QScreen *screen = m_window.screen()) {
        const QRect available = screen->availableGeometry();
        const QSize size = (QSizeF(available.size()) * kScreenShare).toSize().expandedTo(m_window.minimumSizeHint());
        m_window.setGeometry(QStyle::alignedRect(Qt::LeftToRight, Qt::AlignCenter, size, available));
    }
    m_window.setWindowState(m_window.windowState() | Qt::WindowMaximized);
}

void WindowPlacement::shown()
{
    if (m_shown)
        return;
    m_shown = true;
    if (!m_firstStart)
        return;
    QList<QDockWidget *> docks;
    QList<int> widths;
    for (const auto &[dock, share] : std::as_const(m_docks)) {
        docks << dock;
        widths << static_cast<int>(m_window.width() * share);
    }
    m_window.resizeDocks(docks, widths, Qt::Horizontal);
}

void WindowPlacement::save()
{
    kGeometry.set(m_settings, m_window.saveGeometry());
    kDockState.set(m_settings, m_window.saveState());
}

} // namespace ferry::ui
