#include "cli/runsmedia.h"

#include "tracking/runmedia.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>

#include <cmath>
#include <functional>
#include <limits>

using namespace Qt::StringLiterals;

namespace ferry::cli {

namespace {

using run::MediaItem;
using run::MediaKind;

// --step N: nullopt when not given; an Error for what is no step.
Expected<std::optional<qint64>> stepOption(const QCommandLineParser &parser)
{
    if (!parser.isSet(u"step"_s))
        return std::optional<qint64>{};
    bool ok = false;
    const qint64 step = parser.value(u"step"_s).toLongLong(&ok);
    if (!ok)
        return Error{u"--step takes a whole number, not '%1'"_s.arg(parser.value(u"step"_s)), {}, 0, 0, {}};
    return std::optional<qint64>{step};
}

// The tags asked for (--tag, else all of the kind); prints why not when --tag names none.
std::optional<QStringList> tagsAsked(const QCommandLineParser &parser, const run::RunMedia &media, MediaKind kind,
                                     const QString &command, const QString &runId, Io &io)
{
    const QStringList all = media.tags(kind);
    if (!parser.isSet(u"tag"_s))
        return all;
    const QString tag = parser.value(u"tag"_s);
    if (all.contains(tag))
        return QStringList{tag};
    io.err << "ferry runs " << command << ": run " << runId << " has no " << run::mediaKindText(kind) << " tag '" << tag
           << "'" << (all.isEmpty() ? u" (it has none)"_s : u" (its tags: %1)"_s.arg(all.join(u", "_s))) << Qt::endl;
    return std::nullopt;
}

// A double as JSON has it: NaN and the infinities (which JSON lacks) as null.
QJsonValue number(double x)
{
    return std::isfinite(x) ? QJsonValue(x) : QJsonValue();
}

// A string as JSON writes it, quotes and escapes and all.
QString jsonString(const QString &text)
{
    return QString::fromUtf8(QJsonDocument(QJsonArray{text}).toJson(QJsonDocument::Compact).mid(1).chopped(1));
}

QJsonArray numbers(const std::vector<double> &values)
{
    QJsonArray array;
    for (const double x : values)
        array.append(number(x));
    return array;
}

QString extensionOf(const QString &format)
{
    return format == run::mediaformat::kJpeg ? u"jpg"_s : format;
}

// A tag as a relative folder: its '/'-separated parts kept, each made of letters, digits and
// . _ - (anything else becomes _); no part climbs out or is hidden.
QString tagFolder(const QString &tag)
{
    QStringList parts;
    for (const QString &part : tag.split(u'/', Qt::SkipEmptyParts)) {
        QString safe;
        for (const QChar c : part)
            safe += (c.isLetterOrNumber() && c.unicode() < 128) || c == u'_' || c == u'-' || c == u'.' ? c : u'_';
        if (safe.startsWith(u'.'))
            safe[0] = u'_';
        parts << safe;
    }
    return parts.isEmpty() ? u"_"_s : parts.join(u'/');
}

// One image written into DIR byte for byte, named for its tag and step; false when it could not be.
bool writeImage(const MediaItem &item, const run::RunMedia &media, const QString &dir, QSet<QString> &written, Io &io)
{
    const auto bytes = media.imageBytes(item);
    if (!bytes) {
        io.err << "ferry runs images: " << bytes.error().toString() << Qt::endl;
        return false;
    }
    const QString base = tagFolder(item.tag) + u'/' + QString::number(item.step) +
                         (item.sample > 0 ? u"-%1"_s.arg(item.sample) : QString());
    QString path = base + u'.' + extensionOf(item.format);
    // Two tags that become one folder (a b and a_b): the second gets a number.
    for (int n = 2; written.contains(path); ++n)
        path = base + u"~%1."_s.arg(n) + extensionOf(item.format);
    written.insert(path);
    const QString file = dir + u'/' + path;
    QDir().mkpath(QFileInfo(file).absolutePath());
    QFile out(file);
    if (!out.open(QIODevice::WriteOnly | QIODevice::Truncate) || out.write(*bytes) != bytes->size()) {
        io.err << "ferry runs images: cannot write " << file << ": " << out.errorString() << Qt::endl;
        return false;
    }
    return true;
}

QJsonObject imageJson(const MediaItem &item)
{
    return QJsonObject{{u"tag"_s, item.tag},       {u"step"_s, item.step},     {u"sample"_s, item.sample},
                       {u"wallMs"_s, item.wallMs}, {u"format"_s, item.format}, {u"width"_s, item.width},
                       {u"height"_s, item.height}, {u"bytes"_s, item.length},  {u"file"_s, item.file}};
}

QString compact(const QJsonObject &o)
{
    return QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Compact));
}

} // namespace

void addMediaOptions(QCommandLineParser &parser)
{
    parser.addOption({u"tag"_s, u"images, histograms: only this tag."_s, u"T"_s});
    parser.addOption({u"step"_s, u"images, histograms: only this step."_s, u"N"_s});
}

