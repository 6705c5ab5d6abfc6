#include "ui/window/firstframeprobe.h"

#include "common/processclock.h"

#include <QCoreApplication>
#include <QEvent>
#include <QTimer>
#include <QWidget>

#include <cstdio>

namespace ferry::ui {

void FirstFrameProbe::install(QWidget &window)
{
    window.installEventFilter(new FirstFrameProbe(&window));
}

bool FirstFrameProbe::eventFilter(QObject *watched, QEvent *event)
{
    if (event->type() == QEvent::Paint && !m_seen) {
        m_seen = true;
        // Measure once the paint has been handled and flushed, on the next loop turn.
        QTimer::singleShot(0, this, [] {
            const auto ms = millisecondsSinceProcessStart();
            if (ms)
                std::printf("first frame: %.0f ms after process start\n", *ms);
            else
                std::printf("first frame: unknown (no /proc)\n");
            std::fflush(stdout);
            QCoreApplication::exit(0);
        });
    }
    return QObject::eventFilter(watched, event);
}

} // namespace ferry::ui
