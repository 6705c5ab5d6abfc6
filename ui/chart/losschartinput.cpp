// The loss chart's mouse: hover tooltip, rubber-band and wheel zoom, pan, legend clicks.
#include "ui/chart/losschart.h"

#include "ui/chart/chartaxis.h"
#include "ui/chart/losschartlayout.h"

#include <QDateTime>
#include <QMouseEvent>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

using namespace Qt::StringLiterals;

namespace ferry::ui {

QString LossChart::xText(double x) const
{
    switch (m_mode) {
    case XAxisMode::Step:
        return std::abs(x) < 1e15 ? tr("step %1").arg(std::llround(x)) : tr("step %1").arg(formatValue(x));
    case XAxisMode::Epoch:
        return tr("epoch %1").arg(formatValue(x));
    case XAxisMode::WallTime:
        return formatDuration(x);
    case XAxisMode::Clock:
        return QDateTime::fromMSecsSinceEpoch(qint64(std::llround(x * 1000))).toString(u"yyyy-MM-dd HH:mm:ss"_s);
    case XAxisMode::Metric:
        return u"%1 %2"_s.arg(m_xMetric, formatValue(x));
    }
    return formatValue(x);
}

QString LossChart::hoverText(const QPoint &pos) const
{
    updateLayout();
    for (const LegendEntry &e : m_layout->entries) {
        if (!e.rect.contains(pos))
            continue;
        switch (e.kind) {
        case LegendEntry::Run:
            return runLabel(e.key) + u'\n' + (isRunVisible(e.key) ? tr("Click to hide") : tr("Click to show"));
        case LegendEntry::Metric:
            return isGrouped() ? tr("%1: each group's %2").arg(e.key, statisticText())
                               : tr("%1: the lines drawn like this one").arg(e.key);
        case LegendEntry::Group: {
            QStringList names;
            for (const ChartGroup &group : m_groups) {
                if (group.key != e.key)
                    continue;
                for (const QString &run : group.runIds)
                    names << runLabel(run);
            }
            return e.text + u'\n' + names.join(u'\n') + u'\n' +
                   (isGroupVisible(e.key) ? tr("Click to hide") : tr("Click to show"));
        }
        case LegendEntry::More: {
            QStringList names;
            for (const QString &run : m_layout->moreRuns)
                names << runLabel(run);
            return tr("Not listed here (each is drawn):\n%1").arg(names.join(u'\n'));
        }
        }
    }
    if (m_layout->empty || !m_layout->plot.contains(pos))
        return {};
    const double x = xAtPixel(pos.x());
    // A run whose points end (or begin) further than a few pixels away has no value here.
    const double slack = 3 * (m_layout->x1 - m_layout->x0) / std::max(1, m_layout->plot.width() - 1);
    QStringList lines;
    lines << xText(logXShown() ? std::pow(10.0, x) : x);
    if (isGrouped()) {
        lines << groupHoverLines(x);
        return lines.size() > 1 ? lines.join(u'\n') : QString();
    }
    const std::vector<DrawnSeries> shown = shownSeries();
    const bool manyMetrics = std::any_of(shown.begin(), shown.end(),
                                         [&](const DrawnSeries &s) { return s.metricIndex != shown[0].metricIndex; });
    for (const QString &run : legendRuns()) {
        for (const DrawnSeries &s : shown) {
            if (s.runId != run)
                continue;
            const SeriesView v = viewOf(s, m_smoothing);
            if (v.size == 0)
                continue;
            const double *firstShown = logXShown() ? std::upper_bound(v.x, v.x + v.size, s.origin) : v.x;
            if (firstShown == v.x + v.size || x < toAxisX(s, *firstShown) - slack ||
                x > toAxisX(s, v.x[v.size - 1]) + slack)
                continue;
            const double target = toRawX(s, x);
            const qsizetype at = std::lower_bound(v.x, v.x + v.size, target) - v.x;
            const qsizetype before = v.summary->lastValid(v.y, 0, at, m_logY);
            const qsizetype after = v.summary->firstValid(v.y, at, v.size, m_logY);
            qsizetype best = before;
            if (after >= 0 && (before < 0 || v.x[after] - target < target - v.x[before]))
                best = after;
            if (best < 0)
                continue;
            const QString &metric = m_store->data(s.id).key().metric;
            const QString name = manyMetrics ? runLabel(run) + u" · "_s + metric : runLabel(run);
            lines << u"%1: %2 (%3)"_s.arg(name, formatValue(v.y[best], valueUnitOf(metric)),
                                          xText((v.x[best] - s.origin) / s.unit));
        }
    }
    return lines.size() > 1 ? lines.join(u'\n') : QString();
}

void LossChart::mousePressEvent(QMouseEvent *event)
{
    updateLayout();
    const QPoint pos = event->position().toPoint();
    m_pressPos = m_lastPos = pos;
    if (event->button() == Qt::LeftButton) {
        for (const LegendEntry &e : m_layout->entries) {
            if (e.kind == LegendEntry::Run && e.rect.contains(pos)) {
                setRunVisible(e.key, !isRunVisible(e.key));
                return;
            }
            if (e.kind == LegendEntry::Group && e.rect.contains(pos)) {
                setGroupVisible(e.key, !isGroupVisible(e.key));
                return;
            }
        }
    }
    if (!m_layout->plot.contains(pos))
        return;
    if (event->button() == Qt::MiddleButton ||
        (event->button() == Qt::LeftButton && (event->modifiers() & Qt::ShiftModifier)))
        m_drag = Drag::Pan;
    else if (event->button() == Qt::LeftButton)
        m_drag = Drag::Band;
}

void LossChart::mouseMoveEvent(QMouseEvent *event)
{
    const QPoint pos = event->position().toPoint();
    if (m_drag == Drag::Pan) {
        updateLayout();
        const Layout &l = *m_layout;
        const double dx = (pos.x() - m_lastPos.x()) * (l.x1 - l.x0) / std::max(1, l.plot.width() - 1);
        const double dy = (pos.y() - m_lastPos.y()) * (l.y1 - l.y0) / std::max(1, l.plot.height() - 1);
        m_xView = std::pair{l.x0 - dx, l.x1 - dx};
        m_yView = std::pair{l.y0 + dy, l.y1 + dy};
        m_lastPos = pos;
        changed(true);
        Q_EMIT viewChanged();
        return;
    }
    m_lastPos = pos;
    if (m_drag == Drag::Band) {
        update();
        return;
    }
    m_hoverPos = pos;
    QString run;
    std::optional<QString> group;
    updateLayout();
    for (const LegendEntry &e : m_layout->entries) {
        if (e.kind == LegendEntry::Run && e.rect.contains(pos))
            run = e.key;
        else if (e.kind == LegendEntry::Group && e.rect.contains(pos))
            group = e.key;
    }
    if (run != m_hoverRun) {
        m_hoverRun = run;
        Q_EMIT hoveredRun(run);
    }
    if (group != m_hoverGroup) {
        m_hoverGroup = group;
        Q_EMIT hoveredGroupChanged();
    }
    m_hoverText = hoverText(pos);
    if (m_hoverText.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(mapToGlobal(pos + QPoint(14, 14)), m_hoverText, this);
    update();
}

void LossChart::mouseReleaseEvent(QMouseEvent *event)
{
    const Drag drag = m_drag;
    m_drag = Drag::None;
    if (drag == Drag::Band) {
        const QRect band = QRect(m_pressPos, event->position().toPoint()).normalized() & plotRect();
        if (band.width() > 3 && band.height() > 3) {
            const double x0 = xAtPixel(band.left()), x1 = xAtPixel(band.right());
            const double y0 = yAtPixel(band.bottom()), y1 = yAtPixel(band.top());
            m_xView = std::pair{x0, x1};
            m_yView = std::pair{y0, y1};
            changed(true);
            Q_EMIT viewChanged();
            return;
        }
    }
    update();
}

void LossChart::mouseDoubleClickEvent(QMouseEvent *event)
{
    if (event->button() == Qt::LeftButton)
        resetZoom();
}

void LossChart::zoomX(double center, double factor)
{
    const auto [lo, hi] = xRange();
    setXRange(center + (lo - center) * factor, center + (hi - center) * factor);
}

void LossChart::zoomY(double center, double factor)
{
    const auto [lo, hi] = yRange();
    setYRange(center + (lo - center) * factor, center + (hi - center) * factor);
}

void LossChart::wheelEvent(QWheelEvent *event)
{
    // The plain wheel scrolls what holds the chart (the list of panels); Ctrl+wheel zooms.
    const double steps = event->angleDelta().y() / 120.0;
    if (!(event->modifiers() & Qt::ControlModifier) || steps == 0) {
        event->ignore();
        return;
    }
    const double factor = std::pow(0.8, steps);
    const QPointF pos = event->position();
    const QRect plot = plotRect();
    if (pos.x() < plot.left())
        zoomY(yAtPixel(pos.y()), factor);
    else
        zoomX(xAtPixel(pos.x()), factor);
    event->accept();
}

void LossChart::leaveEvent(QEvent *event)
{
    m_hoverPos = QPoint(-1, -1);
    m_hoverText.clear();
    if (!m_hoverRun.isEmpty()) {
        m_hoverRun.clear();
        Q_EMIT hoveredRun(QString());
    }
    if (m_hoverGroup) {
        m_hoverGroup.reset();
        Q_EMIT hoveredGroupChanged();
    }
    update();
    QWidget::leaveEvent(event);
}

} // namespace ferry::ui
