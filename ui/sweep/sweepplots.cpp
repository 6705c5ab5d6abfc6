#include "ui/sweep/sweepplots.h"

#include "ui/analysis/scatterplot.h"
#include "ui/chart/chartaxis.h"

#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>

using namespace Qt::StringLiterals;

namespace ferry::ui {

namespace {

constexpr int kMargin = 36;
constexpr int kTop = 28;
constexpr int kScaleStrip = 22; // below the parameter plots: the colour scale

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

const QColor SweepPlot::kWorstColor = ColorScale::worstToBest().constFirst().second;
const QColor SweepPlot::kBestColor = ColorScale::worstToBest().constLast().second;

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

void ObjectivePlot::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    p.setRenderHint(QPainter::Antialiasing);
    const QRectF plot(kMargin + 24, kTop, width() - kMargin - 24 - 12, height() - kTop - 26);
    std::vector<std::size_t> scored; // the trials with an objective, by index
    if (m_data) {
        for (std::size_t i = 0; i < m_data->trials().size(); ++i) {
            if (m_data->trials()[i].objective)
                scored.push_back(i);
        }
    }
    if (scored.empty() || plot.width() < 20 || plot.height() < 20) {
        drawEmpty(p, rect(), tr("No trial has written %1 yet").arg(m_data ? m_data->metric() : QString()));
        return;
    }
    const auto &trials = m_data->trials();
    double lo = *trials[scored.front()].objective, hi = lo;
    for (const std::size_t i : scored) {
        lo = std::min(lo, *trials[i].objective);
        hi = std::max(hi, *trials[i].objective);
    }
    if (hi <= lo)
        hi = lo + 1;
    const double pad = (hi - lo) * 0.05;
    lo -= pad;
    hi += pad;
    const int last = std::max(1, trials.back().number);
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
    for (const std::size_t i : scored) {
        const SweepPlotTrial &t = trials[i];
        const bool better = !best || (m_data->minimize() ? *t.objective < *best : *t.objective > *best);
        const QPointF point = at(t.number, better ? *t.objective : *best);
        if (!best)
            bestLine.moveTo(point);
        else {
            bestLine.lineTo(QPointF(point.x(), at(0, *best).y()));
            bestLine.lineTo(point);
        }
        if (better)
            best = t.objective;
    }
    bestLine.lineTo(QPointF(plot.right(), at(0, *best).y()));
    p.setPen(QPen(kBestColor, 1.5));
    p.drawPath(bestLine);
    for (const std::size_t i : scored) {
        p.setPen(Qt::NoPen);
        p.setBrush(m_data->lineColor(i));
        p.drawEllipse(at(trials[i].number, *trials[i].objective), 3.5, 3.5);
    }
    if (const auto b = m_data->best()) {
        const SweepPlotTrial &t = trials[std::size_t(*b)];
        p.setPen(QPen(Qt::black, 2));
        p.setBrush(Qt::NoBrush);
        p.drawEllipse(at(t.number, *t.objective), 6, 6);
    }
}

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
    const QRectF plot = cell.adjusted(52, 22, -12, -22);
    return plot.width() < 30 || plot.height() < 30 ? QRectF() : plot;
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
    const auto &lines = m_data->lines();
    const std::size_t objective = axes.size() - 1;
    const auto best = m_data->best();
    for (int i = 0; i + 1 < int(axes.size()); ++i) {
        const QRectF plot = plotRect(i);
        if (plot.isEmpty())
            continue;
        const PlotAxis &axis = axes[std::size_t(i)];
        drawPlotFrame(p, plot, axis, axes[objective], true);
        p.setPen(QColor(60, 60, 60));
        p.drawText(QRectF(plot.left(), plot.top() - 20, plot.width(), 18), Qt::AlignCenter,
                   tr("%1 by %2").arg(axes[objective].name, axis.title()));
        const QRectF area = plotArea(plot);
        for (std::size_t t = 0; t < lines.size(); ++t) {
            const auto &x = lines[t].positions[std::size_t(i)];
            const auto &y = lines[t].positions[objective];
            if (!x || !y)
                continue;
            const QPointF at = plotPoint(area, *x, *y);
            p.setPen(Qt::NoPen);
            p.setBrush(m_data->lineColor(t));
            p.drawEllipse(at, 3, 3);
            if (best && std::size_t(*best) == t) {
                p.setPen(QPen(Qt::black, 1.5));
                p.setBrush(Qt::NoBrush);
                p.drawEllipse(at, 5.5, 5.5);
            }
        }
    }
    m_scaleBar =
        drawColorScale(p, QRectF(8, height() - kScaleStrip + 2, width() - 16, kScaleStrip - 4), m_data->colorScale());
}

} // namespace ferry::ui
