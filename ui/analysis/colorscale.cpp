#include "ui/analysis/colorscale.h"

#include <QFontMetricsF>
#include <QLinearGradient>
#include <QPainter>

#include <algorithm>
#include <iterator>

using namespace Qt::StringLiterals;

namespace ferry::ui {

QGradientStops ColorScale::values()
{
    // matplotlib's viridis at nine evenly spaced places.
    return {{0.0, QColor(68, 1, 84)},      {0.125, QColor(71, 45, 123)},  {0.25, QColor(59, 82, 139)},
            {0.375, QColor(44, 114, 142)}, {0.5, QColor(33, 145, 140)},   {0.625, QColor(40, 174, 128)},
            {0.75, QColor(94, 201, 98)},   {0.875, QColor(173, 220, 48)}, {1.0, QColor(253, 231, 37)}};
}

QGradientStops ColorScale::worstToBest()
{
    return {{0.0, QColor(230, 120, 30)}, {1.0, QColor(31, 90, 200)}};
}

QColor ColorScale::categoryColor(qsizetype i)
{
    static const QColor kTableau10[]{{78, 121, 167}, {242, 142, 43}, {225, 87, 89},   {118, 183, 178},
                                     {89, 161, 79},  {237, 201, 72}, {176, 122, 161}, {255, 157, 167},
                                     {156, 117, 95}, {186, 176, 172}};
    return kTableau10[std::size_t(i) % std::size(kTableau10)];
}

QColor ColorScale::colorAt(double t) const
{
    if (!categories.isEmpty())
        return categoryColor(std::clamp<qsizetype>(qsizetype(std::clamp(t, 0.0, 1.0) * double(categories.size())), 0,
                                                   categories.size() - 1));
    if (stops.isEmpty())
        return noValueColor();
    t = std::clamp(t, 0.0, 1.0);
    if (t <= stops.first().first)
        return stops.first().second;
    for (qsizetype i = 1; i < stops.size(); ++i) {
        const auto &[at, colour] = stops[i];
        if (t > at)
            continue;
        const auto &[before, from] = stops[i - 1];
        const double f = at > before ? (t - before) / (at - before) : 1.0;
        return QColor::fromRgbF(float(from.redF() + (colour.redF() - from.redF()) * f),
                                float(from.greenF() + (colour.greenF() - from.greenF()) * f),
                                float(from.blueF() + (colour.blueF() - from.blueF()) * f));
    }
    return stops.last().second;
}

QRectF drawColorScale(QPainter &p, const QRectF &area, const ColorScale &scale)
{
    if (scale.title.isEmpty() || scale.stops.isEmpty())
        return {};
    const QFontMetricsF fm(p.font());
    constexpr double kBarWidth = 120, kGap = 6;
    const double barHeight = std::min(10.0, area.height() - 4);
    const auto text = [&](double right, const QString &s) {
        const double w = fm.horizontalAdvance(s) + 1;
        p.drawText(QRectF(right - w, area.top(), w, area.height()), Qt::AlignLeft | Qt::AlignVCenter, s);
        return right - w;
    };
    p.save();
    p.setPen(QColor(90, 90, 90));
    if (!scale.categories.isEmpty()) {
        // Swatches from the right, the first category leftmost: as many as fit after the title.
        const double swatch = std::min(10.0, area.height() - 4);
        const double titleWidth = fm.horizontalAdvance(scale.title) + 3 * kGap;
        double width = 0;
        qsizetype shown = 0;
        for (; shown < scale.categories.size(); ++shown) {
            const double w = swatch + 3 + fm.horizontalAdvance(scale.categories[shown]) + 2 * kGap;
            if (titleWidth + width + w > area.width())
                break;
            width += w;
        }
        double x = area.right() - width;
        const QRectF all(x, area.top(), width, area.height());
        text(x - 2 * kGap, shown < scale.categories.size()
                               ? scale.title + u" (%1 more)"_s.arg(scale.categories.size() - shown)
                               : scale.title);
        for (qsizetype i = 0; i < shown; ++i) {
            p.fillRect(QRectF(x, area.center().y() - swatch / 2, swatch, swatch), ColorScale::categoryColor(i));
            x += swatch + 3;
            const double w = fm.horizontalAdvance(scale.categories[i]) + 1;
            p.drawText(QRectF(x, area.top(), w, area.height()), Qt::AlignLeft | Qt::AlignVCenter, scale.categories[i]);
            x += w + 2 * kGap - 1;
        }
        p.restore();
        return all;
    }
    double x = text(area.right(), scale.highLabel) - kGap;
    const QRectF bar(x - kBarWidth, area.center().y() - barHeight / 2, kBarWidth, barHeight);
    QLinearGradient gradient(bar.topLeft(), bar.topRight());
    gradient.setStops(scale.stops);
    p.fillRect(bar, gradient);
    p.setPen(QColor(160, 160, 160));
    p.setBrush(Qt::NoBrush);
    p.drawRect(bar);
    p.setPen(QColor(90, 90, 90));
    x = text(bar.left() - kGap, scale.lowLabel);
    text(x - 2 * kGap, scale.title);
    p.restore();
    return bar;
}

} // namespace ferry::ui
