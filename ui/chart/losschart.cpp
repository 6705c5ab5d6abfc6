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
constexpr int Gap = kLossChartGap;

} // namespace

LossChart::LossChart(QWidget *parent) : QWidget(parent), m_ownColors(new RunColors(this))
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
    if (metrics == m_metrics && m_layout)
        return;
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

void LossChart::setXMetric(const QString &metric)
{
    if (metric == m_xMetric)
        return;
    m_painter.finishLayer(); // the paired views it reads are rebuilt
    m_xMetric = metric;
    if (m_mode == XAxisMode::Metric) {
        m_xView.reset();
        forgetAutoRanges();
        changed(true);
        Q_EMIT viewChanged();
    }
}

void LossChart::setLogX(bool on)
{
    if (on == m_logX)
        return;
    m_painter.finishLayer();
    m_logX = on;
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

void LossChart::setTitle(const QString &title)
{
    if (title == m_title)
        return;
    m_title = title;
    changed(true);
}

void LossChart::setRunColors(RunColors *colors)
{
    if (colors == m_colors)
        return;
    if (m_colors)
        disconnect(m_colors, nullptr, this, nullptr);
    m_colors = colors;
    if (m_colors)
        connect(m_colors, &RunColors::changed, this, [this] { changed(false); });
    changed(true);
}

QColor LossChart::runColor(const QString &runId) const
{
    return m_colors ? m_colors->color(runId) : m_ownColors->color(runId);
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

QRect LossChart::plotRect() const
{
    updateLayout();
    return m_layout->plot;
}

std::vector<QString> LossChart::yTickLabels() const
{
    updateLayout();
    return m_layout->yTicks.labels;
}

std::vector<QString> LossChart::xTickLabels() const
{
    updateLayout();
    return m_layout->xTicks.labels;
}

void LossChart::updateLayout() const
{
    if (m_layout)
        return;
    if (!m_colors) // the chart's own colours: different for the runs it draws
        m_ownColors->assign(legendRuns());
    auto l = std::make_unique<Layout>();
    ++m_layoutGeneration;
    const QFontMetrics fm(font());
    const int line = fm.height();

    int top = Gap / 2;
    if (!m_title.isEmpty()) {
        l->title = QRect(Gap, top, width() - 2 * Gap, line + 2);
        top = l->title.bottom() + Gap / 2;
    }
    const QSize legend = layOutLegend(*l, top);
    top += legend.height() > 0 ? legend.height() + Gap / 2 : line / 2;

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
    const int bottomSpace = Gap + line + Gap + line + Gap;
    const int maxYTicks = std::max(2, (height() - top - bottomSpace) / (2 * line));
    l->yTicks = m_logY ? logTicks(y0, y1, maxYTicks) : linearTicks(y0, y1, maxYTicks, valueUnit());
    int labelWidth = 0;
    for (const QString &label : l->yTicks.labels)
        labelWidth = std::max(labelWidth, fm.horizontalAdvance(label));

    // Room for labels as wide as the mode's widest, with a gap; the last one is centred on the
    // plot's right edge, so half of one is kept free there when no legend is beside the plot.
    const QString widest = m_mode == XAxisMode::Clock ? u"00:00:00000"_s : u"00000000"_s;
    const int left = Gap + line + Gap + labelWidth + Gap;
    const int right = width() - Gap - (legend.width() > 0 ? legend.width() : fm.horizontalAdvance(widest) / 3);
    const int bottom = height() - bottomSpace;
    l->plot = QRect(QPoint(left, top), QPoint(std::max(left + 10, right), std::max(top + 10, bottom)));
    const int maxXTicks = std::max(2, l->plot.width() / fm.horizontalAdvance(widest));
    if (logXShown())
        l->xTicks = logTicks(x0, x1, maxXTicks);
    else if (m_mode == XAxisMode::WallTime)
        l->xTicks = timeTicks(x0, x1, maxXTicks);
    else if (m_mode == XAxisMode::Clock)
        l->xTicks = clockTicks(x0, x1, maxXTicks);
    else
        l->xTicks = linearTicks(x0, x1, maxXTicks);
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

QString LossChart::xTitle() const
{
    QString title;
    switch (m_mode) {
    case XAxisMode::Step:
        title = tr("step");
        break;
    case XAxisMode::Epoch:
        title = tr("epoch");
        break;
    case XAxisMode::WallTime:
        title = tr("time since start");
        break;
    case XAxisMode::Clock:
        title = tr("wall time");
        break;
    case XAxisMode::Metric:
        title = m_xMetric;
        break;
    }
    return logXShown() ? title + tr(" (log)") : title;
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

void LossChart::paintAxes(QPainter &p, const QColor &text)
{
    const Layout &l = *m_layout;
    const QFontMetrics fm(font());
    const PlotMapping axis = PlotMapping::fit(l.x0, l.x1, l.y0, l.y1, l.plot, false);
    p.setPen(text);
    int lastRight = std::numeric_limits<int>::min();
    for (std::size_t i = 0; i < l.xTicks.values.size(); ++i) {
        const int x = int(axis.column(l.xTicks.values[i]));
        const int w = fm.horizontalAdvance(l.xTicks.labels[i]);
        if (x - w / 2 < lastRight + Gap)
            continue; // would overlap the one before
        p.drawText(x - w / 2, l.plot.bottom() + Gap + fm.ascent(), l.xTicks.labels[i]);
        lastRight = x - w / 2 + w;
    }
    for (std::size_t i = 0; i < l.yTicks.values.size(); ++i) {
        const int y = int(axis.row(l.yTicks.values[i]));
        const int w = fm.horizontalAdvance(l.yTicks.labels[i]);
        p.drawText(l.plot.left() - Gap - w, y + fm.ascent() / 2 - 1, l.yTicks.labels[i]);
    }
    p.drawText(QRect(l.plot.left(), height() - Gap - fm.height(), l.plot.width(), fm.height()), Qt::AlignHCenter,
               xTitle());
    const QStringList metrics = drawnMetrics();
    // The metric's name, or the panel's title (for several, and for the system's long names).
    const bool named = metrics.size() == 1 && !(metrics.front().startsWith(u"system/"_s) && !m_title.isEmpty());
    const QString yTitle = (named               ? metrics.front()
                            : m_title.isEmpty() ? tr("value")
                                                : m_title) +
                           (m_logY ? tr(" (log)") : QString());
    // Rotated text is drawn as paths, slowly: the title is rendered once, turned, and blitted.
    const qreal titleDpr = p.device()->devicePixelRatioF();
    const QString titleKey = yTitle + u'\x1f' + font().key() + u'\x1f' + QString::number(titleDpr) + text.name();
    if (titleKey != m_yTitleKey) {
        const QSize textSize(std::min(fm.horizontalAdvance(yTitle) + 2, std::max(10, l.plot.height())), fm.height());
        m_yTitle = QImage(QSize(textSize.height(), textSize.width()) * titleDpr, QImage::Format_ARGB32_Premultiplied);
        m_yTitle.setDevicePixelRatio(titleDpr);
        m_yTitle.fill(Qt::transparent);
        QPainter tp(&m_yTitle);
        tp.setFont(font());
        tp.setPen(text);
        tp.translate(0, textSize.width());
        tp.rotate(-90);
        tp.drawText(QRect(QPoint(0, 0), textSize), Qt::AlignCenter,
                    fm.elidedText(yTitle, Qt::ElideMiddle, textSize.width()));
        m_yTitleKey = titleKey;
    }
    p.drawImage(QPoint(Gap, l.plot.center().y() - int(m_yTitle.deviceIndependentSize().height() / 2)), m_yTitle);
    if (!l.title.isEmpty()) {
        QFont bold = font();
        bold.setBold(true);
        p.setFont(bold);
        p.drawText(l.title, Qt::AlignLeft | Qt::AlignVCenter,
                   QFontMetrics(bold).elidedText(m_title, Qt::ElideRight, l.title.width()));
        p.setFont(font());
    }
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
    paintAxes(p, text);

    // The plot area, in device pixels: the mapping rounds to the pixel grid the rasteriser uses.
    const qreal dpr = p.device()->devicePixelRatioF();
    PlotStyle style;
    style.device = QRectF(QPointF(l.plot.topLeft()) * dpr, QSizeF(l.plot.size()) * dpr).toAlignedRect();
    style.base = PlotMapping::fit(l.x0, l.x1, l.y0, l.y1, style.device, m_logY, logXShown());
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
    if (m_store) // grouped: the groups' lines instead of the runs'
        m_painter.paint(p, *m_store, isGrouped() ? std::vector<DrawnSeries>{} : shown, style, exact);
    else
        p.fillRect(style.device, background);
    if (m_store && isGrouped())
        paintGroups(p, style);
    p.restore();

    if (l.empty) {
        p.setPen(pal.color(QPalette::PlaceholderText));
        QString message = tr("Nothing to show for this metric and x axis.");
        if (!m_store || m_store->seriesCount() == 0)
            message = tr("No metrics yet.\nLoss curves appear here as soon as a run reports them.");
        else if (m_mode == XAxisMode::Metric && m_metrics == QStringList{m_xMetric})
            message = tr("%1 is the x axis.").arg(m_xMetric);
        else if (m_mode == XAxisMode::Metric)
            message = tr("No run shown has both this metric and %1.").arg(m_xMetric);
        p.drawText(l.plot, Qt::AlignCenter | Qt::TextWordWrap, message);
    }

    p.setPen(opaqueBlend(text, 0.35, background));
    p.setBrush(Qt::NoBrush);
    p.drawRect(l.plot.adjusted(0, 0, -1, -1));
    paintLegend(p, highlighted);

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
