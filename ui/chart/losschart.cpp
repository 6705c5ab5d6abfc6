#include "ui/chart/losschart.h"

#include "ui/chart/chartaxis.h"
#include "ui/chart/chartexport.h"
#include "ui/chart/losschartlayout.h"
#include "ui/chart/runcolors.h"
#include "ui/chart/seriespath.h"

#include <QPainter>

#include <algorithm>
#include <cmath>

using namespace Qt::StringLiterals;

namespace ferry::ui {

namespace {

constexpr int RefreshMs = 40; // 25 Hz
constexpr int Gap = 6;

} // namespace

LossChart::LossChart(QWidget *parent) : QWidget(parent)
{
    setMouseTracking(true);
    setMinimumSize(240, 160);
    setAttribute(Qt::WA_OpaquePaintEvent);
    m_timer.setInterval(RefreshMs);
    connect(&m_timer, &QTimer::timeout, this, &LossChart::refresh);
    m_painter.setLayerReady([this] { update(); });
}

LossChart::~LossChart()
{
    if (m_store)
        m_store->removeReader(this);
}

void LossChart::setStore(std::shared_ptr<SeriesStore> store)
{
    m_painter.reset(); // its cached layer and change tracking belong to the old store
    if (m_store)
        m_store->removeReader(this);
    m_store = std::move(store);
    forgetAutoRanges();
    if (m_store) {
        m_store->addReader(this, [this](int id) { return m_painter.reads(id); });
        m_store->drain();
        m_seenRevision = m_store->revision();
        m_timer.start();
    } else {
        m_timer.stop();
    }
    m_originsRevision = ~quint64(0);
    changed(true);
    Q_EMIT storeChanged();
}

void LossChart::refresh()
{
    // The series a layer is being drawn from (another thread, by this chart or another of the
    // store's) keep their new points pending. Another chart of the store may have drained first.
    if (!m_store)
        return;
    m_store->drain();
    if (m_store->revision() != m_seenRevision) {
        m_seenRevision = m_store->revision();
        changed(true);
        Q_EMIT dataChanged();
    }
}

void LossChart::forgetAutoRanges()
{
    m_autoX.reset();
    m_autoY.reset();
}

void LossChart::changed(bool rangesToo)
{
    if (rangesToo)
        m_layout.reset();
    update();
}

void LossChart::setMetrics(const QStringList &metrics)
{
    forgetAutoRanges();
    m_metrics = metrics;
    changed(true);
}

void LossChart::setXAxisMode(XAxisMode mode)
{
    if (mode == m_mode)
        return;
    m_painter.finishLayer(); // the views it reads change
    m_mode = mode;
    m_xView.reset();
    forgetAutoRanges();
    changed(true);
    Q_EMIT viewChanged();
}

void LossChart::setLogY(bool on)
{
    if (on == m_logY)
        return;
    m_painter.finishLayer();
    m_logY = on;
    m_yView.reset();
    forgetAutoRanges();
    changed(true);
    Q_EMIT viewChanged();
}

void LossChart::setSmoothing(double weight)
{
    m_painter.finishLayer(); // the smoothed values it reads are recomputed
    forgetAutoRanges();
    m_smoothing = std::clamp(weight, 0.0, 0.99);
    changed(true);
}

void LossChart::setRunVisible(const QString &runId, bool visible)
{
    if (visible == isRunVisible(runId))
        return;
    forgetAutoRanges();
    if (visible)
        m_hiddenRuns.remove(runId);
    else
        m_hiddenRuns.insert(runId);
    changed(true);
    Q_EMIT runVisibilityChanged(runId, visible);
}

void LossChart::setRunLabel(const QString &runId, const QString &label)
{
    if (m_runLabels.value(runId) != label)
        Q_EMIT runLabelChanged(runId, label);
    m_runLabels.insert(runId, label);
    changed(true);
}

void LossChart::setPinnedRun(const QString &runId)
{
    if (m_pinnedRun == runId)
        return;
    m_pinnedRun = runId;
    changed(true);
}

bool LossChart::seriesShown(const SeriesData &series) const
{
    if (series.size() == 0 || (!m_metrics.isEmpty() && !m_metrics.contains(series.key().metric)))
        return false;
    return m_mode != XAxisMode::Epoch || series.hasEpochs();
}

double LossChart::runOrigin(const QString &runId) const
{
    if (m_originsRevision != m_store->revision()) {
        m_runOrigins.clear();
        for (int i = 0; i < m_store->seriesCount(); ++i) {
            const SeriesData &d = m_store->data(i);
            if (d.size() == 0)
                continue;
            auto it = m_runOrigins.find(d.key().runId);
            if (it == m_runOrigins.end())
                m_runOrigins.insert(d.key().runId, double(d.firstWallMs()));
            else
                *it = std::min(*it, double(d.firstWallMs()));
        }
        m_originsRevision = m_store->revision();
    }
    return m_runOrigins.value(runId);
}

std::vector<DrawnSeries> LossChart::shownSeries() const
{
    std::vector<DrawnSeries> shown;
    if (!m_store)
        return shown;
    QStringList metricsSeen = m_metrics;
    for (int i = 0; i < m_store->seriesCount(); ++i) {
        const SeriesData &d = m_store->data(i);
        if (!seriesShown(d) || m_hiddenRuns.contains(d.key().runId))
            continue;
        if (!metricsSeen.contains(d.key().metric))
            metricsSeen.append(d.key().metric);
        DrawnSeries s;
        s.id = i;
        s.runId = d.key().runId;
        s.metricIndex = int(metricsSeen.indexOf(d.key().metric));
        if (m_mode == XAxisMode::WallTime) {
            s.origin = runOrigin(s.runId);
            s.unit = 1000;
        }
        shown.push_back(s);
    }
    return shown;
}

std::vector<int> LossChart::visibleSeries() const
{
    std::vector<int> ids;
    for (const DrawnSeries &s : shownSeries())
        ids.push_back(s.id);
    return ids;
}

QStringList LossChart::legendRuns() const
{
    QStringList runs;
    if (!m_store)
        return runs;
    for (int i = 0; i < m_store->seriesCount(); ++i) {
        const SeriesData &d = m_store->data(i);
        if (seriesShown(d) && !runs.contains(d.key().runId))
            runs.append(d.key().runId);
    }
    return runs;
}

std::pair<double, double> LossChart::autoX() const
{
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (const DrawnSeries &s : shownSeries()) {
        const SeriesView v = m_store->data(s.id).view(m_mode, 0);
        lo = std::min(lo, (v.x[0] - s.origin) / s.unit);
        hi = std::max(hi, (v.x[v.size - 1] - s.origin) / s.unit);
    }
    if (!(lo <= hi))
        return {0, 1};
    if (lo == hi)
        return {lo - 0.5, hi + 0.5};
    return {lo, hi};
}

std::pair<double, double> LossChart::autoY(double xLo, double xHi) const
{
    YExtremes all;
    for (const DrawnSeries &s : shownSeries()) {
        SeriesData &d = m_store->data(s.id);
        for (const double weight : {0.0, m_smoothing}) {
            const SeriesView v = d.view(m_mode, weight);
            const double *b = std::lower_bound(v.x, v.x + v.size, s.origin + xLo * s.unit);
            const double *e = std::upper_bound(b, v.x + v.size, s.origin + xHi * s.unit);
            all.merge(v.summary->query(v.y, b - v.x, e - v.x));
            if (weight == m_smoothing)
                break;
        }
    }
    double lo = m_logY ? std::log10(all.minPositive) : all.min;
    double hi = m_logY ? std::log10(all.max) : all.max;
    if (!(m_logY ? all.hasPositive() : all.hasFinite()))
        return m_logY ? std::pair{-1.0, 1.0} : std::pair{0.0, 1.0};
    if (lo == hi) {
        const double pad = m_logY ? 0.5 : std::max(std::abs(lo) * 0.1, 0.5);
        return {lo - pad, hi + pad};
    }
    const double pad = (hi - lo) * 0.04;
    return {lo - pad, hi + pad};
}

std::pair<double, double> LossChart::xRange() const
{
    updateLayout();
    return {m_layout->x0, m_layout->x1};
}

std::pair<double, double> LossChart::yRange() const
{
    updateLayout();
    return {m_layout->y0, m_layout->y1};
}

void LossChart::setXRange(double lo, double hi)
{
    if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi))
        return;
    m_xView = {lo, hi};
    m_autoY.reset();
    changed(true);
    Q_EMIT viewChanged();
}

