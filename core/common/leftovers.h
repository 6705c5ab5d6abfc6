// Names Ferry's private temp folders by their maker and sweeps the ones a crashed process left
// behind, secrets included.
#pragma once

#include <QDir>
#include <QLatin1StringView>
#include <QString>
#include <QStringList>

namespace ferry {

// Private temp folders of a Ferry process that may hold secrets (review L11): a container run's
// secret values (targets/containersecrets.h) and a registry login's client configuration
// (targets/containerengine.h).
inline constexpr QLatin1StringView kSecretsTempPrefix{"ferry-secrets"};
inline constexpr QLatin1StringView kEngineTempPrefix{"ferry-engine"};

// The mkdtemp / QTemporaryDir template for such a folder of this process, in the temp folder:
// PREFIX-<pid>-<start ticks>-XXXXXX. The name says who made it, so a later start tells a
// crash's leftover (its maker is gone) from a folder in use.
QString ownedTempTemplate(QLatin1StringView prefix);

// Crash leftovers, swept when Ferry starts. In `tempDir`: folders named by ownedTempTemplate
// for the prefixes above, owned by this user (no link, no one else's), whose maker is gone;
// removed with what they hold. Returns the paths removed.
QStringList sweepTempLeftovers(const QString &tempDir = QDir::tempPath());

// In each run folder directly under `runsDir`: Ferry's temp files (`NAME.tmp-*`, see
// safefile.h) not modified for `minAgeMs`, which no writer is still busy with. Only the top of a
// run folder (Ferry's own files), never what a script wrote in model/ or output/.
inline constexpr qint64 kLeftoverAgeMs = 5 * 60 * 1000;
QStringList sweepRunFolderLeftovers(const QString &runsDir, qint64 minAgeMs = kLeftoverAgeMs);

} // namespace ferry
