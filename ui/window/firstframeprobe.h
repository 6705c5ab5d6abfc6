// For start-up benchmarks: the milliseconds to the window's first paint, then quit.
#pragma once

#include <QObject>

class QWidget;

namespace ferry::ui {

// For start-up benchmarks: after the window's first paint, prints the milliseconds since
// the process started and quits the application with exit code 0.
class FirstFrameProbe : public QObject {
    Q_OBJECT
public:
    static void install(QWidget &window);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    explicit FirstFrameProbe(QObject *parent) : QObject(parent) {}
    bool m_seen = false;
};

} // namespace ferry::ui
