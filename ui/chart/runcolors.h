// Gives each run a stable colour from a hash of its id, the same everywhere in the app and across
// sessions.
#pragma once

#include <QColor>
#include <QString>

namespace ferry::ui {

// The colour of a run, the same everywhere in the app and from one session to the next: a
// stable hash of the id (FNV-1a over its UTF-16, independent of Qt's seeded qHash) picks one of
// 20 qualitative colours (Tableau 20, reordered so that close hashes differ in hue). Different
// runs usually, not always, get different colours.
QColor runColor(const QString &runId);

} // namespace ferry::ui
