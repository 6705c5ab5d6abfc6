// SourceExcludes: which files of a run's source folder belong to the run, one rule for uploads,
// snapshots and bundles.
#pragma once

// What of a run's source folder is the run's: every file and folder but the ones an exclude
// pattern names. One rule for every target: the upload to a host (rsync), the snapshot a run
// keeps (snapshot.h) and what a bundle carries. `.git` and `.ferry` (Ferry's own state, its
// object store among it, even when the source folder is the workspace) are always left out.
// A pattern without '/' names an entry anywhere by its name (`*.ckpt`, `__pycache__`); one with
// '/' a path from the source folder's top (`data/raw`, a leading '/' allowed); '*' and '?' match
// within a name, as rsync's --exclude does.
#include <QString>
#include <QStringList>

namespace ferry::snapshot {

class SourceExcludes {
public:
    // The two always left out and the user's patterns (a run's "exclude" target option).
    explicit SourceExcludes(const QStringList &userPatterns = {});

    // `relativePath` from the source folder's top, '/'-separated.
    bool excluded(const QString &relativePath) const;
    // Every pattern, the two fixed ones first.
    QStringList patterns() const { return m_patterns; }
    // The same as rsync's --exclude patterns mean them (one with '/' anchored at the top).
    QStringList rsyncPatterns() const;

private:
    QStringList m_patterns;
};

} // namespace ferry::snapshot