void LossChart::setYRange(double lo, double hi)
{
    if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi))
        return;
    m_yView = {lo, hi};
    changed(true);
    Q_EMIT viewChanged();
}

void LossChart::resetZoom()
{
    forgetAutoRanges();
    m_xView.reset();
    m_yView.reset();
    changed(true);
    Q_EMIT viewChanged();
}

QRect LossChart::plotRect() const
{
    updateLayout();
    return m_layout->plot;
}

QRect LossChart::legendEntryRect(const QString &runId) const
{
    updateLayout();
    for (const auto &[run, rect] : m_layout->entries) {
        if (run == runId)
            return rect;
    }
    return {};
}

void LossChart::updateLayout() const
{
    if (m_layout)
        return;
    auto l = std::make_unique<Layout>();
    const QFontMetrics fm(font());
    const int line = fm.height();

    // Legend on the right, one entry per run.
    const QStringList runs = legendRuns();
    int legendWidth = 0;
    for (const QString &run : runs)
        legendWidth = std::max(legendWidth, fm.horizontalAdvance(runLabel(run)));
    if (!runs.isEmpty())
        legendWidth = std::min(legendWidth + 26, width() / 4);

    l->empty = shownSeries().empty();
    if (!m_xView) {
        // Growing data: 10 % headroom at the end, so a live run moves the view now and then.
        const auto tight = autoX();
        if (!m_autoX || tight.first < m_autoX->first || tight.second > m_autoX->second)
            m_autoX = m_autoX ? std::pair{tight.first, tight.second + (tight.second - tight.first) * 0.1} : tight;
    }
    const auto [x0, x1] = m_xView ? *m_xView : *m_autoX;
    l->x0 = x0;
    l->x1 = x1;
    if (!m_yView) {
        // Kept while it holds the data and the data fills at least half of it.
        const auto tight = autoY(x0, x1);
        const double span = tight.second - tight.first;
        if (!m_autoY || tight.first < m_autoY->first || tight.second > m_autoY->second ||
            span < 0.5 * (m_autoY->second - m_autoY->first))
            m_autoY = m_autoY ? std::pair{tight.first - span * 0.1, tight.second + span * 0.1} : tight;
    }
    const auto [y0, y1] = m_yView ? *m_yView : *m_autoY;
    l->y0 = y0;
    l->y1 = y1;
    l->yTicks = m_logY ? logTicks(y0, y1, std::max(2, height() / (3 * line)))
                       : linearTicks(y0, y1, std::max(2, height() / (3 * line)));
    int labelWidth = 0;
    for (const QString &label : l->yTicks.labels)
        labelWidth = std::max(labelWidth, fm.horizontalAdvance(label));

    const int left = Gap + line + Gap + labelWidth + Gap;
    const int right = width() - Gap - (legendWidth ? legendWidth + Gap : 0);
    const int top = Gap + line / 2;
    const int bottom = height() - (Gap + line + Gap + line + Gap);
    l->plot = QRect(QPoint(left, top), QPoint(std::max(left + 10, right), std::max(top + 10, bottom)));
    const int maxXTicks = std::max(2, l->plot.width() / (fm.horizontalAdvance(u"00000000"_s)));
    l->xTicks = m_mode == XAxisMode::WallTime ? timeTicks(x0, x1, maxXTicks) : linearTicks(x0, x1, maxXTicks);

    if (legendWidth) {
        l->legend = QRect(right + Gap, top, legendWidth, int(runs.size()) * (line + 4) + 4);
        int y = top + 2;
        for (const QString &run : runs) {
            l->entries.emplace_back(run, QRect(right + Gap, y, legendWidth, line + 4));
            y += line + 4;
        }
    }
    m_layout = std::move(l);
}

