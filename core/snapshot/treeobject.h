// A snapshot folder listing as the bytes it is stored as, and an object's SHA-256 name.
#pragma once

// The objects of a snapshot as bytes (snapshot.h): a folder's listing as the object it is stored
// as (what ObjectStore::tree reads back), and an object's name, the SHA-256 of its bytes in
// lower-case hex. For what builds or checks trees outside a snapshot: a run bundle leaving files
// out, an import checking that a listing is one Ferry writes. Defined in snapshot.cpp.
#include "snapshot/snapshot.h"

#include <QByteArray>
#include <QList>
#include <QString>

namespace ferry::snapshot {

QByteArray treeObject(QList<TreeEntry> entries);
QString objectHash(const QByteArray &bytes);

} // namespace ferry::snapshot
