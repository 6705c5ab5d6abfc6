// The chart's settings of one workspace, read from and written to its .ferry/chart.json.
#include "ui/chart/chartsettings.h"

#include "common/textfile.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace ferry::ui {

namespace {
// A handful of names and flags: a file past this is not one Ferry wrote.
constexpr qint64 kMostChartSettingsBytes = 1024 * 1024;
} // namespace

Expected<ChartSettings> readChartSettings(const QString &path)
{
    ChartSettings s;
    if (path.isEmpty() || !QFileInfo::exists(path))
        return s;
    const auto text = readTextFile(path, kMostChartSettingsBytes);
    if (!text)
        return text.error();
    const QJsonDocument doc = QJsonDocument::fromJson(text->toUtf8());
    if (!doc.isObject())
        return Error{u"chart settings: not a JSON object"_s, path, 0, 0,
                     u"delete the file: the chart starts with its defaults"_s};
    const QJsonObject o = doc.object();
    s.groupBy = o.value(u"groupBy"_s).toString();
    s.median = o.value(u"statistic"_s).toString() == "median"_L1;
    s.minMaxBand = o.value(u"band"_s).toString() == "minmax"_L1;
    s.xAxis = o.value(u"xAxis"_s).toString(s.xAxis);
    s.logX = o.value(u"logX"_s).toBool();
    s.logY = o.value(u"logY"_s).toBool();
    s.smoothing = std::clamp(o.value(u"smoothing"_s).toInt(), 0, 99);
    for (const QJsonValue &key : o.value(u"hiddenPanels"_s).toArray()) {
        if (key.isString())
            s.hiddenPanels << key.toString();
    }
    return s;
}

Expected<void> writeChartSettings(const QString &path, const ChartSettings &s)
{
    const QJsonObject o{
        {u"groupBy"_s, s.groupBy},
        {u"statistic"_s, s.median ? u"median"_s : u"mean"_s},
        {u"band"_s, s.minMaxBand ? u"minmax"_s : u"std"_s},
        {u"xAxis"_s, s.xAxis},
        {u"logX"_s, s.logX},
        {u"logY"_s, s.logY},
        {u"smoothing"_s, s.smoothing},
        {u"hiddenPanels"_s, QJsonArray::fromStringList(s.hiddenPanels)},
    };
    return writeTextFileAtomically(path, QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Indented)));
}

} // namespace ferry::ui
