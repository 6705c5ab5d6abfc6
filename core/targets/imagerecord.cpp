#include "targets/imagerecord.h"

#include "common/safefile.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>
#include <QSet>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace ferry::targets {

namespace {

constexpr qint64 kMostPackageBytes = 16 * 1024 * 1024;

// What the image resolved: pip's and conda's lists, whichever it has (sh: any image has it).
const char kListPackages[] = R"SH(
for p in python3 python; do
  if command -v "$p" >/dev/null 2>&1 && "$p" -m pip --version >/dev/null 2>&1; then
    "$p" -m pip freeze --all 2>/dev/null; break
  fi
done
command -v conda >/dev/null 2>&1 && conda list --export 2>/dev/null | grep -v '^#'
exit 0
)SH";

QByteArray sortedLines(const QByteArray &text)
{
    QList<QByteArray> lines = text.split('\n');
    lines.removeAll(QByteArray());
    std::sort(lines.begin(), lines.end());
    lines.erase(std::unique(lines.begin(), lines.end()), lines.end());
    return lines.isEmpty() ? QByteArray() : lines.join('\n') + '\n';
}

Expected<QByteArray> listPackages(const ContainerEngine &engine, const QString &image)
{
    const QStringList args{u"run"_s,  u"--rm"_s,         u"--network"_s,
                           u"none"_s, u"--entrypoint"_s, u"sh"_s,
                           image,     u"-c"_s,           QString::fromLatin1(kListPackages)};
    const EngineResult r = engine.run(args, 120000);
    if (!r.ok())
        return engine.error(u"cannot list the packages of image %1"_s.arg(image), args, r);
    return sortedLines(r.out);
}

} // namespace

Expected<QString> imageIdOf(const ContainerEngine &engine, const QString &image)
{
    const QStringList args{u"image"_s, u"inspect"_s, u"--format"_s, u"{{.Id}}"_s, image};
    const EngineResult r = engine.run(args);
    if (!r.ok())
        return engine.error(u"cannot read the id of image %1"_s.arg(image), args, r);
    return QString::fromUtf8(r.out).trimmed();
}

Expected<ImageFacts> recordImageFacts(const ContainerEngine &engine, const QString &image, const QString &runDir)
{
    const auto id = imageIdOf(engine, image);
    if (!id)
        return id.error();
    ImageFacts facts{*id, {}};
    // The workspace's list for this id: .ferry/images/ID.txt beside .ferry/runs/.
    const QString name = QString(*id).remove(u"sha256:"_s).remove(QRegularExpression(u"[^0-9a-f]"_s));
    const QString cacheDir = QDir::cleanPath(runDir + u"/../../images"_s);
    const QString cached = cacheDir + u'/' + name + u".txt"_s;
    if (const auto kept = readRegularFile(cached, kMostPackageBytes); kept && kept->has_value() && !name.isEmpty()) {
        facts.packages = **kept;
    } else {
        const auto listed = listPackages(engine, image);
        if (!listed)
            return listed.error();
        facts.packages = *listed;
        if (!name.isEmpty() && QDir().mkpath(cacheDir))
            (void)replaceFileSafely(cached, facts.packages);
    }
    if (const auto written = replaceFileSafely(QDir(runDir).filePath(kPackagesFile), facts.packages); !written)
        return written.error();
    return facts;
}

std::optional<QByteArray> readRunPackages(const QString &runDir)
{
    const auto bytes = readRegularFile(QDir(runDir).filePath(kPackagesFile), kMostPackageBytes);
    return bytes ? *bytes : std::nullopt;
}

QStringList packageChanges(const QByteArray &before, const QByteArray &after)
{
    const auto set = [](const QByteArray &text) {
        QSet<QString> lines;
        for (const QByteArray &line : text.split('\n')) {
            if (!line.trimmed().isEmpty())
                lines.insert(QString::fromUtf8(line.trimmed()));
        }
        return lines;
    };
    const QSet<QString> a = set(before), b = set(after);
    QStringList changes;
    for (const QString &line : b - a)
        changes << u'+' + line;
    for (const QString &line : a - b)
        changes << u'-' + line;
    std::sort(changes.begin(), changes.end(),
              [](const QString &x, const QString &y) { return x.mid(1) == y.mid(1) ? x < y : x.mid(1) < y.mid(1); });
    return changes;
}

} // namespace ferry::targets
