#include "ui/chart/runcolors.h"

#include "common/textfile.h"

#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>

#include <algorithm>
#include <array>

using namespace Qt::StringLiterals;

namespace ferry::ui {

namespace {

// Glasbey et al., "Colour displays for categorical images" (Color Research & Application 32(4),
// 2007): seeded with the blue most plotting libraries start with, kept away from white and dark
// backgrounds, lightness 35..72 and chroma >= 30 in CIELAB; the smallest CIEDE2000 difference
// between two of them is 14.4. tests/ui/chart/make_run_palette.py prints this table.
constexpr std::array<QRgb, kRunColorCount> kRunPalette = {
    0x1f77b4, 0xef00d6, 0xef4a00, 0x009c00, 0xd6a500, 0x00bdbd, 0x7b5a00, 0xa51942, 0xada5de, 0x006b5a, 0x4a10f7,
    0xff8c9c, 0x7b6394, 0x63b5ff, 0x426300, 0xa5b57b, 0x943108, 0xd69c7b, 0x7b6bff, 0xff004a, 0x9c008c, 0x00c584,
    0x848400, 0xbd7308, 0xa5635a, 0xef8cde, 0xbd638c, 0x108c9c, 0x4a947b, 0x3a5284, 0x73c500, 0xa58c5a,
};

// A workspace's colour file holds one small entry per run: past this it is refused.
constexpr qint64 kMostRunColorFileBytes = 16 * 1024 * 1024;

} // namespace

QColor runPaletteColor(int slot)
{
    return QColor::fromRgb(kRunPalette[std::size_t(std::clamp(slot, 0, kRunColorCount - 1))]);
}

int preferredColorSlot(const QString &runId)
{
    quint32 hash = 2166136261u;
    for (const QChar c : runId) {
        hash ^= c.unicode();
        hash *= 16777619u;
    }
    // Fold the high bits in: FNV's low bits alone repeat for ids that differ in their end.
    hash ^= hash >> 16;
    return int(hash % kRunColorCount);
}

QList<QColor> groupColors(qsizetype count)
{
    QList<QColor> colors;
    for (qsizetype i = 0; i < count; ++i)
        colors << runPaletteColor(int(i % kRunColorCount));
    return colors;
}

RunColors::RunColors(QObject *parent) : QObject(parent) {}

QColor RunColors::color(const QString &runId) const
{
    const int s = slot(runId);
    return runPaletteColor(s >= 0 ? s : preferredColorSlot(runId));
}

namespace {

// The lowest slot used nowhere in `used`, else the one used least.
int leastUsed(const std::array<int, kRunColorCount> &used)
{
    return int(std::min_element(used.begin(), used.end()) - used.begin());
}

} // namespace

bool RunColors::giveSlots(const QStringList &runIds)
{
    QStringList fresh;
    for (const QString &run : runIds) {
        if (!m_slots.contains(run))
            fresh << run;
    }
    if (fresh.isEmpty())
        return false;
    std::sort(fresh.begin(), fresh.end());
    fresh.erase(std::unique(fresh.begin(), fresh.end()), fresh.end());
    QStringList all = fresh;
    all.reserve(fresh.size() + m_slots.size());
    for (auto it = m_slots.cbegin(); it != m_slots.cend(); ++it)
        all << it.key();
    std::sort(all.begin(), all.end());
    for (const QString &run : std::as_const(fresh)) {
        // The 31 runs created just before it (the fresh ones before it have theirs by now).
        const qsizetype at = std::lower_bound(all.begin(), all.end(), run) - all.begin();
        std::array<int, kRunColorCount> used{};
        for (qsizetype k = std::max<qsizetype>(0, at - (kRunColorCount - 1)); k < at; ++k) {
            if (const int s = slot(all[k]); s >= 0)
                ++used[std::size_t(s)];
        }
        m_slots.insert(run, leastUsed(used));
    }
    return true;
}

void RunColors::know(const QStringList &runIds)
{
    if (giveSlots(runIds)) {
        save();
        Q_EMIT changed();
    }
}

void RunColors::assign(const QStringList &runIds)
{
    bool changedAny = giveSlots(runIds);
    QStringList runs = runIds;
    std::sort(runs.begin(), runs.end());
    runs.erase(std::unique(runs.begin(), runs.end()), runs.end());
    std::array<int, kRunColorCount> used{};
    QStringList taken; // runs whose slot an earlier run of these holds
    for (const QString &run : std::as_const(runs)) {
        const int s = slot(run);
        if (used[std::size_t(s)] == 0)
            ++used[std::size_t(s)];
        else
            taken << run;
    }
    for (const QString &run : std::as_const(taken)) {
        const int best = leastUsed(used);
        ++used[std::size_t(best)];
        if (used[std::size_t(best)] == 1) { // a free slot: it moves there for good
            m_slots.insert(run, best);
            changedAny = true;
        }
    }
    if (changedAny) {
        save();
        Q_EMIT changed();
    }
}

void RunColors::retain(const QStringList &runIds)
{
    if (m_slots.isEmpty())
        return;
    const QSet<QString> keep(runIds.begin(), runIds.end());
    // A run newer than all of these (started since the list was read) is kept too: ids begin
    // with their creation time.
    const QString newest = runIds.isEmpty() ? QString() : *std::max_element(runIds.begin(), runIds.end());
    const qsizetype before = m_slots.size();
    m_slots.removeIf([&](QHash<QString, int>::iterator it) { return !keep.contains(it.key()) && it.key() < newest; });
    if (m_slots.size() != before)
        save();
}

Expected<void> RunColors::setFile(const QString &path)
{
    m_file = path;
    m_slots.clear();
    Q_EMIT changed();
    if (path.isEmpty() || !QFileInfo::exists(path))
        return {};
    const auto text = readTextFile(path, kMostRunColorFileBytes);
    if (!text)
        return text.error();
    QJsonParseError error{};
    const QJsonDocument doc = QJsonDocument::fromJson(text->toUtf8(), &error);
    if (!doc.isObject())
        return Error{u"run colours: not a JSON object"_s, path, 0, 0, u"delete the file: the runs get new colours"_s};
    const QJsonObject slots = doc.object().value(u"slots"_s).toObject();
    for (auto it = slots.begin(); it != slots.end(); ++it) {
        const int s = it.value().toInt(-1);
        if (s >= 0 && s < kRunColorCount)
            m_slots.insert(it.key(), s);
    }
    Q_EMIT changed();
    return {};
}

void RunColors::save()
{
    if (m_file.isEmpty())
        return;
    QJsonObject slots;
    for (auto it = m_slots.cbegin(); it != m_slots.cend(); ++it)
        slots.insert(it.key(), it.value());
    // Best effort: a colour not kept is chosen again the same way next time.
    (void)writeTextFileAtomically(
        m_file, QString::fromUtf8(QJsonDocument(QJsonObject{{u"slots"_s, slots}}).toJson(QJsonDocument::Compact)));
}

} // namespace ferry::ui
