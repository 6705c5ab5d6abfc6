// RemoteShell: runs argument lists and rsync transfers on an SSH host or on this machine, with
// results and failures.
#pragma once

#include "common/error.h"
#include "common/process.h"

#include <QByteArray>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

#include <functional>

namespace ferry::targets {

// What one command on a host gave back.
struct ShellResult {
    bool reached = false;        // the command ran there; false: no connection (or no program) — see failure
    bool hostKeyRefused = false; // not reached because the host key is unknown or changed: retrying won't help
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
    QString failure; // why it was not reached, or did not finish in time

    bool ok() const { return reached && exitCode == 0; }
    // "what failed: the first line of stderr" for messages.
    QString errorText() const;
};

// Called with a rough percentage while a transfer runs (rsync's overall progress).
using TransferProgress = std::function<void(int percent)>;

// Where remote commands run: a host over SSH (SshShell) or this machine (LocalShell, for
// `slurm:local`). Commands are argument lists; on a host they are joined by shellCommandLine,
// never by hand. Paths on the host may be relative: they are taken from the login folder
// (home). Calls block: make them off the GUI thread.
class RemoteShell {
public:
    virtual ~RemoteShell() = default;

    // "host gpu1" / "this machine", for messages.
    virtual QString place() const = 0;
    // Runs `argv` there with `input` on its stdin; `timeoutMs` bounds the whole call.
    virtual ShellResult run(const QStringList &argv, const QByteArray &input = {}, int timeoutMs = 60000) = 0;
    // A bash script sent on stdin (`bash -s -- args...`): for work that needs a shell there.
    ShellResult runScript(const QByteArray &script, const QStringList &args = {}, int timeoutMs = 60000);

    // rsync from `sources` to `destination`; host paths written as remotePath(). `options`
    // are rsync's (e.g. -a, --exclude). Progress is reported when `progress` is set.
    Expected<void> rsync(const QStringList &options, const QStringList &sources, const QString &destination,
                         const TransferProgress &progress = {}, int timeoutMs = 3600 * 1000);
    // How rsync names `path` on this host ("host:path" or the path itself).
    virtual QString remotePath(const QString &path) const = 0;

protected:
    // rsync's `-e COMMAND` for this host; empty when local.
    virtual Expected<QString> rsyncShell() const = 0;
    // The environment of the processes that reach the host (ssh, rsync): the system's, plus
    // what a subclass adds (SshShell: the passphrase helper).
    virtual QProcessEnvironment processEnvironment() const;
    // Not reached because of the connection: a subclass turns ssh's exit code 255 into that.
    virtual void interpret(ShellResult &result) const;
};

// Runs the commands on this machine, from the home folder (so relative paths mean the same
// as on an SSH host).
class LocalShell final : public RemoteShell {
public:
    QString place() const override;
    ShellResult run(const QStringList &argv, const QByteArray &input = {}, int timeoutMs = 60000) override;
    QString remotePath(const QString &path) const override { return path; }

protected:
    Expected<QString> rsyncShell() const override { return QString(); }
};

// `argv` as rsync's `-e` command: rsync splits it itself, at spaces, knows single and double
// quotes but no backslash (shellQuote's '\'' breaks it, review L2), and reads a doubled quote
// inside quotes as one. So every word goes in single quotes with each ' doubled; rsync then
// starts the program with exactly these words, no shell between.
Expected<QString> rsyncCommandLine(const QStringList &argv);

// rsync's arguments: `options`, the remote shell (`-e`, when not empty), the progress report, then
// `--` so that no source or destination is read as an option.
QStringList rsyncArguments(const QStringList &options, const QString &shell, bool progress, const QStringList &sources,
                           const QString &destination);

// A program's end as a shell's: reached when it exited by itself (any exit code).
ShellResult shellResult(const ProcessResult &result, const QString &program);

// Runs `program` with `args` (stdin `input`), waiting at most `timeoutMs` (runProgram: the
// process is killed when time is up, or past 64 MiB of output: a host that misbehaves).
ShellResult runProcess(const QString &program, const QStringList &args, const QByteArray &input, int timeoutMs,
                       const QString &workingDirectory = {},
                       const QProcessEnvironment &environment = QProcessEnvironment::systemEnvironment());

} // namespace ferry::targets
