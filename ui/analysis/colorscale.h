// ColorScale: a value's colour on a gradient, and the legend bar that lets a reader read it back.
#pragma once

// The colour rule of the plots over runs and trials: a place t in [0, 1] (a value's position
// between the least and the greatest, or a trial's rank) picks a colour on a gradient, and the
// legend (drawColorScale) shows the gradient with what its two ends stand for, so a colour can be
// read back as a value.
#include <QColor>
#include <QGradientStops>
#include <QRectF>
#include <QString>
#include <QStringList>

class QPainter;

namespace ferry::ui {

struct ColorScale {
    QString title;                   // what the colour shows: "colour: val_loss (last)"
    QString lowLabel, highLabel;     // what t = 0 and t = 1 stand for: the least and the greatest value
    QGradientStops stops = values(); // from t = 0 to t = 1
    // Categories instead of a gradient: category i of n is t = (i + 0.5) / n, in the i-th
    // colour of categoryColor; the legend shows a swatch for each.
    QStringList categories;

    QColor colorAt(double t) const; // t clamped to [0, 1]

    // Values from the least to the greatest: viridis (dark blue, green, yellow), readable by people
    // who tell red from green poorly and in grey.
    static QGradientStops values();
    // From the worst to the best: orange to blue (the sweep view's trials, by rank).
    static QGradientStops worstToBest();
    // The colour of category i: ten that stay apart (Tableau 10), then again.
    static QColor categoryColor(qsizetype i);
};

// Draws the legend, right-aligned in `area` (one line high): the title, the low label, the bar
// and the high label (or a swatch and name per category, as many as fit). Returns where the bar
// (or the swatches) are (empty: nothing drawn, the scale has no title).
QRectF drawColorScale(QPainter &p, const QRectF &area, const ColorScale &scale);

// The colour of a thing the colour scale leaves out: no value (grey), and one outside the
// ranges brushed on parallel coordinates (faint).
inline QColor noValueColor()
{
    return QColor(150, 150, 150);
}
inline QColor filteredOutColor()
{
    return QColor(215, 215, 215);
}

} // namespace ferry::ui
