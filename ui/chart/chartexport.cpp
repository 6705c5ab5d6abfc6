#include "ui/chart/chartexport.h"

#include "ui/chart/seriesstore.h"

#include "data/csvsyntax.h"

#include <QImage>
#include <QLocale>
#include <QSaveFile>

using namespace Qt::StringLiterals;

namespace ferry::ui {

namespace {

QString number(double v)
{
    return QString::number(v, 'g', QLocale::FloatingPointShortest);
}

Error cannotWrite(const QSaveFile &file)
{
    return Error{QObject::tr("Cannot write the file: %1").arg(file.errorString()), file.fileName(), 0, 0,
                 QObject::tr("choose a folder you can write to")};
}

} // namespace

Expected<void> writeSeriesCsv(const QString &path, const SeriesStore &store, const std::vector<int> &series)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return cannotWrite(file);
    QByteArray out = "run,metric,step,wall_ms,value\n";
    for (const int id : series) {
        const SeriesData &data = store.data(id);
        const QByteArray prefix =
            (data::csv::quotedField(data.key().runId) % u',' % data::csv::quotedField(data.key().metric) % u',')
                .toUtf8();
        for (qsizetype i = 0; i < data.size(); ++i) {
            out += prefix;
            out += number(data.steps()[std::size_t(i)]).toLatin1();
            out += ',';
            out += QByteArray::number(qint64(data.wallMs()[std::size_t(i)]));
            out += ',';
            out += number(data.values()[std::size_t(i)]).toLatin1();
            out += '\n';
            if (out.size() > (1 << 20)) {
                if (file.write(out) != out.size())
                    return cannotWrite(file);
                out.clear();
            }
        }
    }
    if (file.write(out) != out.size() || !file.commit())
        return cannotWrite(file);
    return {};
}

Expected<void> writePng(const QString &path, const QImage &image)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || !image.save(&file, "PNG") || !file.commit())
        return cannotWrite(file);
    return {};
}

} // namespace ferry::ui
