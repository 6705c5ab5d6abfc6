#include "ui/media/histogramplot.h"

#include "ui/analysis/plotaxis.h"

#include <QLinearGradient>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <cmath>

using namespace Qt::StringLiterals;

namespace ferry::ui {

namespace {

constexpr double kHistogramOffsetDepth = 0.4; // offset mode: a curve's full count spans this much of the height
constexpr int kHistogramTicks = 6;

// A histogram's bins as drawn: bucket i spans from the limit before it (the first from min) to its
// own limit, edges clamped to min and max where those are known; an edge still infinite (TensorFlow's
// outermost buckets end at ±DBL_MAX) takes its neighbour's width; a bin without finite edges is left out.
std::vector<HistogramPlot::Bin> histogramPlotBins(const run::Histogram &h)
{
    std::vector<HistogramPlot::Bin> bins;
    const size_t n = std::min(h.bucket.size(), h.bucketLimit.size());
    bins.reserve(n);
    for (size_t i = 0; i < n; ++i) {
        HistogramPlot::Bin b;
        b.right = h.bucketLimit[i];
        b.left = i == 0 ? (std::isfinite(h.min) ? h.min : b.right) : h.bucketLimit[i - 1];
        if (std::isfinite(h.min))
            b.left = std::max(b.left, h.min);
        if (std::isfinite(h.max))
            b.right = std::min(b.right, h.max);
        b.count = h.bucket[i];
        bins.push_back(b);
    }
    auto bad = [](double v) { return !std::isfinite(v) || std::abs(v) > 1e300; };
    for (size_t i = 0; i < bins.size(); ++i) {
        HistogramPlot::Bin &b = bins[i];
        if (bad(b.left) && !bad(b.right) && i + 1 < bins.size() && !bad(bins[i + 1].right))
            b.left = b.right - (bins[i + 1].right - bins[i + 1].left);
        if (bad(b.right) && !bad(b.left) && i > 0 && !bad(bins[i - 1].left))
            b.right = b.left + (bins[i - 1].right - bins[i - 1].left);
        if (!bad(b.left) && !bad(b.right) && b.left >= b.right) // the first bin of a histogram without min
            b.left = b.right - (i + 1 < bins.size() ? std::max(bins[i + 1].right - b.right, 0.0) : 0.0);
    }
    bins.erase(std::remove_if(
                   bins.begin(), bins.end(),
                   [&](const HistogramPlot::Bin &b) { return bad(b.left) || bad(b.right) || !std::isfinite(b.count); }),
               bins.end());
    return bins;
}

QString histogramNumber(double v)
{
    return QString::number(v, 'g', 4).replace(u'-', QChar(0x2212));
}

} // namespace

HistogramScene::HistogramScene()
{
    setLook(QFont(), QPalette());
}

void HistogramScene::setSize(QSize size)
{
    m_size = size;
}

void HistogramScene::setLook(const QFont &font, const QPalette &palette)
{
    m_font = font;
    m_palette = palette;
    m_rectFor = {};
}

HistogramPlot::HistogramPlot(QWidget *parent) : QWidget(parent)
{
    setMouseTracking(true);
    setMinimumSize(320, 220);
    setAttribute(Qt::WA_OpaquePaintEvent);
    m_scene.setLook(font(), palette());
    m_scene.setSize(size());
    connect(&m_drawing, &QFutureWatcher<QImage>::finished, this, &HistogramPlot::pictureDrawn);
}

HistogramPlot::~HistogramPlot()
{
    m_drawing.waitForFinished();
}

void HistogramScene::setHistograms(const QList<run::RunMedia::StepHistogram> &steps)
{
    m_curves.clear();
    m_curves.reserve(steps.size());
    double xlo = std::numeric_limits<double>::infinity(), xhi = -xlo, ymax = 0;
    for (const auto &s : steps) {
        Curve c;
        c.step = s.step;
        c.bins = histogramPlotBins(s.histogram);
        if (c.bins.empty())
            continue;
        xlo = std::min(xlo, c.bins.front().left);
        xhi = std::max(xhi, c.bins.back().right);
        for (const Bin &b : c.bins)
            ymax = std::max(ymax, b.count);
        m_curves.append(std::move(c));
    }
    std::sort(m_curves.begin(), m_curves.end(), [](const Curve &a, const Curve &b) { return a.step < b.step; });
    if (m_curves.isEmpty() || !(xhi > xlo)) {
        xlo = m_curves.isEmpty() ? 0 : xlo - 0.5;
        xhi = m_curves.isEmpty() ? 1 : xlo + 1;
    }
    m_xlo = xlo;
    m_xhi = xhi;
    m_ymax = ymax > 0 ? ymax : 1;
    // The unit polygons: computed once per data, scaled into pixels per size and mode.
    const double width = m_xhi - m_xlo;
    for (Curve &c : m_curves) {
        c.unit.clear();
        c.unit.reserve(qsizetype(c.bins.size()) + 2);
        c.unit << QPointF((c.bins.front().left - m_xlo) / width, 0);
        for (const Bin &b : c.bins)
            c.unit << QPointF(((b.left + b.right) / 2 - m_xlo) / width, b.count / m_ymax);
        c.unit << QPointF((c.bins.back().right - m_xlo) / width, 0);
    }
}

void HistogramPlot::setHistograms(const QList<run::RunMedia::StepHistogram> &steps)
{
    m_scene.setHistograms(steps);
    m_hover.reset();
    m_stale = true;
    update();
}

void HistogramPlot::setEmptyText(const QString &text)
{
    m_scene.m_emptyText = text;
    m_stale = true;
    update();
}

void HistogramPlot::setMode(Mode mode)
{
    if (mode == m_scene.m_mode)
        return;
    m_scene.m_mode = mode;
    m_hover.reset();
    m_stale = true;
    update();
}

QRectF HistogramScene::plotRect() const
{
    if (m_rectFor == m_size)
        return m_rect;
    // Room for the labels: the counts' on the left, the steps' on the right, the values' below.
    const QFontMetrics fm = QFontMetrics(m_font);
    const double left = fm.horizontalAdvance(u"−0.0000"_s) + fm.height() + 12;
    const double right = fm.horizontalAdvance(u"000000"_s) + fm.height() + 12;
    const double bottom = 2.5 * fm.height() + 10;
    const double top = fm.height() + 10; // the readout's line
    m_rect = QRectF(left, top, std::max(10.0, m_size.width() - left - right),
                    std::max(10.0, m_size.height() - top - bottom));
    m_rectFor = m_size;
    return m_rect;
}

double HistogramScene::heightOfCurves() const
{
    const QRectF r = plotRect();
    return m_mode == Mode::Offset && m_curves.size() > 1 ? r.height() * kHistogramOffsetDepth : r.height();
}

double HistogramScene::baselineOf(int curve) const
{
    const QRectF r = plotRect();
    if (m_mode == Mode::Overlay || m_curves.size() < 2)
        return r.bottom();
    const double first = double(m_curves.front().step), last = double(m_curves.back().step);
    const double t = last > first ? (double(m_curves.at(curve).step) - first) / (last - first) : 1.0;
    const double h = heightOfCurves();
    return r.top() + h + (r.height() - h) * t;
}

QPolygonF HistogramScene::pixelsOf(int curve) const
{
    const QRectF r = plotRect();
    const double base = baselineOf(curve), h = heightOfCurves();
    QPolygonF out = m_curves.at(curve).unit;
    for (QPointF &p : out)
        p = QPointF(r.left() + p.x() * r.width(), base - p.y() * h);
    return out;
}

QColor HistogramScene::colorOf(int curve) const
{
    // TensorBoard's orange, light for the first step and dark for the last.
    const double t = m_curves.size() > 1 ? double(curve) / double(m_curves.size() - 1) : 1.0;
    return QColor::fromHslF(0.055f, 0.85f, float(0.78 - 0.43 * t));
}

QPointF HistogramScene::pointOf(int curve, int bin) const
{
    const QRectF r = plotRect();
    const QPointF unit = m_curves.at(curve).unit.at(bin + 1);
    return QPointF(r.left() + unit.x() * r.width(), baselineOf(curve) - unit.y() * heightOfCurves());
}

void HistogramScene::drawAxes(QPainter &p) const
{
    const QRectF r = plotRect();
    const QFontMetrics fm = QFontMetrics(m_font);
    p.setPen(m_palette.color(QPalette::Mid));
    p.drawLine(r.bottomLeft(), r.bottomRight());
    p.setPen(m_palette.color(QPalette::Text));
    // x: the values.
    const PlotAxis x{u"value"_s, false, m_xlo, m_xhi, {}, false, {}};
    for (const auto &tick : x.ticks(kHistogramTicks)) {
        const double px = r.left() + tick.at * r.width();
        p.drawLine(QPointF(px, r.bottom()), QPointF(px, r.bottom() + 4));
        const double w = fm.horizontalAdvance(tick.label);
        p.drawText(QPointF(px - w / 2, r.bottom() + 4 + fm.ascent()), tick.label);
    }
    const QString xTitle = tr("value");
    p.drawText(QPointF(r.center().x() - fm.horizontalAdvance(xTitle) / 2.0, r.bottom() + 6 + fm.height() + fm.ascent()),
               xTitle);
    // y: the count (overlay) on the left, or the step (offset) on the right.
    const bool offset = m_mode == Mode::Offset && m_curves.size() > 1;
    const PlotAxis y =
        offset ? PlotAxis{u"step"_s, false, double(m_curves.front().step), double(m_curves.back().step), {}, false, {}}
               : PlotAxis{u"count"_s, false, 0, m_ymax, {}, false, {}};
    const double yTop = offset ? r.top() + heightOfCurves() : r.top();
    for (const auto &tick : y.ticks(kHistogramTicks)) {
        // Steps go down the axis (the first at the back and top); counts go up.
        const double py = offset ? yTop + tick.at * (r.bottom() - yTop) : r.bottom() - tick.at * (r.bottom() - yTop);
        if (offset) {
            p.drawLine(QPointF(r.right(), py), QPointF(r.right() + 4, py));
            p.drawText(QPointF(r.right() + 6, py + fm.ascent() / 2.0 - 1), tick.label);
        } else {
            p.drawLine(QPointF(r.left() - 4, py), QPointF(r.left(), py));
            p.drawText(QPointF(r.left() - 6 - fm.horizontalAdvance(tick.label), py + fm.ascent() / 2.0 - 1),
                       tick.label);
        }
    }
    // The colours' legend: the first step's to the last's, at the top right.
    const QString first = QString::number(m_curves.front().step), last = QString::number(m_curves.back().step);
    const double barWidth = 90, barRight = r.right();
    const double barLeft = barRight - barWidth, lineY = 2 + (fm.height() + 4) / 2.0;
    QLinearGradient gradient(barLeft, 0, barRight, 0);
    for (int i = 0; i <= 4; ++i) {
        const int curve = int(double(i) / 4 * double(m_curves.size() - 1));
        gradient.setColorAt(double(i) / 4, colorOf(curve));
    }
    p.fillRect(QRectF(barLeft, lineY - 5, barWidth, 10), gradient);
    p.drawText(QPointF(barLeft - 6 - fm.horizontalAdvance(first), lineY + fm.ascent() / 2.0 - 1), first);
    const QString stepWord = tr("step");
    p.drawText(QPointF(barLeft - 12 - fm.horizontalAdvance(first) - fm.horizontalAdvance(stepWord),
                       lineY + fm.ascent() / 2.0 - 1),
               stepWord);
    p.drawText(QPointF(barRight + 6, lineY + fm.ascent() / 2.0 - 1), last);
    const QString yTitle = offset ? tr("step") : tr("count");
    p.save();
    const double yMid = (yTop + r.bottom()) / 2;
    if (offset) {
        p.translate(m_size.width() - 4 - fm.descent(), yMid + fm.horizontalAdvance(yTitle) / 2.0);
    } else {
        p.translate(4 + fm.ascent(), yMid + fm.horizontalAdvance(yTitle) / 2.0);
    }
    p.rotate(-90);
    p.drawText(QPointF(0, 0), yTitle);
    p.restore();
}

QImage HistogramScene::draw(qreal dpr) const
{
    QImage picture(m_size * dpr, QImage::Format_ARGB32_Premultiplied);
    picture.setDevicePixelRatio(dpr);
    picture.fill(m_palette.color(QPalette::Base));
    QPainter p(&picture);
    p.setFont(m_font);
    if (m_curves.isEmpty()) {
        p.setPen(m_palette.color(QPalette::PlaceholderText));
        p.drawText(QRect(QPoint(), m_size).adjusted(20, 20, -20, -20), Qt::AlignCenter | Qt::TextWordWrap, m_emptyText);
        return picture;
    }
    drawAxes(p);
    p.setClipRect(plotRect().adjusted(-1, -heightOfCurves(), 1, 1));
    const bool offset = m_mode == Mode::Offset;
    const QColor base = m_palette.color(QPalette::Base);
    const auto mix = [&base](const QColor &c) { // a curve's fill: its colour, faded into the background
        return QColor::fromRgbF(float(c.redF() * 0.3 + base.redF() * 0.7),
                                float(c.greenF() * 0.3 + base.greenF() * 0.7),
                                float(c.blueF() * 0.3 + base.blueF() * 0.7));
    };
    for (int i = 0; i < int(m_curves.size()); ++i) {
        const QPolygonF poly = pixelsOf(i);
        const QColor c = colorOf(i);
        if (offset) {
            // Nearer curves hide the ones behind them, as TensorBoard's offset view. The fill is
            // not antialiased (its edge lies under the curve's antialiased line): 175 ms became 19 ms (histograms.sh).
            p.setRenderHint(QPainter::Antialiasing, false);
            p.setPen(Qt::NoPen);
            p.setBrush(mix(c));
            p.drawPolygon(poly);
        }
        p.setRenderHint(QPainter::Antialiasing, true);
        p.setPen(QPen(c, 1.0));
        p.drawPolyline(poly);
    }
    return picture;
}

QPointF HistogramPlot::pointOf(int curve, int bin) const
{
    return m_scene.pointOf(curve, bin);
}

void HistogramPlot::buildPicture()
{
    m_stale = false;
    if (m_drawBusy) { // after this one: the newest scene
        m_drawAgain = true;
        return;
    }
    m_drawBusy = true;
    ++m_builds;
    // A copy of the scene (its curves shared, copied on write) drawn by the thread pool.
    m_drawing.setFuture(QtConcurrent::run([scene = m_scene, dpr = devicePixelRatioF()] { return scene.draw(dpr); }));
}

void HistogramPlot::pictureDrawn()
{
    m_drawBusy = false;
    m_picture = m_drawing.result();
    if (m_drawAgain) {
        m_drawAgain = false;
        buildPicture();
    }
    update();
    if (!isDrawing())
        Q_EMIT pictureReady();
}

void HistogramPlot::paintEvent(QPaintEvent *)
{
    if (m_stale)
        buildPicture();
    QPainter p(this);
    // The picture, drawn off the GUI thread; the last one (scaled) while the next is drawn.
    if (m_picture.isNull())
        p.fillRect(rect(), palette().color(QPalette::Base));
    else if (m_picture.size() == size() * devicePixelRatioF())
        p.drawImage(QPointF(0, 0), m_picture);
    else
        p.drawImage(QRectF(rect()), m_picture);
    if (!m_hover || m_hover->curve >= int(m_scene.m_curves.size()) || isDrawing())
        return;
    // The curve under the pointer over the others, its bin marked, and what it reads.
    p.setRenderHint(QPainter::Antialiasing, true);
    p.setPen(QPen(palette().color(QPalette::Text), 2.0));
    p.drawPolyline(m_scene.pixelsOf(m_hover->curve));
    const QPointF at = m_scene.pointOf(m_hover->curve, m_hover->bin);
    p.setBrush(palette().color(QPalette::Highlight));
    p.drawEllipse(at, 4, 4);
    p.setPen(palette().color(QPalette::Text));
    p.drawText(QRectF(m_scene.plotRect().left(), 2, m_scene.plotRect().width(), fontMetrics().height() + 4),
               Qt::AlignLeft | Qt::AlignVCenter, readout());
}

void HistogramPlot::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::FontChange || event->type() == QEvent::PaletteChange) {
        m_scene.setLook(font(), palette());
        m_stale = true;
    }
    QWidget::changeEvent(event);
}

