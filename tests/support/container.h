// Helpers for the tests against the real Docker engine: its base image, a test environment on it,
// docker calls.
#pragma once

// Shared by the tests against the real Docker engine of the `docker` fixture
// (tests/services/docker.sh: tst_containertarget, tst_containerescape, tst_containerengine): the
// engine and its base image ferry-base:bookworm, an environment of the test's own on it, and
// small process helpers.
#include "env/formats.h"
#include "env/spechash.h"
#include "support/cli.h"
#include "support/files.h"
#include "support/targets.h"

#include <QCoreApplication>
#include <QFile>
#include <QString>
#include <QStringList>
#include <QTest>

namespace ferry::test {

inline CliResult command(const QString &program, const QStringList &args, int timeoutMs = 120000)
{
    return runProgram(program, args, {}, timeoutMs);
}

inline CliResult docker(const QStringList &args)
{
    return command(QStringLiteral("docker"), args);
}

inline QStringList containersLabelled(const QString &runId)
{
    return docker({QStringLiteral("ps"), QStringLiteral("-a"), QStringLiteral("-q"), QStringLiteral("--filter"),
                   QStringLiteral("label=ferry.run-id=") + runId})
        .out.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
}

// DOCKER_HOST from the fixture, and the base image. Returns an empty string when both are
// there, else what is missing.
inline QString connectToDocker()
{
    if (qEnvironmentVariableIsEmpty("DOCKER_HOST")) { // the fixture started it; ask where
        const CliResult engine =
            command(QStringLiteral("bash"),
                    {QStringLiteral(FERRY_SOURCE_DIR "/tests/services/docker.sh"), QStringLiteral("status")});
        if (engine.exitCode != 0)
            return QStringLiteral("no Docker engine: run the docker_service_start test first");
        qputenv("DOCKER_HOST", engine.out.trimmed().toUtf8());
    }
    if (docker({QStringLiteral("image"), QStringLiteral("inspect"), QStringLiteral("ferry-base:bookworm")}).exitCode !=
        0)
        return QStringLiteral("no base image: run 'tests/services/docker.sh base-image'");
    return {};
}

// connectToDocker(), then ferry-kernel:bookworm (the base image with Debian's ipykernel, made once by
// tests/services/docker.sh): an empty string when it is there, else why not.
inline QString connectToKernelImage()
{
    if (const QString missing = connectToDocker(); !missing.isEmpty())
        return missing;
    const CliResult image =
        command(QStringLiteral("bash"),
                {QStringLiteral(FERRY_SOURCE_DIR "/tests/services/docker.sh"), QStringLiteral("kernel-image")}, 600000);
    return image.exitCode == 0 ? QString() : QStringLiteral("no kernel image: ") + image.err;
}

// An environment file of the test's own at `path` (so its image is the test's to remove);
// returns its image reference, empty if the file is not usable.
inline QString writeTestEnvironment(const QString &path, const QString &name)
{
    const QByteArray text = QStringLiteral("ferry: 1\nname: %1\nversion: \"1\"\n"
                                           "docker:\n  base_image: ferry-base:bookworm\n  gpu: \"off\"\n"
                                           "python:\n  interpreter: python3\n  user_managed: true\n")
                                .arg(name)
                                .toUtf8();
    if (!writeFile(path, text))
        return {};
    const auto read = env::readEnvironment(path);
    return env::hasErrors(read.diagnostics) ? QString() : env::imageReference(read.environment);
}

} // namespace ferry::test