double LossChart::xAtPixel(double px) const
{
    updateLayout();
    const Layout &l = *m_layout;
    return l.x0 + (px - l.plot.left()) / std::max(1, l.plot.width() - 1) * (l.x1 - l.x0);
}

double LossChart::yAtPixel(double py) const
{
    updateLayout();
    const Layout &l = *m_layout;
    return l.y1 - (py - l.plot.top()) / std::max(1, l.plot.height() - 1) * (l.y1 - l.y0);
}

void LossChart::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    paint(p, false);
}

void LossChart::render(QImage &image)
{
    QPainter p(&image);
    paint(p, true);
}

void LossChart::paint(QPainter &p, bool exact)
{
    updateLayout();
    const Layout &l = *m_layout;
    const QPalette &pal = palette();
    p.fillRect(QRect(QPoint(0, 0), size()), pal.base());
    const QColor text = pal.color(QPalette::Text);
    const QColor background = pal.color(QPalette::Base);
    const QColor grid = opaqueBlend(text, 0.12, background);
    const QFontMetrics fm(font());

    // Grid and tick labels.
    const PlotMapping axis = PlotMapping::fit(l.x0, l.x1, l.y0, l.y1, l.plot, false);
    p.setPen(text);
    for (std::size_t i = 0; i < l.xTicks.values.size(); ++i) {
        const int x = int(axis.column(l.xTicks.values[i]));
        const int w = fm.horizontalAdvance(l.xTicks.labels[i]);
        p.drawText(x - w / 2, l.plot.bottom() + Gap + fm.ascent(), l.xTicks.labels[i]);
    }
    for (std::size_t i = 0; i < l.yTicks.values.size(); ++i) {
        const int y = int(axis.row(l.yTicks.values[i]));
        const int w = fm.horizontalAdvance(l.yTicks.labels[i]);
        p.drawText(l.plot.left() - Gap - w, y + fm.ascent() / 2 - 1, l.yTicks.labels[i]);
    }
    const QString xTitle = m_mode == XAxisMode::Step    ? tr("step")
                           : m_mode == XAxisMode::Epoch ? tr("epoch")
                                                        : tr("wall time");
    p.drawText(QRect(l.plot.left(), height() - Gap - fm.height(), l.plot.width(), fm.height()), Qt::AlignHCenter,
               xTitle);
    const QString yTitle =
        (m_metrics.size() == 1 ? m_metrics.front() : tr("value")) + (m_logY ? tr(" (log)") : QString());
    // Rotated text is drawn as paths, slowly: the title is rendered once, turned, and blitted.
    const qreal titleDpr = p.device()->devicePixelRatioF();
    const QString titleKey = yTitle + u'\x1f' + font().key() + u'\x1f' + QString::number(titleDpr) + text.name();
    if (titleKey != m_yTitleKey) {
        const QSize textSize(fm.horizontalAdvance(yTitle) + 2, fm.height());
        m_yTitle = QImage(QSize(textSize.height(), textSize.width()) * titleDpr, QImage::Format_ARGB32_Premultiplied);
        m_yTitle.setDevicePixelRatio(titleDpr);
        m_yTitle.fill(Qt::transparent);
        QPainter tp(&m_yTitle);
        tp.setFont(font());
        tp.setPen(text);
        tp.translate(0, textSize.width());
        tp.rotate(-90);
        tp.drawText(QRect(QPoint(0, 0), textSize), Qt::AlignCenter, yTitle);
        m_yTitleKey = titleKey;
    }
    p.drawImage(QPoint(Gap, l.plot.center().y() - int(m_yTitle.deviceIndependentSize().height() / 2)), m_yTitle);

    // The plot area, in device pixels: the mapping rounds to the pixel grid the rasteriser uses.
    const qreal dpr = p.device()->devicePixelRatioF();
    PlotStyle style;
    style.device = QRectF(QPointF(l.plot.topLeft()) * dpr, QSizeF(l.plot.size()) * dpr).toAlignedRect();
    style.base = PlotMapping::fit(l.x0, l.x1, l.y0, l.y1, style.device, m_logY);
    style.x = m_mode;
    style.smoothing = m_smoothing;
    const QString highlighted = m_hoverRun.isEmpty() ? m_pinnedRun : m_hoverRun;
    style.highlightRun = highlighted;
    style.background = background;
    style.grid = grid;
    const PlotMapping deviceAxis = PlotMapping::fit(l.x0, l.x1, l.y0, l.y1, style.device, false);
    for (const double v : l.xTicks.values)
        style.gridColumns.push_back(int(deviceAxis.column(v)));
    for (const double v : l.yTicks.values)
        style.gridRows.push_back(int(deviceAxis.row(v)));
    std::vector<DrawnSeries> shown = shownSeries();
    // The highlighted run last, on top.
    std::stable_partition(shown.begin(), shown.end(),
                          [&highlighted](const DrawnSeries &s) { return s.runId != highlighted; });
    p.save();
    p.scale(1 / dpr, 1 / dpr);
    p.setRenderHint(QPainter::Antialiasing, false);
    if (m_store)
        m_painter.paint(p, *m_store, shown, style, exact);
    else
        p.fillRect(style.device, background);
    p.restore();

    if (l.empty) {
        p.setPen(pal.color(QPalette::PlaceholderText));
        const QString message = !m_store || m_store->seriesCount() == 0
                                    ? tr("No metrics yet.\nLoss curves appear here as soon as a run reports them.")
                                    : tr("Nothing to show for this metric and x axis.");
        p.drawText(rect().adjusted(0, 0, -(l.legend.isEmpty() ? 0 : l.legend.width()), 0), Qt::AlignCenter, message);
    }

    p.setPen(opaqueBlend(text, 0.35, background));
    p.setBrush(Qt::NoBrush);
    p.drawRect(l.plot.adjusted(0, 0, -1, -1));

    // Legend.
    for (const auto &[run, r] : l.entries) {
        const bool visible = isRunVisible(run);
        const QColor color = visible ? runColor(run) : opaqueBlend(runColor(run), 0.3, background);
        if (run == highlighted)
            p.fillRect(r, pal.color(QPalette::AlternateBase));
        p.fillRect(QRect(r.left() + 4, r.center().y() - 1, 14, 3), color);
        p.setPen(visible ? text : opaqueBlend(text, 0.4, background));
        p.drawText(r.adjusted(22, 0, 0, 0), Qt::AlignVCenter | Qt::AlignLeft,
                   fm.elidedText(runLabel(run), Qt::ElideMiddle, r.width() - 24));
    }

    // Hover line, rubber band.
    if (!l.empty && l.plot.contains(m_hoverPos) && m_drag == Drag::None) {
        p.setPen(QPen(grid.darker(), 1, Qt::DashLine));
        p.drawLine(m_hoverPos.x(), l.plot.top(), m_hoverPos.x(), l.plot.bottom());
    }
    if (m_drag == Drag::Band) {
        QColor fill = pal.color(QPalette::Highlight);
        fill.setAlphaF(0.2);
        const QRect band = QRect(m_pressPos, m_lastPos).normalized() & l.plot;
        p.fillRect(band, fill);
        p.setPen(pal.color(QPalette::Highlight));
        p.drawRect(band.adjusted(0, 0, -1, -1));
    }
}

void LossChart::resizeEvent(QResizeEvent *event)
{
    m_layout.reset();
    QWidget::resizeEvent(event);
}

Expected<void> LossChart::exportPng(const QString &path)
{
    // The exact picture, never a frame that shows a moved layer.
    const qreal dpr = devicePixelRatioF();
    QImage image((QSizeF(size()) * dpr).toSize(), QImage::Format_RGB32);
    image.setDevicePixelRatio(dpr);
    render(image);
    return writePng(path, image);
}

Expected<void> LossChart::exportCsv(const QString &path) const
{
    if (!m_store)
        return writeSeriesCsv(path, SeriesStore(), {});
    return writeSeriesCsv(path, *m_store, visibleSeries());
}

} // namespace ferry::ui
