#include "ui/analysis/parallelcoordinates.h"

#include "ui/chart/chartaxis.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>

using namespace Qt::StringLiterals;

namespace ferry::ui {

namespace {

constexpr int kNamesHeight = 28;  // the axes' names above
constexpr int kFooterHeight = 30; // the count and the colour scale below
constexpr int kSideRoom = 70;     // room for the first and last axis's labels
constexpr int kSmoothUpTo =
    200; // more lines: cosmetic ones without antialiasing (a thousand antialiased polylines take a second)
constexpr double kNearLine = 5; // how near the pointer must be to a line to name it

} // namespace

ParallelCoordinates::ParallelCoordinates(QWidget *parent) : QWidget(parent), m_emptyText(tr("Nothing to draw yet"))
{
    setMinimumSize(240, 160);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setMouseTracking(true);
}

void ParallelCoordinates::setData(PlotTable *table)
{
    m_data = table;
    update();
}

void ParallelCoordinates::setEmptyText(const QString &text)
{
    m_emptyText = text;
    update();
}

double ParallelCoordinates::axisX(int axis) const
{
    const int count = m_data ? int(m_data->axes().size()) : 1;
    const double left = kSideRoom, right = width() - kSideRoom;
    return count <= 1 ? (left + right) / 2 : left + (right - left) * axis / (count - 1);
}

std::pair<double, double> ParallelCoordinates::axisSpan() const
{
    return {double(kNamesHeight + 18), double(height() - kFooterHeight)};
}

double ParallelCoordinates::yOf(double position) const
{
    const auto [top, bottom] = axisSpan();
    return bottom - position * (bottom - top);
}

std::optional<int> ParallelCoordinates::axisAt(double x) const
{
    if (!m_data)
        return std::nullopt;
    for (int a = 0; a < int(m_data->axes().size()); ++a) {
        if (std::abs(axisX(a) - x) <= 14)
            return a;
    }
    return std::nullopt;
}

double ParallelCoordinates::positionAt(double y) const
{
    const auto [top, bottom] = axisSpan();
    return std::clamp((bottom - y) / (bottom - top), 0.0, 1.0);
}

std::optional<std::size_t> ParallelCoordinates::lineAt(const QPointF &at) const
{
    if (!m_data || m_data->axes().empty())
        return std::nullopt;
    const int count = int(m_data->axes().size());
    // The segment under the pointer: between axis a and a + 1 (or on the only axis).
    int a = 0;
    while (a + 1 < count - 1 && at.x() > axisX(a + 1))
        ++a;
    const double x0 = axisX(a), x1 = count > 1 ? axisX(a + 1) : x0;
    const double f = x1 > x0 ? std::clamp((at.x() - x0) / (x1 - x0), 0.0, 1.0) : 0.0;
    std::optional<std::size_t> nearest;
    double best = kNearLine;
    // The lines on top first: of two equally near, the one drawn over the other.
    for (std::size_t i = m_data->lines().size(); i-- > 0;) {
        const PlotLine &line = m_data->lines()[i];
        const auto &p0 = line.positions[std::size_t(a)];
        const auto &p1 = line.positions[std::size_t(count > 1 ? a + 1 : a)];
        if (!p0 || !p1)
            continue;
        const double y = yOf(*p0 + (*p1 - *p0) * f);
        if (const double d = std::abs(y - at.y()); d < best || (d <= best && !nearest)) {
            best = d;
            nearest = i;
        }
    }
    return nearest;
}

QString ParallelCoordinates::lineText(std::size_t index) const
{
    const PlotLine &line = m_data->lines()[index];
    QStringList rows{u"<b>%1</b>"_s.arg(line.label.toHtmlEscaped())};
    for (std::size_t a = 0; a < m_data->axes().size(); ++a) {
        const PlotAxis &axis = m_data->axes()[a];
        const auto &p = line.positions[a];
        QString value = tr("none");
        if (p)
            value = axis.categories.isEmpty()
                        ? formatValue(axis.valueAt(*p))
                        : axis.categories.value(qsizetype(std::floor(*p * double(axis.categories.size()))));
        rows << u"%1: %2"_s.arg(axis.name.toHtmlEscaped(), value.toHtmlEscaped());
    }
    return rows.join(u"<br>"_s);
}

void ParallelCoordinates::drawLines(QPainter &p)
{
    const auto &axes = m_data->axes();
    const auto &lines = m_data->lines();
    const bool many = lines.size() > kSmoothUpTo;
    p.setRenderHint(QPainter::Antialiasing, !many);
    // Left out first, then by order (the best last); the highlighted ones over all of them.
    std::vector<std::size_t> order(lines.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    const auto rank = [&](std::size_t i) { return m_data->passes(i) ? lines[i].order : -1e300; };
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return rank(a) < rank(b); });
    const auto draw = [&](std::size_t i, const QPen &pen) {
        p.setPen(pen);
        QPolygonF polyline;
        for (std::size_t a = 0; a < axes.size(); ++a) {
            if (!lines[i].positions[a]) { // a gap where it has no value
                if (polyline.size() > 1)
                    p.drawPolyline(polyline);
                polyline.clear();
                continue;
            }
            polyline << QPointF(axisX(int(a)), yOf(*lines[i].positions[a]));
        }
        if (polyline.size() > 1)
            p.drawPolyline(polyline);
        else if (polyline.size() == 1) // one axis: a dash across it
            p.drawLine(polyline.first() - QPointF(6, 0), polyline.first() + QPointF(6, 0));
    };
    for (const std::size_t i : order) {
        if (!m_data->isHighlighted(i))
            draw(i, QPen(m_data->lineColor(i), many ? 0 : 1.4)); // width 0: cosmetic, the fast path
    }
    p.setRenderHint(QPainter::Antialiasing);
    for (const std::size_t i : order) {
        if (m_data->isHighlighted(i))
            draw(i, QPen(Qt::black, 2.5));
    }
}

