#include "ui/analysis/scatterplot.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>

using namespace Qt::StringLiterals;

namespace ferry::ui {

namespace {

constexpr double kRadius = 4.5;
constexpr double kInset = 8;   // between the frame and the outermost points
constexpr int kMostNamed = 12; // highlighted points named beside them

// Where in its category's band a run's point lies: the same for the same key each time
// (FNV-1a, not Qt's seeded hash), across the middle half of the band.
double spread(const QString &key, const PlotAxis &axis)
{
    if (axis.categories.isEmpty())
        return 0;
    quint32 h = 2166136261u;
    for (const QChar c : key) {
        h ^= c.unicode();
        h *= 16777619u;
    }
    return (double(h % 1001) / 1000.0 - 0.5) * 0.5 / double(axis.categories.size());
}

} // namespace

QPointF plotPoint(const QRectF &area, double x, double y)
{
    return {area.left() + x * area.width(), area.bottom() - y * area.height()};
}

QRectF plotArea(const QRectF &frame)
{
    return frame.adjusted(kInset, kInset, -kInset, -kInset);
}

void drawPlotFrame(QPainter &p, const QRectF &frame, const PlotAxis &x, const PlotAxis &y, bool compact)
{
    p.save();
    const QRectF area = plotArea(frame);
    const QFontMetricsF fm(p.font());
    const auto xTicks = x.ticks(std::max(2, int(area.width() / 90)), compact);
    const auto yTicks = y.ticks(std::max(2, int(area.height() / 40)), compact);
    if (!compact) {
        p.setPen(QColor(236, 236, 236));
        for (const PlotAxis::Tick &t : xTicks)
            p.drawLine(QPointF(plotPoint(area, t.at, 0).x(), frame.top()),
                       QPointF(plotPoint(area, t.at, 0).x(), frame.bottom()));
        for (const PlotAxis::Tick &t : yTicks)
            p.drawLine(QPointF(frame.left(), plotPoint(area, 0, t.at).y()),
                       QPointF(frame.right(), plotPoint(area, 0, t.at).y()));
    }
    p.setPen(QColor(150, 150, 150));
    p.setBrush(Qt::NoBrush); // only the frame: a brush left by the dots would paint it solid
    p.drawRect(frame);
    p.setPen(QColor(100, 100, 100));
    const double columnWidth = std::max(40.0, area.width() / double(std::max<std::size_t>(1, xTicks.size())));
    for (std::size_t i = 0; i < xTicks.size(); ++i) {
        const double px = plotPoint(area, xTicks[i].at, 0).x();
        p.drawLine(QPointF(px, frame.bottom()), QPointF(px, frame.bottom() + 3));
        const QString text = fm.elidedText(xTicks[i].label, Qt::ElideRight, columnWidth - 4);
        // In a compact plot the ends lean inwards, so that they stay under the frame.
        const Qt::Alignment align = !compact                                      ? Qt::AlignHCenter
                                    : i == 0 && xTicks.size() > 1                 ? Qt::AlignLeft
                                    : i + 1 == xTicks.size() && xTicks.size() > 1 ? Qt::AlignRight
                                                                                  : Qt::AlignHCenter;
        const double left = align == Qt::AlignLeft    ? frame.left()
                            : align == Qt::AlignRight ? frame.right() - columnWidth
                                                      : px - columnWidth / 2;
        p.drawText(QRectF(left, frame.bottom() + 3, columnWidth, fm.height()), static_cast<int>(align | Qt::AlignTop),
                   text);
    }
    const double labelWidth = std::max(20.0, frame.left() - 6);
    for (const PlotAxis::Tick &t : yTicks) {
        const double py = plotPoint(area, 0, t.at).y();
        p.drawLine(QPointF(frame.left() - 3, py), QPointF(frame.left(), py));
        p.drawText(QRectF(frame.left() - 5 - labelWidth, py - fm.height() / 2, labelWidth, fm.height()),
                   Qt::AlignRight | Qt::AlignVCenter, fm.elidedText(t.label, Qt::ElideLeft, labelWidth));
    }
    p.restore();
}

ScatterPlot::ScatterPlot(QWidget *parent) : QWidget(parent), m_emptyText(tr("Nothing to draw yet"))
{
    setMinimumSize(320, 240);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setMouseTracking(true);
}

void ScatterPlot::setContent(const PlotAxis &x, const PlotAxis &y, std::vector<ScatterPoint> points,
                             std::optional<ColorScale> scale)
{
    m_x = x;
    m_y = y;
    m_points = std::move(points);
    m_scale = std::move(scale);
    update();
}

void ScatterPlot::setHighlighted(const QSet<QString> &keys)
{
    m_highlighted = keys;
    update();
}

void ScatterPlot::setEmptyText(const QString &text)
{
    m_emptyText = text;
    update();
}

QRectF ScatterPlot::frame() const
{
    const QFontMetricsF fm(font());
    const double left = std::clamp(fm.horizontalAdvance(u"-0.0000e-00"_s), 56.0, 96.0);
    const double top = fm.height() + 14;        // the y axis's name and the colour legend above
    const double bottom = 2 * fm.height() + 17; // the x ticks' labels and the x axis's name below
    return QRectF(left, top, width() - left - 16, height() - top - bottom);
}

QPointF ScatterPlot::placeOf(const ScatterPoint &point) const
{
    return plotPoint(plotArea(frame()), point.x + spread(point.key, m_x), point.y + spread(point.key + u'y', m_y));
}

std::optional<QPointF> ScatterPlot::pointPosition(const QString &key) const
{
    for (const ScatterPoint &point : m_points) {
        if (point.key == key)
            return placeOf(point);
    }
    return std::nullopt;
}

QString ScatterPlot::keyAt(const QPointF &at) const
{
    QString nearest;
    double best = kRadius + 2;
    // Drawn last, on top: asked first.
    for (auto it = m_points.crbegin(); it != m_points.crend(); ++it) {
        const QPointF d = placeOf(*it) - at;
        if (const double distance = std::hypot(d.x(), d.y()); distance < best) {
            best = distance;
            nearest = it->key;
        }
    }
    return nearest;
}

void ScatterPlot::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    m_scaleBar = {};
    const QRectF box = frame();
    if (m_points.empty() || box.width() < 40 || box.height() < 40) {
        p.setPen(QColor(120, 120, 120));
        p.drawText(rect().adjusted(12, 12, -12, -12), Qt::AlignCenter | Qt::TextWordWrap, m_emptyText);
        return;
    }
    p.setRenderHint(QPainter::Antialiasing);
    drawPlotFrame(p, box, m_x, m_y, false);
    const QFontMetricsF fm(font());
    // The axes' names: y above the frame on the left, x below its ticks in the middle.
    QFont bold = font();
    bold.setBold(true);
    p.setFont(bold);
    p.setPen(QColor(60, 60, 60));
    p.drawText(QRectF(box.left(), box.bottom() + fm.height() + 6, box.width(), fm.height() + 2), Qt::AlignCenter,
               m_x.title());
    p.drawText(QRectF(8, box.top() - fm.height() - 6, box.width() / 2, fm.height() + 2),
               Qt::AlignLeft | Qt::AlignVCenter, m_y.title());
    p.setFont(font());
    if (m_scale)
        m_scaleBar =
            drawColorScale(p, QRectF(box.center().x(), 4, box.right() - box.center().x(), fm.height() + 4), *m_scale);
    p.setPen(Qt::NoPen);
    p.save();
    p.setClipRect(box.adjusted(-1, -1, 1, 1));
    for (const ScatterPoint &point : m_points) {
        if (m_highlighted.contains(point.key))
            continue;
        p.setPen(QPen(point.color.darker(140), 0.8));
        p.setBrush(point.color);
        p.drawEllipse(placeOf(point), kRadius, kRadius);
    }
    // The runs selected in the table, on top, ringed and named (a few: more would hide the plot).
    int named = 0;
    for (const ScatterPoint &point : m_points) {
        if (!m_highlighted.contains(point.key))
            continue;
        const QPointF at = placeOf(point);
        p.setPen(QPen(Qt::black, 2));
        p.setBrush(point.color);
        p.drawEllipse(at, kRadius + 1.5, kRadius + 1.5);
        if (++named > kMostNamed)
            continue;
        const QString name = fm.elidedText(point.label, Qt::ElideMiddle, 260);
        const double w = fm.horizontalAdvance(name) + 6;
        // Right of the point, or left of it near the right edge.
        const double left = at.x() + kRadius + 6 + w > box.right() ? at.x() - kRadius - 6 - w : at.x() + kRadius + 6;
        const QRectF label(left, at.y() - fm.height() / 2 - 1, w, fm.height() + 2);
        p.setPen(Qt::NoPen);
        p.setBrush(QColor(255, 255, 255, 220));
        p.drawRoundedRect(label, 3, 3);
        p.setPen(QColor(30, 30, 30));
        p.drawText(label, Qt::AlignCenter, name);
    }
    p.restore();
}

void ScatterPlot::mouseMoveEvent(QMouseEvent *event)
{
    setCursor(keyAt(event->position()).isEmpty() ? Qt::ArrowCursor : Qt::PointingHandCursor);
}

void ScatterPlot::mouseReleaseEvent(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton)
        return;
    if (const QString key = keyAt(event->position()); !key.isEmpty())
        Q_EMIT pointClicked(key);
}

bool ScatterPlot::event(QEvent *event)
{
    if (event->type() == QEvent::ToolTip) {
        auto *help = static_cast<QHelpEvent *>(event);
        const QString key = keyAt(help->pos());
        const auto it = std::find_if(m_points.cbegin(), m_points.cend(),
                                     [&](const ScatterPoint &point) { return point.key == key; });
        if (it != m_points.cend())
            QToolTip::showText(help->globalPos(), u"<b>%1</b><br>%2"_s.arg(it->label.toHtmlEscaped(), it->tip), this);
        else
            QToolTip::hideText();
        return true;
    }
    return QWidget::event(event);
}

} // namespace ferry::ui
