// Reads a user's file as UTF-8 text, refusing binary, oversized or badly encoded files, and writes
// text atomically.
#pragma once

#include "common/error.h"

#include <QString>

namespace ferry {

// Reads a file the user named as UTF-8 text, refusing what is not a text file of sane size
// with an Error that says so: missing, a folder, unreadable, over `maxBytes`, binary (NUL
// bytes) or not UTF-8. A leading byte-order mark is removed; line endings are kept.
Expected<QString> readTextFile(const QString &path, qint64 maxBytes = 10 * 1024 * 1024);

// Decodes bytes the same way (BOM removed, NUL and invalid UTF-8 refused); `path` names
// them in the error.
Expected<QString> decodeText(const QByteArray &bytes, const QString &path);

// Writes text atomically (QSaveFile): the old file stays intact if anything fails.
Expected<void> writeTextFileAtomically(const QString &path, const QString &text);

} // namespace ferry
