// The one place a remote shell's command line is made: every word quoted, safe even through a
// non-POSIX login shell.
#pragma once

#include "common/error.h"

#include <QString>
#include <QStringList>

namespace ferry::targets {

// The one place a command line for a remote shell is made: every word in single quotes (a
// quote inside becomes '\''), so the POSIX shell on the other side (ssh hands it the joined
// words) sees exactly these words, whatever they hold ($(), backticks, ;, globs, unicode,
// a leading -). NUL cannot travel in an argument and a newline would end the command line
// for some shells: both are refused, naming the word.
Expected<QString> shellQuote(const QString &word);
Expected<QString> shellCommandLine(const QStringList &words);

// What ssh sends as the remote command: ssh hands its command line to the remote user's *login*
// shell, which need not be POSIX (fish and tcsh treat a backslash inside single quotes as an
// escape, so `'x\' '; cmd'` breaks out: review L1). So the words, quoted as above, travel
// base64-encoded inside one constant form, `sh -c 'eval "$(printf %s B64 | base64 -d)"'`, that
// every login shell hands to sh untouched.
Expected<QString> loginShellCommandLine(const QStringList &words);

} // namespace ferry::targets
