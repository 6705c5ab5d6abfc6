// HistogramPlot: a histogram tag's steps drawn as TensorBoard's histogram view draws them.
#pragma once

// Two modes, as TensorBoard's Histograms dashboard: *offset* draws one curve per step, each on a
// baseline of its own stacked in depth (the first step at the back and top, later ones nearer and
// lower, the step axis on the right), *overlay* draws every curve on one baseline (the count axis
// on the left); in both a curve's colour says its step (light: early, dark: late). A curve goes
// through its bins' centres (x: the value, y: the bin's count). The pointer reads the nearest
// step's bin: its range, its count and the step, and that curve is drawn over the others.
//
// Drawing 1,000 steps of 30 bins stays within a frame (tests/bench/histograms.sh): each curve is
// kept as a polygon in the unit square (precomputed once per data), turned into pixels and drawn
// into a cached picture only when the data, the mode or the size changes; a frame (a pointer move)
// draws that picture and the one curve under the pointer.
#include "tracking/runmedia.h"

#include <QImage>
#include <QList>
#include <QPolygonF>
#include <QWidget>

#include <optional>
#include <vector>

namespace ferry::ui {

class HistogramPlot final : public QWidget {
    Q_OBJECT
public:
    enum class Mode { Offset, Overlay };

    explicit HistogramPlot(QWidget *parent = nullptr);

    // A tag's histograms, by step; `empty` is said in the middle when there are none.
    void setHistograms(const QList<run::RunMedia::StepHistogram> &steps);
    void setEmptyText(const QString &text);
    void setMode(Mode mode);
    Mode mode() const { return m_mode; }

    // A step's bins as drawn: left and right edges and the count of each.
    struct Bin {
        double left = 0, right = 0, count = 0;
    };
    struct Curve {
        qint64 step = 0;
        std::vector<Bin> bins;
        QPolygonF unit; // x: the value's place in the x range, y: the count's in [0, max count]
    };
    const QList<Curve> &curves() const { return m_curves; }
    double valueMin() const { return m_xlo; }
    double valueMax() const { return m_xhi; }
    double countMax() const { return m_ymax; }

    // What the pointer at `at` reads: the step, its bin under the pointer.
    struct Reading {
        int curve = -1; // index in curves()
        qint64 step = 0;
        int bin = -1;
        Bin value;
    };
    std::optional<Reading> readingAt(QPointF at) const;
    std::optional<Reading> reading() const { return m_hover; }
    QString readout() const; // "step 400 · [−0.2, −0.1): 12"; empty with no pointer
    // A point on a curve's bin centre in the widget (tests move the pointer there).
    QPointF pointOf(int curve, int bin) const;
    int pictureBuilds() const { return m_builds; } // how often the cached picture was drawn anew

Q_SIGNALS:
    void readingChanged(); // the pointer reads another step or bin, or none

protected:
    void paintEvent(QPaintEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    void changeEvent(QEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void leaveEvent(QEvent *event) override;

private:
    QRectF plotRect() const;
    double baselineOf(int curve) const; // pixels
    double heightOfCurves() const;      // pixels a full count spans
    QPolygonF pixelsOf(int curve) const;
    QColor colorOf(int curve) const;
    void buildPicture();
    void drawAxes(QPainter &p) const;
    void setHover(std::optional<Reading> reading);

    Mode m_mode = Mode::Offset;
    QList<Curve> m_curves;
    double m_xlo = 0, m_xhi = 1, m_ymax = 1;
    QString m_emptyText;
    QImage m_picture;      // the curves and axes, drawn for the current size and mode
    mutable QRectF m_rect; // plotRect(), for the size it was laid out for
    mutable QSize m_rectFor;
    bool m_stale = true;
    std::optional<Reading> m_hover;
    int m_builds = 0;
};

} // namespace ferry::ui
