#include "ui/notebook/cellmetrics.h"

#include "metrics/terminaltext.h"
#include "ui/chart/losschart.h"
#include "ui/chart/losschartpanel.h"
#include "ui/chart/seriesstore.h"

#include <QDateTime>

using namespace Qt::StringLiterals;

namespace ferry::ui {

namespace {

constexpr int kChartHeight = 300;
constexpr qsizetype kMostPartialLine = 1 << 20; // a "line" longer than this is no metric's

} // namespace

CellMetrics::CellMetrics(QString series, QString label, QObject *parent)
    : QObject(parent), m_series(std::move(series)), m_label(std::move(label)), m_store(std::make_shared<SeriesStore>())
{
}

CellMetrics::~CellMetrics() = default;

void CellMetrics::feed(const QString &text)
{
    m_partial += text;
    const qsizetype end = m_partial.lastIndexOf(u'\n');
    if (end < 0) {
        if (m_partial.size() > kMostPartialLine)
            m_partial.clear();
        return;
    }
    const QString lines = m_partial.left(end);
    m_partial.remove(0, end + 1);
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    QList<run::MetricPoint> points;
    for (const QString &line : lines.split(u'\n')) {
        for (const QString &record : run::metricRecords(QByteArrayView(line.toUtf8())))
            m_parser.parseLine(record, now, points);
    }
    if (points.isEmpty())
        return;
    QHash<QString, std::vector<ChartPoint>> byMetric;
    for (const run::MetricPoint &p : std::as_const(points))
        byMetric[p.name].push_back(ChartPoint{p.step, p.wallMs, p.value, p.epoch});
    for (auto it = byMetric.begin(); it != byMetric.end(); ++it) {
        m_store->append(m_store->series(m_series, it.key()), it.value());
        m_counts[it.key()] += qsizetype(it.value().size());
    }
    if (!m_chart) {
        m_chart = new LossChartPanel;
        m_chart->setObjectName(u"cellChart"_s);
        m_chart->setStore(m_store);
        m_chart->chart()->setRunLabel(m_series, m_label);
        m_chart->setFixedHeight(kChartHeight);
        Q_EMIT chartMade(m_chart);
    }
}

} // namespace ferry::ui