int printRunImages(const QCommandLineParser &parser, RunContext &context, const run::RunRecord &record, Io &io)
{
    const auto step = stepOption(parser);
    if (!step)
        return usageError(u"runs"_s, step.error().message, io);
    const run::RunMedia media(*context.store, runDirOf(context, record.id), record.id);
    const auto tags = tagsAsked(parser, media, MediaKind::Image, u"images"_s, record.id, io);
    if (!tags)
        return kExitUserError;
    // Each tag's steps (--step: that one where it has it); the items themselves are read a page
    // at a time below, so that memory holds a page however many images the run wrote.
    QList<std::pair<QString, QList<qint64>>> steps;
    for (const QString &tag : *tags) {
        QList<qint64> tagSteps = media.steps(MediaKind::Image, tag);
        if (*step)
            tagSteps = tagSteps.contains(**step) ? QList<qint64>{**step} : QList<qint64>{};
        if (!tagSteps.isEmpty())
            steps.append({tag, tagSteps});
    }
    if (*step && steps.isEmpty()) {
        io.err << "ferry runs images: run " << record.id << " has no image at step " << **step
               << (parser.isSet(u"tag"_s) ? u" of tag '%1'"_s.arg(parser.value(u"tag"_s)) : QString()) << Qt::endl;
        return kExitUserError;
    }
    const auto forEach = [&](const std::function<void(const MediaItem &)> &visit) {
        for (const auto &[tag, tagSteps] : std::as_const(steps)) {
            media.forEachItem(MediaKind::Image, tag, [&](const MediaItem &item) {
                if (!*step || item.step == **step)
                    visit(item);
                return !*step || item.step <= **step;
            });
        }
    };
    if (parser.isSet(u"output"_s)) {
        const QString dir = parser.value(u"output"_s);
        QSet<QString> written;
        qsizetype done = 0, failed = 0;
        forEach([&](const MediaItem &item) { ++(writeImage(item, media, dir, written, io) ? done : failed); });
        io.err << "wrote " << done << (done == 1 ? " image" : " images") << " to " << dir << Qt::endl;
        return failed > 0 ? kExitUserError : kExitOk;
    }
    if (parser.isSet(u"json"_s)) {
        io.out << "{\"run\": " << jsonString(record.id) << ",\n \"tags\": [";
        for (qsizetype i = 0; i < steps.size(); ++i) {
            QJsonArray list;
            for (const qint64 s : steps.at(i).second)
                list.append(s);
            io.out << (i > 0 ? ",\n  " : "\n  ")
                   << compact(QJsonObject{{u"tag"_s, steps.at(i).first}, {u"steps"_s, list}});
        }
        io.out << "],\n \"images\": [";
        bool first = true;
        forEach([&](const MediaItem &item) {
            io.out << (first ? "\n  " : ",\n  ") << compact(imageJson(item));
            first = false;
        });
        io.out << "]}\n";
        io.out.flush();
        return kExitOk;
    }
    if (steps.isEmpty()) {
        io.err << "run " << record.id << " has no images" << Qt::endl;
        return kExitOk;
    }
    io.out << u"%1  %2  %3  %4  %5"_s.arg(u"TAG"_s, -24)
                  .arg(u"STEP"_s, 8)
                  .arg(u"FORMAT"_s, -6)
                  .arg(u"SIZE"_s, -11)
                  .arg(u"BYTES"_s)
           << '\n';
    forEach([&](const MediaItem &item) {
        io.out << u"%1  %2  %3  %4  %5"_s
                      .arg(item.sample > 0 ? u"%1 #%2"_s.arg(item.tag).arg(item.sample) : item.tag, -24)
                      .arg(item.step, 8)
                      .arg(item.format, -6)
                      .arg(u"%1x%2"_s.arg(item.width).arg(item.height), -11)
                      .arg(item.length)
               << '\n';
    });
    io.out.flush();
    return kExitOk;
}

