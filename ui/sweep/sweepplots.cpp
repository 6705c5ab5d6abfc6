#include "ui/sweep/sweepplots.h"

#include "ui/chart/chartaxis.h"

#include <QLinearGradient>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>

using namespace Qt::StringLiterals;

namespace ferry::ui {

namespace {

constexpr int kMargin = 36;
constexpr int kTop = 28;

QColor mix(const QColor &a, const QColor &b, double t)
{
    return QColor::fromRgbF(float(a.redF() + (b.redF() - a.redF()) * t),
                            float(a.greenF() + (b.greenF() - a.greenF()) * t),
                            float(a.blueF() + (b.blueF() - a.blueF()) * t));
}

void drawEmpty(QPainter &p, const QRect &r, const QString &text)
{
    p.setPen(QColor(120, 120, 120));
    p.drawText(r, Qt::AlignCenter, text);
}

// y ticks of an objective axis, drawn on the left of `plot`.
void drawYAxis(QPainter &p, const QRectF &plot, double lo, double hi, const QString &title)
{
    const AxisTicks ticks = linearTicks(lo, hi, std::max(2, int(plot.height() / 40)));
    p.setPen(QColor(150, 150, 150));
    for (std::size_t i = 0; i < ticks.values.size(); ++i) {
        const double y = plot.bottom() - (ticks.values[i] - lo) / (hi - lo) * plot.height();
        p.drawLine(QPointF(plot.left() - 3, y), QPointF(plot.left(), y));
        p.drawText(QRectF(0, y - 8, plot.left() - 5, 16), Qt::AlignRight | Qt::AlignVCenter, ticks.labels[i]);
    }
    p.drawText(QRectF(plot.left(), 2, plot.width(), kTop - 6), Qt::AlignLeft | Qt::AlignVCenter, title);
}

} // namespace

SweepPlot::SweepPlot(QWidget *parent) : QWidget(parent)
{
    setMinimumSize(240, 160);
    setAttribute(Qt::WA_OpaquePaintEvent);
}

void SweepPlot::setData(SweepPlotData *plotData)
{
    m_data = plotData;
    update();
}

const QColor SweepPlot::kWorstColor(230, 120, 30);
const QColor SweepPlot::kBestColor(31, 90, 200);

QColor SweepPlot::trialColor(const SweepPlotTrial &trial) const
{
    if (m_data && m_data->filtered() && !m_data->passes(trial))
        return QColor(215, 215, 215);
    const auto q = m_data ? m_data->quality(trial) : std::nullopt;
    if (!q)
        return QColor(150, 150, 150);
    return mix(kWorstColor, kBestColor, *q);
}

QRectF SweepPlot::drawColorScale(QPainter &p, const QRectF &area) const
{
    const auto span = m_data ? m_data->objectiveSpan() : std::nullopt;
    if (!span)
        return {};
    const QFontMetricsF fm(font());
    const QString title = tr("colour: %1, by rank").arg(m_data->metric());
    const QString worst = tr("worst %1").arg(formatValue(span->first));
    const QString best = tr("best %1").arg(formatValue(span->second));
    constexpr double kBarWidth = 110, kGap = 6;
    const double barHeight = std::min(10.0, area.height() - 4);
    double x = area.right() - fm.horizontalAdvance(best);
    p.setPen(QColor(90, 90, 90));
    p.drawText(QRectF(x, area.top(), fm.horizontalAdvance(best) + 1, area.height()), Qt::AlignLeft | Qt::AlignVCenter,
               best);
    x -= kGap + kBarWidth;
    const QRectF bar(x, area.center().y() - barHeight / 2, kBarWidth, barHeight);
    QLinearGradient gradient(bar.topLeft(), bar.topRight());
    gradient.setColorAt(0, kWorstColor);
    gradient.setColorAt(1, kBestColor);
    p.fillRect(bar, gradient);
    x -= kGap + fm.horizontalAdvance(worst);
    p.drawText(QRectF(x, area.top(), fm.horizontalAdvance(worst) + 1, area.height()), Qt::AlignLeft | Qt::AlignVCenter,
               worst);
    x -= 2 * kGap + fm.horizontalAdvance(title);
    p.drawText(QRectF(x, area.top(), fm.horizontalAdvance(title) + 1, area.height()), Qt::AlignLeft | Qt::AlignVCenter,
               title);
    return bar;
}

void ObjectivePlot::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    p.setRenderHint(QPainter::Antialiasing);
    const QRectF plot(kMargin + 24, kTop, width() - kMargin - 24 - 12, height() - kTop - 26);
    std::vector<const SweepPlotTrial *> scored;
    if (m_data) {
        for (const SweepPlotTrial &t : m_data->trials()) {
            if (t.objective)
                scored.push_back(&t);
        }
    }
    if (scored.empty() || plot.width() < 20 || plot.height() < 20) {
        drawEmpty(p, rect(), tr("No trial has written %1 yet").arg(m_data ? m_data->metric() : QString()));
        return;
    }
    double lo = *scored.front()->objective, hi = lo;
    for (const SweepPlotTrial *t : scored) {
        lo = std::min(lo, *t->objective);
        hi = std::max(hi, *t->objective);
    }
    if (hi <= lo)
        hi = lo + 1;
    const double pad = (hi - lo) * 0.05;
    lo -= pad;
    hi += pad;
    const int last = std::max(1, m_data->trials().back().number);
    const auto at = [&](int n, double v) {
        return QPointF(plot.left() + double(n) / last * plot.width(),
                       plot.bottom() - (v - lo) / (hi - lo) * plot.height());
    };
    drawYAxis(p, plot, lo, hi, tr("%1 by trial (line: best so far)").arg(m_data->metric()));
    p.setPen(QColor(150, 150, 150));
    p.drawLine(plot.bottomLeft(), plot.bottomRight());
    const AxisTicks xTicks = linearTicks(0, last, std::max(2, int(plot.width() / 60)));
    for (std::size_t i = 0; i < xTicks.values.size(); ++i) {
        const double x = plot.left() + xTicks.values[i] / last * plot.width();
        p.drawText(QRectF(x - 30, plot.bottom() + 4, 60, 16), Qt::AlignCenter, xTicks.labels[i]);
    }
    // The best so far, in trial order.
    QPainterPath bestLine;
    std::optional<double> best;
    for (const SweepPlotTrial *t : scored) {
        const bool better = !best || (m_data->minimize() ? *t->objective < *best : *t->objective > *best);
        const QPointF point = at(t->number, better ? *t->objective : *best);
        if (!best)
            bestLine.moveTo(point);
        else {
            bestLine.lineTo(QPointF(point.x(), at(0, *best).y()));
            bestLine.lineTo(point);
        }
        if (better)
            best = t->objective;
    }
    bestLine.lineTo(QPointF(plot.right(), at(0, *best).y()));
    p.setPen(QPen(QColor(31, 90, 200), 1.5));
    p.drawPath(bestLine);
    for (const SweepPlotTrial *t : scored) {
        p.setPen(Qt::NoPen);
        p.setBrush(trialColor(*t));
        p.drawEllipse(at(t->number, *t->objective), 3.5, 3.5);
    }
    if (const auto b = m_data->best()) {
        const SweepPlotTrial &t = m_data->trials()[std::size_t(*b)];
        p.setPen(QPen(Qt::black, 2));
        p.setBrush(Qt::NoBrush);
        p.drawEllipse(at(t.number, *t.objective), 6, 6);
    }
}

