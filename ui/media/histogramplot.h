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
// into a picture only when the data, the mode or the size changes, and that off the GUI thread (a
// HistogramScene, a value, drawn by the thread pool; the last picture stays, scaled, meanwhile); a
// frame (a pointer move) draws the picture and the one curve under the pointer.
#include "tracking/runmedia.h"

#include <QCoreApplication>
#include <QFont>
#include <QFutureWatcher>
#include <QImage>
#include <QList>
#include <QPalette>
#include <QPolygonF>
#include <QWidget>

#include <optional>
#include <vector>

namespace ferry::ui {

// What a HistogramPlot draws, as a value: the curves, the mode, the size, font and colours, and the
// geometry that places a curve. Copied to the thread that draws the picture.
class HistogramScene {
    Q_DECLARE_TR_FUNCTIONS(HistogramPlot)
public:
    enum class Mode { Offset, Overlay };
    // A step's bins as drawn: left and right edges and the count of each.
    struct Bin {
        double left = 0, right = 0, count = 0;
    };
    struct Curve {
        qint64 step = 0;
        std::vector<Bin> bins;
        QPolygonF unit; // x: the value's place in the x range, y: the count's in [0, max count]
    };

    HistogramScene();
    void setHistograms(const QList<run::RunMedia::StepHistogram> &steps);
    void setSize(QSize size);
    void setLook(const QFont &font, const QPalette &palette);

    QRectF plotRect() const;
    double baselineOf(int curve) const; // pixels
    double heightOfCurves() const;      // pixels a full count spans
    QPolygonF pixelsOf(int curve) const;
    QPointF pointOf(int curve, int bin) const;
    QColor colorOf(int curve) const;
    QImage draw(qreal dpr) const; // the curves and the axes (blocks: the plot calls it off the GUI thread)

    Mode m_mode = Mode::Offset;
    QList<Curve> m_curves;
    double m_xlo = 0, m_xhi = 1, m_ymax = 1;
    QString m_emptyText;

private:
    void drawAxes(QPainter &p) const;

    QSize m_size;
    QFont m_font;
    QPalette m_palette;
    mutable QRectF m_rect; // plotRect(), for the size it was laid out for
    mutable QSize m_rectFor;
};

class HistogramPlot final : public QWidget {
    Q_OBJECT
public:
    using Mode = HistogramScene::Mode;
    using Bin = HistogramScene::Bin;
    using Curve = HistogramScene::Curve;

    explicit HistogramPlot(QWidget *parent = nullptr);
    ~HistogramPlot() override; // waits for the picture being drawn

    // A tag's histograms, by step; the empty text is said in the middle when there are none.
    void setHistograms(const QList<run::RunMedia::StepHistogram> &steps);
    void setEmptyText(const QString &text);
    void setMode(Mode mode);
    Mode mode() const { return m_scene.m_mode; }

    const QList<Curve> &curves() const { return m_scene.m_curves; }
    double valueMin() const { return m_scene.m_xlo; }
    double valueMax() const { return m_scene.m_xhi; }
    double countMax() const { return m_scene.m_ymax; }

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
    int pictureBuilds() const { return m_builds; }           // how often the picture was drawn anew
    bool isDrawing() const { return m_stale || m_drawBusy; } // the picture shown is not the current one's

Q_SIGNALS:
    void readingChanged(); // the pointer reads another step or bin, or none
    void pictureReady();   // the picture of the current data, mode and size is shown

protected:
    void paintEvent(QPaintEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    void changeEvent(QEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void leaveEvent(QEvent *event) override;

private:
    void buildPicture();
    void pictureDrawn();
    void setHover(std::optional<Reading> reading);

    HistogramScene m_scene;
    QImage m_picture; // the last picture drawn
    bool m_stale = true;
    QFutureWatcher<QImage> m_drawing;
    bool m_drawBusy = false;  // a picture is being drawn (until it is taken)
    bool m_drawAgain = false; // the scene changed meanwhile
    std::optional<Reading> m_hover;
    int m_builds = 0;
};

} // namespace ferry::ui
