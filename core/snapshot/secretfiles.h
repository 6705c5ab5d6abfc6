// The file-name patterns (.env, keys, credentials) a run bundle leaves out of a snapshot unless
// asked.
#pragma once

// What a run bundle leaves out of a snapshot unless asked (`ferry runs export --bundle
// --include-secrets`, docs/snapshots.md): files whose names usually hold secrets (`.env`, key
// files, credentials). They are patterns of the exclude rule (sourcefiles.h), matched the same
// way, so a folder's name (`.ssh`) leaves out everything in it. Defined in sourcefiles.cpp.
#include <QString>
#include <QStringList>

namespace ferry::snapshot {

QStringList secretFilePatterns();
bool looksSecret(const QString &relativePath); // from the source folder's top, '/'-separated

} // namespace ferry::snapshot