void HistogramPlot::resizeEvent(QResizeEvent *event)
{
    m_scene.setSize(size());
    m_stale = true;
    QWidget::resizeEvent(event);
}

std::optional<HistogramPlot::Reading> HistogramPlot::readingAt(QPointF at) const
{
    if (m_scene.m_curves.isEmpty())
        return std::nullopt;
    const QRectF r = m_scene.plotRect();
    if (at.x() < r.left() || at.x() > r.right())
        return std::nullopt;
    const double value = m_scene.m_xlo + (at.x() - r.left()) / r.width() * (m_scene.m_xhi - m_scene.m_xlo);
    auto binOf = [value](const Curve &c) {
        int best = 0;
        double bestDistance = std::numeric_limits<double>::infinity();
        for (int b = 0; b < int(c.bins.size()); ++b) {
            const Bin &bin = c.bins[size_t(b)];
            if (value >= bin.left && value < bin.right)
                return b;
            const double d = std::min(std::abs(value - bin.left), std::abs(value - bin.right));
            if (d < bestDistance) {
                bestDistance = d;
                best = b;
            }
        }
        return best;
    };
    // The curve drawn nearest the pointer at its value (in offset mode, the step stacked there).
    int curve = 0;
    double best = std::numeric_limits<double>::infinity();
    for (int i = 0; i < int(m_scene.m_curves.size()); ++i) {
        const double d = std::abs(m_scene.pointOf(i, binOf(m_scene.m_curves.at(i))).y() - at.y());
        if (d < best) {
            best = d;
            curve = i;
        }
    }
    Reading reading;
    reading.curve = curve;
    reading.step = m_scene.m_curves.at(curve).step;
    reading.bin = binOf(m_scene.m_curves.at(curve));
    reading.value = m_scene.m_curves.at(curve).bins[size_t(reading.bin)];
    return reading;
}

QString HistogramPlot::readout() const
{
    if (!m_hover)
        return {};
    return tr("step %1 · [%2, %3): %4")
        .arg(m_hover->step)
        .arg(histogramNumber(m_hover->value.left), histogramNumber(m_hover->value.right),
             histogramNumber(m_hover->value.count));
}

void HistogramPlot::setHover(std::optional<Reading> reading)
{
    const bool same = reading.has_value() == m_hover.has_value() &&
                      (!reading || (reading->curve == m_hover->curve && reading->bin == m_hover->bin));
    m_hover = reading;
    if (same)
        return;
    update();
    Q_EMIT readingChanged();
}

void HistogramPlot::mouseMoveEvent(QMouseEvent *event)
{
    setHover(readingAt(event->position()));
}

void HistogramPlot::leaveEvent(QEvent *event)
{
    setHover(std::nullopt);
    QWidget::leaveEvent(event);
}

} // namespace ferry::ui