void ParallelCoordinates::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    m_scaleBar = {};
    if (!m_data || m_data->lines().empty() || m_data->axes().empty()) {
        p.fillRect(rect(), palette().base());
        p.setPen(QColor(120, 120, 120));
        p.drawText(rect().adjusted(12, 12, -12, -12), Qt::AlignCenter | Qt::TextWordWrap, m_emptyText);
        return;
    }
    const qreal dpr = devicePixelRatioF();
    const QSize pixels = (QSizeF(size()) * dpr).toSize();
    if (m_layer.size() != pixels || m_layerKey != m_data->generation()) {
        m_layer = QImage(pixels, QImage::Format_ARGB32_Premultiplied);
        m_layer.setDevicePixelRatio(dpr);
        m_layer.fill(palette().base().color());
        QPainter layer(&m_layer);
        drawLines(layer);
        m_layerKey = m_data->generation();
    }
    p.drawImage(QPoint(0, 0), m_layer);
    p.setRenderHint(QPainter::Antialiasing);
    const auto [top, bottom] = axisSpan();
    const auto &axes = m_data->axes();
    const double column = axes.size() > 1 ? (axisX(1) - axisX(0)) : width() - 2.0 * kSideRoom;
    const QFontMetricsF fm(font());
    // The axes, their names and ticks, the brushed ranges.
    for (std::size_t a = 0; a < axes.size(); ++a) {
        const PlotAxis &axis = axes[a];
        const double x = axisX(int(a));
        p.setPen(QPen(QColor(90, 90, 90), 1));
        p.drawLine(QPointF(x, top), QPointF(x, bottom));
        QFont name = font();
        name.setBold(axis.emphasised);
        p.setFont(name);
        const double nameWidth = std::max(60.0, column - 8);
        p.drawText(QRectF(x - nameWidth / 2, 4, nameWidth, kNamesHeight - 4), Qt::AlignCenter,
                   QFontMetricsF(name).elidedText(axis.title(), Qt::ElideMiddle, nameWidth));
        p.setFont(font());
        p.setPen(QColor(100, 100, 100));
        const int most = std::max(2, int((bottom - top) / 45));
        const double labelWidth = std::max(40.0, std::min(column / 2 - 8, 160.0));
        for (const PlotAxis::Tick &tick : axis.ticks(most)) {
            const double y = yOf(tick.at);
            p.drawLine(QPointF(x - 3, y), QPointF(x, y));
            const QString text = fm.elidedText(tick.label, Qt::ElideRight, labelWidth);
            const QRectF label(x + 5, y - fm.height() / 2, fm.horizontalAdvance(text) + 2, fm.height());
            p.fillRect(label.adjusted(-2, 0, 2, 0), QColor(255, 255, 255, 200));
            p.drawText(label, Qt::AlignLeft | Qt::AlignVCenter, text);
        }
        if (const auto range = m_data->range(int(a))) {
            const QRectF brush(x - 7, yOf(range->second), 14, yOf(range->first) - yOf(range->second));
            p.setPen(QPen(QColor(31, 90, 200), 1));
            p.setBrush(QColor(31, 90, 200, 60));
            p.drawRect(brush);
            p.setBrush(Qt::NoBrush);
        }
    }
    const QRectF footer(8, height() - 20, width() - 16, 18);
    m_scaleBar = drawColorScale(p, footer, m_data->colorScale());
    p.setPen(QColor(110, 110, 110));
    const double room = (m_scaleBar.isEmpty() ? footer.right() : m_scaleBar.left() - 260) - footer.left();
    const QString count =
        m_data->filtered()
            ? tr("%1 of %2 %3 in the ranges (click an axis to clear its range)")
                  .arg(m_data->passingKeys().size())
                  .arg(m_data->lines().size())
                  .arg(m_data->noun())
            : tr("%1 %2 · drag along an axis to keep those in a range").arg(m_data->lines().size()).arg(m_data->noun());
    p.drawText(QRectF(footer.left(), footer.top(), std::max(room, 120.0), footer.height()),
               Qt::AlignLeft | Qt::AlignVCenter, fm.elidedText(count, Qt::ElideRight, std::max(room, 120.0)));
}

