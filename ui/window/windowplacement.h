// Where the main window sits and how its docks share the width, kept from one start to the next.
#pragma once

#include <QList>
#include <QPair>

class QDockWidget;
class QMainWindow;
class QSettings;

namespace ferry::ui {

// Where the main window sits and how its docks share the width. The next start restores what
// the last one left; the first start opens maximised (sized to fit the screen for when it is
// restored, and for window managers that do not maximise) with narrow docks, so the chart in the
// centre is the largest thing in the window.
class WindowPlacement {
public:
    // `docks`: each side dock with its share of the window's width on first start.
    WindowPlacement(QMainWindow &window, QSettings &settings, QList<QPair<QDockWidget *, double>> docks);

    // Before the first show: the saved geometry and dock layout, or the first start's.
    void restore();
    // On the first show (dock widths need the laid-out window): the first start's dock widths.
    void shown();
    // On close: the geometry and dock layout for the next start.
    void save();

    bool isFirstStart() const { return m_firstStart; }

private:
    QMainWindow &m_window;
    QSettings &m_settings;
    QList<QPair<QDockWidget *, double>> m_docks;
    bool m_firstStart = false;
    bool m_shown = false;
};

} // namespace ferry::ui
