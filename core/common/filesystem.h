// Detects whether a path lies on a network file system, where the run store must not use SQLite's
// WAL.
#pragma once

#include <QString>

namespace ferry {

// The type of the network file system holding `path` ("nfs4", "cifs", "fuse.sshfs", ...), or
// empty when it is on a local one, read from /proc/self/mountinfo (the mount with the longest
// mount point above the path's canonical form). SQLite's WAL needs shared memory that every
// process using the database maps on one host: on a network file system the run store uses a
// rollback journal instead (review L12).
QString networkFileSystem(const QString &path);

// Whether a mountinfo file-system type is a network one (exposed for tests).
bool isNetworkFileSystemType(const QString &type);

} // namespace ferry