void ParallelCoordinates::mousePressEvent(QMouseEvent *event)
{
    m_pressedAt = event->position();
    m_dragAxis = axisAt(event->position().x());
    m_dragFrom = positionAt(event->position().y());
    m_dragged = false;
}

void ParallelCoordinates::mouseMoveEvent(QMouseEvent *event)
{
    if (!m_dragAxis || !m_data)
        return;
    const double to = positionAt(event->position().y());
    if (std::abs(to - m_dragFrom) < 0.01 && !m_dragged)
        return;
    m_dragged = true;
    m_data->setRange(*m_dragAxis, std::pair{std::min(m_dragFrom, to), std::max(m_dragFrom, to)});
    update();
    Q_EMIT rangesChanged();
}

void ParallelCoordinates::mouseReleaseEvent(QMouseEvent *event)
{
    if (m_dragAxis && !m_dragged && m_data) { // a click: the axis lets every line through again
        m_data->setRange(*m_dragAxis, std::nullopt);
        update();
        Q_EMIT rangesChanged();
    } else if (!m_dragAxis && m_data && (event->position() - m_pressedAt).manhattanLength() < 4) {
        if (const auto line = lineAt(event->position()))
            Q_EMIT lineClicked(m_data->lines()[*line].key);
    }
    m_dragAxis.reset();
}

bool ParallelCoordinates::event(QEvent *event)
{
    if (event->type() == QEvent::ToolTip && m_data) {
        auto *help = static_cast<QHelpEvent *>(event);
        if (const auto line = lineAt(help->pos()))
            QToolTip::showText(help->globalPos(), lineText(*line), this);
        else
            QToolTip::hideText();
        return true;
    }
    return QWidget::event(event);
}

} // namespace ferry::ui
