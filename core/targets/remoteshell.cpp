#include "targets/remoteshell.h"

#include <QDir>
#include <QElapsedTimer>
#include <QProcess>
#include <QRegularExpression>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace ferry::targets {

namespace {

// What one call may send back (the status call sends at most 4 MiB of log, the image build its
// output); more is a host that misbehaves.
constexpr qsizetype kMaxOutputBytes = 64 * 1024 * 1024;
constexpr qsizetype kMaxRsyncMessageBytes = 1024 * 1024;

} // namespace

QString ShellResult::errorText() const
{
    if (!reached)
        return failure;
    QString first = QString::fromUtf8(err).trimmed().section(u'\n', -3);
    if (first.isEmpty())
        first = QString::fromUtf8(out).trimmed().section(u'\n', -1);
    return u"exit code %1%2"_s.arg(exitCode).arg(first.isEmpty() ? QString() : u": "_s + first);
}

Expected<QString> rsyncCommandLine(const QStringList &argv)
{
    QStringList words;
    for (const QString &word : argv) {
        if (word.contains(QChar(u'\0')))
            return Error{u"'%1' cannot be passed to rsync's remote shell (it holds a NUL)"_s.arg(word), {}, 0, 0, {}};
        words << u"'"_s + QString(word).replace(u"'"_s, u"''"_s) + u"'"_s;
    }
    return words.join(u' ');
}

ShellResult runProcess(const QString &program, const QStringList &args, const QByteArray &input, int timeoutMs,
                       const QString &workingDirectory, const QProcessEnvironment &environment)
{
    ShellResult result;
    QProcess process;
    process.setProcessEnvironment(environment);
    process.setProgram(program);
    process.setArguments(args);
    if (!workingDirectory.isEmpty())
        process.setWorkingDirectory(workingDirectory);
    process.start();
    if (!process.waitForStarted(30000)) {
        result.failure = u"cannot run %1: %2"_s.arg(program, process.errorString());
        return result;
    }
    if (!input.isEmpty())
        process.write(input);
    process.closeWriteChannel();
    // Read as it comes, and bounded (review L14): a hostile host cannot make one call hold
    // gigabytes here within its time-out.
    QElapsedTimer clock;
    clock.start();
    while (!process.waitForFinished(100) && process.state() != QProcess::NotRunning) {
        result.out += process.readAllStandardOutput();
        result.err += process.readAllStandardError();
        const bool tooMuch = result.out.size() > kMaxOutputBytes || result.err.size() > kMaxOutputBytes;
        if (tooMuch || (timeoutMs >= 0 && clock.elapsed() > timeoutMs)) {
            process.kill();
            process.waitForFinished(5000);
            result.out.truncate(kMaxOutputBytes);
            result.err.truncate(kMaxOutputBytes);
            result.failure = tooMuch ? u"%1 sent more than %2 MiB; stopped"_s.arg(program).arg(kMaxOutputBytes >> 20)
                                     : u"%1 did not finish within %2 s"_s.arg(program).arg(timeoutMs / 1000);
            return result;
        }
    }
    result.out += process.readAllStandardOutput();
    result.err += process.readAllStandardError();
    if (result.out.size() > kMaxOutputBytes || result.err.size() > kMaxOutputBytes) {
        result.out.truncate(kMaxOutputBytes);
        result.err.truncate(kMaxOutputBytes);
        result.failure = u"%1 sent more than %2 MiB"_s.arg(program).arg(kMaxOutputBytes >> 20);
        return result;
    }
    if (process.exitStatus() != QProcess::NormalExit) {
        result.failure = u"%1 crashed"_s.arg(program);
        return result;
    }
    result.reached = true;
    result.exitCode = process.exitCode();
    return result;
}

void RemoteShell::interpret(ShellResult &) const {}

QProcessEnvironment RemoteShell::processEnvironment() const
{
    return QProcessEnvironment::systemEnvironment();
}

ShellResult RemoteShell::runScript(const QByteArray &script, const QStringList &args, int timeoutMs)
{
    return run(QStringList{u"bash"_s, u"-s"_s, u"--"_s} + args, script, timeoutMs);
}

Expected<void> RemoteShell::rsync(const QStringList &options, const QStringList &sources, const QString &destination,
                                  const TransferProgress &progress, int timeoutMs)
{
    const auto shell = rsyncShell();
    if (!shell)
        return shell.error();
    QStringList args = options;
    if (!shell->isEmpty())
        args << u"-e"_s << *shell;
    if (progress)
        args << u"--info=progress2"_s << u"--no-inc-recursive"_s;
    args << u"--"_s << sources << destination;

    QProcess process;
    process.setProgram(u"rsync"_s);
    process.setArguments(args);
    process.setProcessEnvironment(processEnvironment());
    process.setWorkingDirectory(QDir::homePath());
    process.start();
    if (!process.waitForStarted(30000))
        return Error{
            u"cannot run rsync: "_s + process.errorString(), {}, 0, 0, u"install rsync (packaging/install-deps.sh)"_s};
    process.closeWriteChannel();
    static const QRegularExpression percent(u"\\s(\\d{1,3})%\\s"_s);
    QByteArray pending;
    QElapsedTimer clock;
    clock.start();
    QByteArray messages; // rsync's stderr, its last MiB
    while (process.state() != QProcess::NotRunning) {
        process.waitForReadyRead(200);
        messages += process.readAllStandardError();
        if (messages.size() > kMaxRsyncMessageBytes)
            messages = messages.right(kMaxRsyncMessageBytes);
        if (!progress)
            (void)process.readAllStandardOutput(); // nothing is asked of it: not kept
        if (progress) {
            pending += process.readAllStandardOutput();
            const qsizetype end = std::max(pending.lastIndexOf('\r'), pending.lastIndexOf('\n'));
            if (end >= 0) {
                const QString text = QString::fromUtf8(pending.left(end));
                pending.remove(0, end + 1);
                auto it = percent.globalMatch(text);
                int last = -1;
                while (it.hasNext())
                    last = it.next().captured(1).toInt();
                if (last >= 0)
                    progress(last);
            }
        }
        if (clock.elapsed() > timeoutMs) {
            process.kill();
            process.waitForFinished(5000);
            return Error{u"rsync to %1 did not finish within %2 s"_s.arg(place()).arg(timeoutMs / 1000),
                         {},
                         0,
                         0,
                         u"check the connection"_s};
        }
    }
    ShellResult result;
    result.reached = process.exitStatus() == QProcess::NormalExit;
    result.exitCode = process.exitCode();
    result.err = QByteArray(messages + process.readAllStandardError()).right(kMaxRsyncMessageBytes);
    if (result.exitCode == 0 && result.reached) {
        if (progress)
            progress(100);
        return {};
    }
    return Error{u"rsync with %1 failed (%2)"_s.arg(place(), result.errorText()),
                 {},
                 0,
                 0,
                 u"check the connection and free disk space on both sides"_s};
}

QString LocalShell::place() const
{
    return u"this machine"_s;
}

ShellResult LocalShell::run(const QStringList &argv, const QByteArray &input, int timeoutMs)
{
    if (argv.isEmpty())
        return ShellResult{false, false, -1, {}, {}, u"no command"_s};
    return runProcess(argv.first(), argv.mid(1), input, timeoutMs, QDir::homePath());
}

} // namespace ferry::targets
