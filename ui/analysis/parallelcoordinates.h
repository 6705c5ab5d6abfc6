// ParallelCoordinates: one vertical axis per value, a line per run or trial across them, ranges
// brushed on the axes.
#pragma once

// Parallel coordinates over a PlotTable (ui/analysis/plottable.h), shared by the sweep view and
// the analysis tab: the axes with their names and ticks, each line coloured by the table's colour
// scale (its legend under the plot), the highlighted lines black on top. Drag along an axis to keep
// the lines in that range (rangesChanged); a click on the axis lets all through again. The pointer
// over a line names it (a tooltip with its values); a click on a line away from the axes says
// which (lineClicked).
#include "ui/analysis/plottable.h"

#include <QImage>
#include <QWidget>

#include <optional>

namespace ferry::ui {

class ParallelCoordinates final : public QWidget {
    Q_OBJECT
public:
    explicit ParallelCoordinates(QWidget *parent = nullptr);
    QSize sizeHint() const override { return {640, 300}; }

    // The table drawn (not owned: the view that owns it repaints this when it changes).
    void setData(PlotTable *table);
    // What the plot says with no line to draw.
    void setEmptyText(const QString &text);

    // Where axis `axis` is drawn, and its [0, 1] span in y (for tests driving it by mouse).
    double axisX(int axis) const;
    std::pair<double, double> axisSpan() const; // y of position 1 (top) and 0 (bottom)
    // The line nearest to `at` within a few pixels (between two axes, or on one), for hover and
    // clicks; none when no line passes there.
    std::optional<std::size_t> lineAt(const QPointF &at) const;
    QRectF colorScaleBar() const { return m_scaleBar; } // where the colour scale was last drawn

Q_SIGNALS:
    void rangesChanged();
    void lineClicked(const QString &key);

protected:
    void paintEvent(QPaintEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    bool event(QEvent *event) override; // the tooltip

private:
    std::optional<int> axisAt(double x) const;
    double positionAt(double y) const;
    double yOf(double position) const;
    void drawLines(QPainter &p); // every line, into the cached layer
    QString lineText(std::size_t line) const;

    PlotTable *m_data = nullptr;
    QString m_emptyText;
    QImage m_layer; // the lines, for m_layerKey at this size
    quint64 m_layerKey = 0;
    std::optional<int> m_dragAxis;
    double m_dragFrom = 0;
    bool m_dragged = false;
    QPointF m_pressedAt;
    QRectF m_scaleBar;
};

} // namespace ferry::ui
