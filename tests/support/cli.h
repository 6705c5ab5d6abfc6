// Runs the built `ferry` (or any program) from a test as a user would, its exit code and output as
// text.
#pragma once

// What the command-line tests share: the built `ferry` run as a user runs it, in a folder.
#include "support/process.h"
#include "support/testenv.h"
#include "support/wait.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

namespace ferry::test {

struct CliResult {
    int exitCode = -1; // -1: it crashed or did not finish in time
    QString out;
    QString err;
};

// A program's run (support/process.h) with its output read as text.
inline CliResult textOf(const ProgramOutput &run)
{
    return {run.code, QString::fromUtf8(run.out), QString::fromUtf8(run.err)};
}

// Any program, its output kept apart; a time-out kills it (exit code -1).
inline CliResult runProgram(const QString &program, const QStringList &arguments, const QString &workingDirectory = {},
                            int timeoutMs = 240000)
{
    return textOf(
        runCommand(program, arguments, workingDirectory, {}, QProcessEnvironment::systemEnvironment(), timeoutMs));
}

inline CliResult runFerry(const QString &workingDirectory, const QStringList &arguments, int timeoutMs = 240000)
{
    return runProgram(ferry::test::ferryBinary(), arguments, workingDirectory, timeoutMs);
}

inline QJsonObject jsonObject(const CliResult &r)
{
    return QJsonDocument::fromJson(r.out.toUtf8()).object();
}

inline QJsonArray jsonArray(const CliResult &r)
{
    return QJsonDocument::fromJson(r.out.toUtf8()).array();
}

// `ferry runs show ID --json` in `workspace`: the run as the command line reports it.
inline QJsonObject shownRun(const QString &workspace, const QString &id)
{
    return jsonObject(
        runFerry(workspace, {QStringLiteral("runs"), QStringLiteral("show"), id, QStringLiteral("--json")}));
}

} // namespace ferry::test
