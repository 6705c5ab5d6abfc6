#include "ui/chart/runcolors.h"

#include <array>

namespace ferry::ui {

QColor runColor(const QString &runId)
{
    // Tableau 20: the ten strong colours first, then their light partners.
    static constexpr std::array<QRgb, 20> palette = {
        0x4e79a7, 0xf28e2b, 0xe15759, 0x76b7b2, 0x59a14f, 0xedc948, 0xb07aa1, 0xff9da7, 0x9c755f, 0x79706e,
        0xa0cbe8, 0xffbe7d, 0xff9d9a, 0x499894, 0x8cd17d, 0xb6992d, 0xd4a6c8, 0xd37295, 0xd7b5a6, 0xbab0ac,
    };
    quint32 hash = 2166136261u;
    for (const QChar c : runId) {
        hash ^= c.unicode();
        hash *= 16777619u;
    }
    // Fold the high bits in: FNV's low bits alone repeat for ids that differ in their end.
    hash ^= hash >> 16;
    return QColor::fromRgb(palette[hash % palette.size()]);
}

} // namespace ferry::ui
