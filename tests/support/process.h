// runCommand: the tests' own way to run a program to its end, apart from the process runner under
// test.
#pragma once

// A program run to its end from a test: its exit code and output, with what it reads on stdin,
// its folder and its environment. The tests' own runner, apart from the code under test
// (core/common/process.h): a test of the runner must not run its programs through it.
#include <QByteArray>
#include <QFile>
#include <QProcess>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

namespace ferry::test {

struct ProgramOutput {
    int code = -1; // -1: it did not start, crashed or was killed at the time-out
    QByteArray out;
    QByteArray err;
};

// `stdinBytes` is written to its stdin, which is then closed; an empty `workingDirectory` is the
// test's own; at `timeoutMs` it is killed.
inline ProgramOutput runCommand(const QString &program, const QStringList &arguments,
                                const QString &workingDirectory = {}, const QByteArray &stdinBytes = {},
                                const QProcessEnvironment &environment = QProcessEnvironment::systemEnvironment(),
                                int timeoutMs = 240000)
{
    QProcess process;
    process.setProcessEnvironment(environment);
    process.setWorkingDirectory(workingDirectory);
    process.start(program, arguments);
    if (!process.waitForStarted(timeoutMs))
        return {};
    process.write(stdinBytes);
    process.closeWriteChannel();
    if (!process.waitForFinished(timeoutMs)) {
        process.kill();
        process.waitForFinished();
    }
    return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1, process.readAllStandardOutput(),
            process.readAllStandardError()};
}

// Whether process `pid` runs (a zombie waiting for whoever reaps it does not).
inline bool processAlive(qint64 pid)
{
    QFile file(QStringLiteral("/proc/%1/stat").arg(pid));
    if (pid <= 0 || !file.open(QIODevice::ReadOnly))
        return false;
    const QByteArray stat = file.readAll();
    const qsizetype close = stat.lastIndexOf(')'); // the state follows the command's name
    return close > 0 && stat.size() > close + 2 && stat[close + 2] != 'Z';
}

} // namespace ferry::test