double ParallelCoordinates::axisX(int axis) const
{
    const int count = m_data ? int(m_data->axes().size()) : 1;
    const double left = 70, right = width() - 70;
    return count <= 1 ? (left + right) / 2 : left + (right - left) * axis / (count - 1);
}

std::pair<double, double> ParallelCoordinates::axisSpan() const
{
    // Room below for the axes' least values, then a line of its own for the hint and the colour scale.
    return {double(kTop + 18), double(height() - 42)};
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

// Many trials: cosmetic lines without antialiasing (a thousand antialiased polylines take a
// second); the lines are drawn once per data, range and size, the axes over them each frame.
constexpr int kSmoothLinesUpTo = 200;

void ParallelCoordinates::drawLines(QPainter &p)
{
    // Not `const auto [top, bottom]`: clang before 16 cannot capture a structured binding.
    const auto span = axisSpan();
    const double top = span.first, bottom = span.second;
    const auto &axes = m_data->axes();
    const auto yOf = [&](double t) { return bottom - t * (bottom - top); };
    p.setRenderHint(QPainter::Antialiasing, m_data->trials().size() <= kSmoothLinesUpTo);
    // The lines: left out first, then the rest from worst to best, the best last.
    std::vector<std::pair<double, const SweepPlotTrial *>> order;
    for (const SweepPlotTrial &t : m_data->trials())
        order.emplace_back(m_data->passes(t) ? m_data->quality(t).value_or(-1) : -2.0, &t);
    std::stable_sort(order.begin(), order.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
    const SweepPlotTrial *best = m_data->best() ? &m_data->trials()[std::size_t(*m_data->best())] : nullptr;
    const bool thin = m_data->trials().size() > kSmoothLinesUpTo;
    const auto drawTrial = [&](const SweepPlotTrial &t, QPen pen) {
        if (thin && &t != best)
            pen.setWidth(0); // cosmetic: the fast path
        p.setPen(pen);
        QPolygonF line;
        for (std::size_t a = 0; a < axes.size(); ++a) {
            if (!t.positions[a]) { // a gap where the trial has no value (no objective yet)
                if (line.size() > 1)
                    p.drawPolyline(line);
                line.clear();
                continue;
            }
            line << QPointF(axisX(int(a)), yOf(*t.positions[a]));
        }
        if (line.size() > 1)
            p.drawPolyline(line);
    };
    for (const auto &[quality, t] : order) {
        if (t != best)
            drawTrial(*t, QPen(trialColor(*t), 1.2));
    }
    if (best) {
        p.setRenderHint(QPainter::Antialiasing);
        drawTrial(*best, QPen(Qt::black, 2.5));
    }
}

void ParallelCoordinates::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    if (!m_data || m_data->trials().empty()) {
        p.fillRect(rect(), palette().base());
        drawEmpty(p, rect(), tr("No trials yet"));
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
    // Not `const auto [top, bottom]`: clang before 16 cannot capture a structured binding.
    const auto span = axisSpan();
    const double top = span.first, bottom = span.second;
    const auto &axes = m_data->axes();
    const auto yOf = [&](double t) { return bottom - t * (bottom - top); };
    // The axes, their names and ends, the brushed ranges.
    for (std::size_t a = 0; a < axes.size(); ++a) {
        const SweepAxis &axis = axes[a];
        const double x = axisX(int(a));
        p.setPen(QPen(QColor(90, 90, 90), 1));
        p.drawLine(QPointF(x, top), QPointF(x, bottom));
        QFont bold = font();
        bold.setBold(axis.isObjective);
        p.setFont(bold);
        p.drawText(QRectF(x - 70, 4, 140, kTop - 4), Qt::AlignCenter, axis.name + (axis.log ? u" (log)"_s : QString()));
        p.setFont(font());
        p.setPen(QColor(110, 110, 110));
        if (axis.categories.isEmpty()) {
            p.drawText(QRectF(x - 60, top - 16, 120, 14), Qt::AlignCenter, formatValue(axis.valueAt(1)));
            p.drawText(QRectF(x - 60, bottom + 2, 120, 14), Qt::AlignCenter, formatValue(axis.valueAt(0)));
        } else {
            for (qsizetype c = 0; c < axis.categories.size(); ++c) {
                const double y = yOf((double(c) + 0.5) / double(axis.categories.size()));
                const QRectF label =
                    p.boundingRect(QRectF(x + 5, y - 8, 200, 16), Qt::AlignLeft | Qt::AlignVCenter, axis.categories[c]);
                p.fillRect(label.adjusted(-2, 0, 2, 0), QColor(255, 255, 255, 210));
                p.drawText(label, Qt::AlignLeft | Qt::AlignVCenter, axis.categories[c]);
            }
        }
        if (const auto range = m_data->range(int(a))) {
            const QRectF brush(x - 7, yOf(range->second), 14, yOf(range->first) - yOf(range->second));
            p.setPen(QPen(QColor(31, 90, 200), 1));
            p.setBrush(QColor(31, 90, 200, 60));
            p.drawRect(brush);
            p.setBrush(Qt::NoBrush);
        }
    }
    const qsizetype shown = m_data->passingTrials().size();
    m_scaleBar = drawColorScale(p, QRectF(8, height() - 18, width() - 16, 16));
    p.setPen(QColor(110, 110, 110));
    p.drawText(QRectF(8, height() - 18, width() - 16, 16), Qt::AlignLeft,
               m_data->filtered() ? tr("%1 of %2 trials in the ranges (click an axis to clear its range)")
                                        .arg(shown)
                                        .arg(m_data->trials().size())
                                  : tr("Drag along an axis to keep the trials in a range"));
}

void ParallelCoordinates::mousePressEvent(QMouseEvent *event)
{
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

void ParallelCoordinates::mouseReleaseEvent(QMouseEvent *)
{
    if (m_dragAxis && !m_dragged && m_data) { // a click: the axis lets every trial through again
        m_data->setRange(*m_dragAxis, std::nullopt);
        update();
        Q_EMIT rangesChanged();
    }
    m_dragAxis.reset();
}

namespace {
constexpr int kScaleStrip = 22; // below the scatter plots: the colour scale
} // namespace

QRectF ParameterScatter::plotRect(int index) const
{
    if (!m_data || m_data->axes().size() < 2 || index < 0 || index >= int(m_data->axes().size()) - 1)
        return {};
    const int count = int(m_data->axes().size()) - 1; // the parameters: the objective is every plot's y
    const int columns = std::min(count, std::max(1, width() / 220));
    const int rows = (count + columns - 1) / columns;
    const double cellW = double(width()) / columns, cellH = double(height() - kScaleStrip) / rows;
    const int row = index / columns, column = index % columns;
    const QRectF cell(column * cellW, row * cellH, cellW, cellH);
    const QRectF plot = cell.adjusted(44, 22, -10, -22);
    return plot.width() < 20 || plot.height() < 20 ? QRectF() : plot;
}

void ParameterScatter::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    m_scaleBar = {};
    if (!m_data || m_data->axes().size() < 2 || m_data->trials().empty()) {
        drawEmpty(p, rect(), tr("No trials yet"));
        return;
    }
    p.setRenderHint(QPainter::Antialiasing);
    const auto &axes = m_data->axes();
    const int count = int(axes.size()) - 1;
    const std::size_t objective = axes.size() - 1;
    const SweepPlotTrial *best = m_data->best() ? &m_data->trials()[std::size_t(*m_data->best())] : nullptr;
    for (int i = 0; i < count; ++i) {
        const QRectF plot = plotRect(i);
        if (plot.isEmpty())
            continue;
        const SweepAxis &axis = axes[std::size_t(i)];
        // The frame only: the brush the previous plot's dots left would paint it solid (review
        // 2026-12-06, finding 6: "val_loss by seed" all blue).
        p.setPen(QColor(150, 150, 150));
        p.setBrush(Qt::NoBrush);
        p.drawRect(plot);
        p.setPen(QColor(60, 60, 60));
        p.drawText(QRectF(plot.left(), plot.top() - 20, plot.width(), 18), Qt::AlignCenter,
                   tr("%1 by %2").arg(axes[objective].name, axis.name + (axis.log ? u" (log)"_s : QString())));
        p.setPen(QColor(110, 110, 110));
        const QString lo = axis.categories.isEmpty() ? formatValue(axis.valueAt(0)) : axis.categories.first();
        const QString hi = axis.categories.isEmpty() ? formatValue(axis.valueAt(1)) : axis.categories.last();
        p.drawText(QRectF(plot.left(), plot.bottom() + 2, plot.width() / 2, 16), Qt::AlignLeft, lo);
        p.drawText(QRectF(plot.center().x(), plot.bottom() + 2, plot.width() / 2, 16), Qt::AlignRight, hi);
        p.drawText(QRectF(plot.left() - 44, plot.top() - 2, 42, 16), Qt::AlignRight,
                   formatValue(axes[objective].valueAt(1)));
        p.drawText(QRectF(plot.left() - 44, plot.bottom() - 14, 42, 16), Qt::AlignRight,
                   formatValue(axes[objective].valueAt(0)));
        for (const SweepPlotTrial &t : m_data->trials()) {
            const auto &x = t.positions[std::size_t(i)];
            const auto &y = t.positions[objective];
            if (!x || !y)
                continue;
            const QPointF at(plot.left() + *x * plot.width(), plot.bottom() - *y * plot.height());
            p.setPen(Qt::NoPen);
            p.setBrush(trialColor(t));
            p.drawEllipse(at, 3, 3);
            if (&t == best) {
                p.setPen(QPen(Qt::black, 1.5));
                p.setBrush(Qt::NoBrush);
                p.drawEllipse(at, 5.5, 5.5);
            }
        }
    }
    m_scaleBar = drawColorScale(p, QRectF(8, height() - kScaleStrip + 2, width() - 16, kScaleStrip - 4));
}

} // namespace ferry::ui
