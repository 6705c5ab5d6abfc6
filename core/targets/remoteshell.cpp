#include "targets/remoteshell.h"

#include <QDir>
#include <QRegularExpression>

using namespace Qt::StringLiterals;

namespace ferry::targets {

namespace {

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

ShellResult shellResult(const ProcessResult &result, const QString &program)
{
    ShellResult shell;
    shell.reached = result.end == ProcessResult::End::Exited;
    shell.exitCode = shell.reached ? result.exitCode : -1;
    shell.out = result.out;
    shell.err = result.err;
    shell.failure = result.failure(program);
    return shell;
}

ShellResult runProcess(const QString &program, const QStringList &args, const QByteArray &input, int timeoutMs,
                       const QString &workingDirectory, const QProcessEnvironment &environment)
{
    ProgramCall call;
    call.program = program;
    call.arguments = args;
    call.input = input;
    call.timeoutMs = timeoutMs;
    call.workingDirectory = workingDirectory;
    call.environment = environment;
    return shellResult(runProgram(call), program);
}

QStringList rsyncArguments(const QStringList &options, const QString &shell, bool progress, const QStringList &sources,
                           const QString &destination)
{
    QStringList args = options;
    if (!shell.isEmpty())
        args << u"-e"_s << shell;
    if (progress)
        args << u"--info=progress2"_s << u"--no-inc-recursive"_s;
    args << u"--"_s << sources << destination;
    return args;
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
    ProgramCall call;
    call.program = u"rsync"_s;
    call.arguments = rsyncArguments(options, *shell, bool(progress), sources, destination);
    call.environment = processEnvironment();
    call.workingDirectory = QDir::homePath();
    call.timeoutMs = timeoutMs;
    call.err = OutputCapture::tail(kMaxRsyncMessageBytes); // rsync's messages, their last MiB
    call.out = OutputCapture::discard();
    if (progress) {
        call.carriageReturnEndsLine = true; // progress2 rewrites one line
        call.lineSink = [&progress](const QByteArray &lines) {
            static const QRegularExpression percent(u"\\s(\\d{1,3})%\\s"_s);
            auto it = percent.globalMatch(QString::fromUtf8(lines));
            int last = -1;
            while (it.hasNext())
                last = it.next().captured(1).toInt();
            if (last >= 0)
                progress(last);
        };
    }
    const ProcessResult r = runProgram(call);
    if (!r.started())
        return Error{u"cannot run rsync: "_s + r.startError, {}, 0, 0, u"install rsync (packaging/install-deps.sh)"_s};
    if (r.end == ProcessResult::End::TimedOut)
        return Error{u"rsync to %1 did not finish within %2 s"_s.arg(place()).arg(timeoutMs / 1000),
                     {},
                     0,
                     0,
                     u"check the connection"_s};
    if (r.ok()) {
        if (progress)
            progress(100);
        return {};
    }
    return Error{u"rsync with %1 failed (%2)"_s.arg(place(), shellResult(r, u"rsync"_s).errorText()),
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
