// Creates and checks folders no other local user can reach (SSH control sockets, the
// single-instance socket).
#pragma once

#include "common/error.h"

#include <QString>

namespace ferry {

// Folders for what another local user must never reach: the SSH control sockets (a mux client
// hands its stdin, secrets included, to whatever listens there) and the single-instance socket
// (a second `ferry` hands it the paths it was given). Never a guessable name in a shared /tmp,
// and every folder is checked by lstat(2) before use. (docs/security.md: the threat model.)

// `path` is a folder, not a link to one, owned by this user, with no access for group or
// others. The Error names the folder and what is wrong with it.
Expected<void> checkPrivateDir(const QString &path);

// Creates `path` with mode 0700 unless something is there (its parent must exist), then
// checks it as above: a folder someone else made or opened is refused, never repaired.
Expected<void> ensurePrivateDir(const QString &path);

// A folder of this user's in the temp folder, made by mkdtemp(3) (an unpredictable name) and
// remembered in the user's cache folder (per machine), so that every Ferry process of the user
// finds the same one; made anew when the remembered one is gone or fails the check. Its path
// is short (a socket path holds about 100 bytes).
Expected<QString> privateTempDir();

// The user's runtime folder: $XDG_RUNTIME_DIR when it passes the check (created 0700 if it
// is missing, as the XDG specification allows), else /run/user/<uid> when it passes, else
// privateTempDir().
Expected<QString> privateRuntimeDir();

} // namespace ferry
