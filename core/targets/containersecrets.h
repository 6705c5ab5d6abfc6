// Hands a container run its secret variables through a private file and an entry program, never its
// configuration or log.
#pragma once

#include "common/error.h"
#include "secrets/redactor.h"

#include <QList>
#include <QString>
#include <QStringList>

#include <utility>

namespace ferry::targets {

// How a container run gets its secret variables without their values ever showing in the
// container's configuration (`docker inspect`: Config.Env, Args), any command line, the run
// folder or the log. The values go to a 0600 file in a private 0700 folder of the host's temp
// dir, bind-mounted into the container. The container's entry (a small Python program written
// to the run folder: no secret in it) reads the file and deletes it, starts the script with
// the values in its environment only, and writes the script's output to the run's log with
// every value and encoding replaced by ***. The host waits until the file is gone (or a
// timeout) and removes the folder; the destructor removes it in any case.
// The entry program (Python 3, standard library only) that gives a script its secret variables
// and redacts its output. argv: SECRETS_FILE LOG FAILURE_FILE COMMAND...; LOG "-" writes to
// the entry's own standard output (a `docker run` whose output the caller logs). SSH and Slurm
// runs use it on the host or inside their image (remoterun.h).
QByteArray secretEntryProgram();
// What SECRETS_FILE holds: the variables and the redactor's patterns (JSON).
QByteArray secretEntryPayload(const QList<std::pair<QString, QString>> &values, const secrets::Redactor &redactor);

class ContainerSecrets {
public:
    ContainerSecrets() = default;
    ContainerSecrets(const ContainerSecrets &) = delete;
    ContainerSecrets &operator=(const ContainerSecrets &) = delete;
    ~ContainerSecrets();

    // Writes the values (variable -> value) and the redactor's patterns; the entry program goes
    // to `runDir` (never mounted itself: the container gets the entry as one read-only file at
    // `ferryMount`/secret-entry.py).
    Expected<void> prepare(const QList<std::pair<QString, QString>> &values, const secrets::Redactor &redactor,
                           const QString &runDir);

    // The `--mount` value for `docker run`.
    QString mount() const;
    // The container's command before the script's own: `interpreter entry secrets-file log
    // failure-file` (the contract's failure file inside, redacted once the script has ended).
    QStringList entryCommand(const QString &interpreter, const QString &ferryMount, const QString &failureFile) const;
    // Waits until the container has taken (deleted) the file, at most `timeoutMs`; then
    // removes the folder either way. False on timeout.
    bool waitUntilTaken(int timeoutMs);
    // Removes the folder and what is left in it.
    void remove();

    static constexpr QLatin1StringView kMountPoint{"/run/ferry-secrets"};
    static constexpr QLatin1StringView kEntryFile{"secret-entry.py"};

private:
    QString m_folder;
};

} // namespace ferry::targets