int printRunHistograms(const QCommandLineParser &parser, RunContext &context, const run::RunRecord &record, Io &io)
{
    const auto step = stepOption(parser);
    if (!step)
        return usageError(u"runs"_s, step.error().message, io);
    const bool json = parser.isSet(u"json"_s);
    const run::RunMedia media(*context.store, runDirOf(context, record.id), record.id);
    if (!parser.isSet(u"tag"_s)) {
        // The tags, with their steps' count: what --tag may name.
        QJsonArray tags;
        for (const QString &tag : media.tags(MediaKind::Histogram)) {
            const qsizetype steps = media.steps(MediaKind::Histogram, tag).size();
            if (json)
                tags.append(QJsonObject{{u"tag"_s, tag}, {u"steps"_s, steps}});
            else
                io.out << tag << "  (" << steps << (steps == 1 ? " step" : " steps") << ")\n";
        }
        if (json)
            io.out << QJsonDocument(QJsonObject{{u"run"_s, record.id}, {u"tags"_s, tags}}).toJson();
        else if (tags.isEmpty() && media.tags(MediaKind::Histogram).isEmpty())
            io.err << "run " << record.id << " has no histograms" << Qt::endl;
        return kExitOk;
    }
    const auto tags = tagsAsked(parser, media, MediaKind::Histogram, u"histograms"_s, record.id, io);
    if (!tags)
        return kExitUserError;
    const QString tag = tags->first();
    // One histogram read and printed at a time: memory holds one, however many steps there are.
    if (json)
        io.out << "{\"run\": " << jsonString(record.id) << ", \"tag\": " << jsonString(tag) << ", \"histograms\": [";
    int failed = 0;
    bool first = true;
    media.forEachItem(MediaKind::Histogram, tag, [&](const MediaItem &item) {
        if (*step && item.step != **step)
            return !*step || item.step < **step;
        const auto h = media.histogram(item);
        if (!h) {
            io.err << "ferry runs histograms: " << h.error().toString() << Qt::endl;
            ++failed;
            return true;
        }
        if (json) {
            QJsonObject o{{u"step"_s, item.step},
                          {u"wallMs"_s, item.wallMs},
                          {u"min"_s, number(h->min)},
                          {u"max"_s, number(h->max)},
                          {u"num"_s, number(h->num)},
                          {u"sum"_s, number(h->sum)},
                          {u"sum_squares"_s, number(h->sumSquares)},
                          {u"bucket_limit"_s, numbers(h->bucketLimit)},
                          {u"bucket"_s, numbers(h->bucket)}};
            io.out << (first ? "\n  " : ",\n  ") << QJsonDocument(o).toJson(QJsonDocument::Compact);
        } else {
            io.out << "step " << item.step << ": " << h->bucket.size() << " buckets, " << h->num << " values";
            if (!std::isnan(h->min) && !std::isnan(h->max))
                io.out << ", " << h->min << " to " << h->max;
            io.out << '\n';
        }
        first = false;
        return true;
    });
    if (json)
        io.out << (first ? "]}\n" : "\n]}\n");
    io.out.flush();
    if (*step && first && failed == 0) {
        io.err << "ferry runs histograms: run " << record.id << " has no histogram of '" << tag << "' at step "
               << **step << Qt::endl;
        return kExitUserError;
    }
    return failed > 0 ? kExitUserError : kExitOk;
}

void addMediaToJson(QJsonObject &o, RunContext &context, const run::RunRecord &record)
{
    const QMap<MediaKind, qint64> counts = context.store->mediaCounts(record.id);
    o[u"media"_s] = QJsonObject{{u"images"_s, counts.value(MediaKind::Image)},
                                {u"histograms"_s, counts.value(MediaKind::Histogram)},
                                {u"texts"_s, counts.value(MediaKind::Text)}};
    const run::RunMedia media(*context.store, runDirOf(context, record.id), record.id);
    QJsonObject texts;
    for (const QString &tag : media.tags(MediaKind::Text)) {
        QJsonArray steps;
        media.forEachItem(MediaKind::Text, tag, [&](const MediaItem &item) {
            QJsonObject entry{{u"step"_s, item.step}, {u"wallMs"_s, item.wallMs}};
            if (const auto text = media.text(item))
                entry[u"text"_s] = *text;
            else
                entry[u"error"_s] = text.error().toString();
            steps.append(entry);
            return true;
        });
        texts.insert(tag, steps);
    }
    o[u"text"_s] = texts;
}

void printMediaSummary(QTextStream &shown, RunContext &context, const run::RunRecord &record)
{
    const QMap<MediaKind, qint64> counts = context.store->mediaCounts(record.id);
    if (counts.isEmpty())
        return;
    QStringList parts;
    for (const auto &[kind, one, many] :
         {std::tuple{MediaKind::Image, "image", "images"}, std::tuple{MediaKind::Histogram, "histogram", "histograms"},
          std::tuple{MediaKind::Text, "text", "texts"}}) {
        if (const qint64 n = counts.value(kind))
            parts << u"%1 %2"_s.arg(n).arg(QLatin1StringView(n == 1 ? one : many));
    }
    shown << "media:     " << parts.join(u", "_s) << " (ferry runs images / histograms ID)\n";
    const run::RunMedia media(*context.store, runDirOf(context, record.id), record.id);
    for (const QString &tag : media.tags(MediaKind::Text)) {
        const auto last = media.atOrBefore(MediaKind::Text, tag, std::numeric_limits<qint64>::max());
        if (!last)
            continue;
        const auto text = media.text(*last);
        const QString line = text ? text->section(u'\n', 0, 0) : text.error().message;
        shown << "text:      " << tag << " at step " << last->step << ": "
              << (line.size() > 100 ? line.left(100) + u"…"_s : line) << '\n';
    }
}

} // namespace ferry::cli
