// RunDistributionsView: the Distributions page of the Media tab: one run's histogram tag over its steps.
#pragma once

// A run (of those given), a histogram tag of it and a mode (offset or overlay, as TensorBoard's
// histogram view) above a HistogramPlot (ui/media/histogramplot.h) of at most kMostHistogramSteps
// steps spread over the tag's (read off the GUI thread: ui/media/mediareads.h). Histograms that
// cannot be read are named under the plot. refresh() reads the tag again (new steps while the run
// writes).
#include "ui/media/imagesview.h"
#include "ui/media/mediareads.h"

#include <QFutureWatcher>
#include <QThreadPool>
#include <QWidget>

class QComboBox;
class QLabel;

namespace ferry::ui {

class HistogramPlot;

class RunDistributionsView final : public QWidget {
    Q_OBJECT
public:
    explicit RunDistributionsView(QWidget *parent = nullptr);
    ~RunDistributionsView() override;

    void setStore(const run::RunStore *store, const QString &runsDir); // waits for reads of the old one
    void setRuns(const QStringList &runIds);
    void setRunLooks(const MediaRunLooks &looks);
    void refresh();

    // For tests and screenshots.
    QComboBox *runBox() const { return m_run; }
    QComboBox *tagBox() const { return m_tag; }
    QComboBox *modeBox() const { return m_mode; }
    HistogramPlot *plot() const { return m_plot; }
    QLabel *notes() const { return m_notes; }
    const HistogramSeries &series() const { return m_series; }
    bool isReading() const;

Q_SIGNALS:
    void readDone();

private:
    struct Read {
        quint64 generation = 0;
        QStringList tags;
        HistogramSeries series;
    };
    void read();
    void readFinished();
    void showRead(const Read &read);

    const run::RunStore *m_store = nullptr;
    QString m_runsDir;
    QStringList m_ids;
    MediaRunLooks m_looks;
    quint64 m_generation = 0;
    QThreadPool m_pool;
    QFutureWatcher<Read> m_watch;
    bool m_busy = false; // a read is under way (until its result is taken)
    bool m_again = false;
    HistogramSeries m_series;
    QStringList m_tags;

    QComboBox *m_run;
    QComboBox *m_tag;
    QComboBox *m_mode;
    HistogramPlot *m_plot;
    QLabel *m_notes;
};

} // namespace ferry::ui
