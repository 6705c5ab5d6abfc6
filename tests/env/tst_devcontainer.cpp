// `ferry env export --format devcontainer|dockerfile` against the real tools: the Dev Containers
// CLI reads and builds what Ferry wrote, a real Docker engine runs the images. No registry and
// no network: the packages come from wheels this test makes, through a local find_links folder.
// The engine and the CLI come from tests/services/ (CTest fixtures docker and devcontainer_cli).
#include "support/files.h"
#include "support/testenv.h"
#include "support/testmain.h"

#include <QCryptographicHash>
#include <QDataStream>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;

namespace {

constexpr int kQuick = 120 * 1000;
constexpr int kBuild = 900 * 1000; // the vfs storage driver copies the whole image per layer

struct CommandResult {
    QString command;
    int exitCode = -1;
    QString out;
    QString err;
    bool ok() const { return exitCode == 0; }
    // What ran, how it ended and what it said (the end of it: builds are chatty).
    QString describe() const
    {
        return u"$ %1\nexit code: %2\n--- stdout\n%3\n--- stderr\n%4"_s.arg(command, QString::number(exitCode),
                                                                            out.right(12000), err.right(12000));
    }
};

// QVERIFY2 cuts its message short, so a failed check prints the whole command result first:
//   QVERIFY2(explained(r.ok(), r), qPrintable(r.command));
bool explained(bool condition, const CommandResult &r)
{
    if (!condition)
        qWarning().noquote() << r.describe();
    return condition;
}

CommandResult runTool(const QString &program, const QStringList &arguments, const QProcessEnvironment &env,
                      const QString &workingDirectory = {}, int timeoutMs = kQuick)
{
    CommandResult r;
    r.command = program + u' ' + arguments.join(u' ');
    QProcess process;
    process.setProcessEnvironment(env);
    if (!workingDirectory.isEmpty())
        process.setWorkingDirectory(workingDirectory);
    process.start(program, arguments);
    if (!process.waitForStarted()) {
        r.err = u"did not start: "_s + process.errorString();
        return r;
    }
    if (!process.waitForFinished(timeoutMs)) {
        process.kill();
        process.waitForFinished();
        r.err = u"timed out after %1 s\n"_s.arg(timeoutMs / 1000);
    } else if (process.exitStatus() == QProcess::NormalExit) {
        r.exitCode = process.exitCode();
    }
    r.out = QString::fromLocal8Bit(process.readAllStandardOutput());
    r.err += QString::fromLocal8Bit(process.readAllStandardError());
    return r;
}

// --- wheels -------------------------------------------------------------------------------

quint32 crc32(const QByteArray &data)
{
    quint32 crc = 0xffffffffu;
    for (const char c : data) {
        crc ^= static_cast<unsigned char>(c);
        for (int bit = 0; bit < 8; ++bit)
            crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

// A zip archive with every entry stored (not compressed): all a wheel needs.
QByteArray storedZip(const QList<std::pair<QString, QByteArray>> &entries)
{
    constexpr quint16 kVersion = 20;
    constexpr quint16 kDate = (0 << 9) | (1 << 5) | 1; // 1980-01-01: the same bytes every time
    QByteArray zip;
    QByteArray directory;
    QDataStream out(&zip, QIODevice::WriteOnly);
    QDataStream dir(&directory, QIODevice::WriteOnly);
    out.setByteOrder(QDataStream::LittleEndian);
    dir.setByteOrder(QDataStream::LittleEndian);
    for (const auto &[name, data] : entries) {
        const QByteArray fileName = name.toUtf8();
        const auto offset = static_cast<quint32>(zip.size());
        const quint32 crc = crc32(data);
        const auto size = static_cast<quint32>(data.size());
        const auto nameSize = static_cast<quint16>(fileName.size());
        out << quint32(0x04034b50) << kVersion << quint16(0) << quint16(0) << quint16(0) << kDate << crc << size << size
            << nameSize << quint16(0);
        out.writeRawData(fileName.constData(), fileName.size());
        out.writeRawData(data.constData(), data.size());
        dir << quint32(0x02014b50) << quint16(0x0300 | kVersion) << kVersion << quint16(0) << quint16(0) << quint16(0)
            << kDate << crc << size << size << nameSize << quint16(0) << quint16(0) << quint16(0) << quint16(0)
            << quint32(0100644u << 16) << offset;
        dir.writeRawData(fileName.constData(), fileName.size());
    }
    const auto directoryOffset = static_cast<quint32>(zip.size());
    out.writeRawData(directory.constData(), directory.size());
    const auto count = static_cast<quint16>(entries.size());
    out << quint32(0x06054b50) << quint16(0) << quint16(0) << count << count << static_cast<quint32>(directory.size())
        << directoryOffset << quint16(0);
    return zip;
}

// A pure-Python wheel with one package `module` whose __init__.py is `code`.
bool writeWheel(const QString &folder, const QString &distribution, const QString &version, const QByteArray &code,
                const QStringList &dependencies = {})
{
    const QString info = u"%1-%2.dist-info"_s.arg(distribution, version);
    QByteArray metadata = "Metadata-Version: 2.1\nName: " + distribution.toUtf8() + "\nVersion: " + version.toUtf8() +
                          "\nSummary: made by tst_devcontainer\n";
    for (const QString &requirement : dependencies)
        metadata += "Requires-Dist: " + requirement.toUtf8() + '\n';
    QList<std::pair<QString, QByteArray>> entries{
        {distribution + u"/__init__.py"_s, code},
        {info + u"/METADATA"_s, metadata},
        {info + u"/WHEEL"_s, "Wheel-Version: 1.0\nGenerator: tst_devcontainer\nRoot-Is-Purelib: true\n"
                             "Tag: py3-none-any\n"}};
    QByteArray record;
    for (const auto &[name, data] : entries) {
        const QByteArray digest = QCryptographicHash::hash(data, QCryptographicHash::Sha256)
                                      .toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals);
        record += name.toUtf8() + ",sha256=" + digest + ',' + QByteArray::number(data.size()) + '\n';
    }
    record += info.toUtf8() + "/RECORD,,\n";
    entries.append({info + u"/RECORD"_s, record});

    QFile file(u"%1/%2-%3-py3-none-any.whl"_s.arg(folder, distribution, version));
    return file.open(QIODevice::WriteOnly) && file.write(storedZip(entries)) > 0;
}

const QByteArray kEnvironment = R"(ferry: 1
name: demo
version: "1"
description: tst_devcontainer
docker:
  base_image: ferry-base:bookworm
  shm_size: 1g
  gpu: off
python:
  pip:
    - pkg_a==1.2.0
    - pkg_b==0.3.1
  pip_options:
    no_index: true
    find_links: [../wheels]
  dev_tools: [black, pytest, pylint]
variables:
  DEMO_FLAG: "1"
)";

} // namespace

class TestDevcontainer : public QObject {
    Q_OBJECT

    QTemporaryDir m_workspace;
    QProcessEnvironment m_env = QProcessEnvironment::systemEnvironment();
    QString m_devcontainer; // the Dev Containers CLI
    QString m_tag = u"t%1"_s.arg(QCoreApplication::applicationPid());
    QString m_devImage = u"ferry-test/demo:"_s + m_tag;
    QString m_runtimeImage = u"ferry-test/demo-runtime:"_s + m_tag;
    bool m_exported = false;
    bool m_devBuilt = false;
    QTemporaryDir m_workspace2; // a second workspace for devcontainer-up
    QString m_ferryImage;       // ferry:<tag>, as `ferry env hash` names it
    QString m_devImage2;        // ferry:<tag>-dev
    QString m_containerId;      // the devcontainer while it lives
    QStringList m_imagesBefore; // every image id in the engine before this test

    QString ws(const QString &relative = {}) const
    {
        return relative.isEmpty() ? m_workspace.path() : m_workspace.filePath(relative);
    }
    CommandResult ferry(const QStringList &arguments, int timeoutMs = kQuick) const
    {
        return runTool(ferry::test::ferryBinary(), arguments, m_env, ws(), timeoutMs);
    }
    QJsonObject json(const CommandResult &r) const { return QJsonDocument::fromJson(r.out.toUtf8()).object(); }
    QStringList layers(const QString &image) const
    {
        QStringList list;
        const CommandResult r = docker({u"image"_s, u"inspect"_s, u"-f"_s, u"{{json .RootFS.Layers}}"_s, image});
        for (const QJsonValue &layer : QJsonDocument::fromJson(r.out.toUtf8()).array())
            list << layer.toString();
        return list;
    }
    CommandResult docker(const QStringList &arguments, int timeoutMs = kQuick) const
    {
        return runTool(u"docker"_s, arguments, m_env, ws(), timeoutMs);
    }
    QStringList imageIds(const QStringList &filter) const
    {
        return docker(QStringList{u"images"_s, u"-q"_s, u"--no-trunc"_s} + filter).out.split(u'\n', Qt::SkipEmptyParts);
    }
    // The engine's labels of an image, as JSON.
    QJsonObject labels(const QString &image) const
    {
        const CommandResult r = docker({u"image"_s, u"inspect"_s, u"-f"_s, u"{{json .Config.Labels}}"_s, image});
        return QJsonDocument::fromJson(r.out.toUtf8()).object();
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_workspace.isValid());
        // The services report where they are; the fixtures have started and installed them.
        const QString services = QStringLiteral(FERRY_SOURCE_DIR) + u"/tests/services/"_s;
        const CommandResult engine = runTool(u"bash"_s, {services + u"docker.sh"_s, u"status"_s}, m_env);
        QVERIFY2(explained(engine.ok(), engine), "no Docker engine: run the docker_service_start test first");
        m_env.insert(u"DOCKER_HOST"_s, engine.out.trimmed());
        // No buildx here: the legacy builder, without the CLI's hint about BuildKit.
        m_env.insert(u"DOCKER_BUILDKIT"_s, u"0"_s);
        const CommandResult cli = runTool(u"bash"_s, {services + u"devcontainer-cli.sh"_s}, m_env);
        QVERIFY2(explained(cli.ok(), cli), qPrintable(cli.command));
        m_devcontainer = cli.out.trimmed();

        const CommandResult base = docker({u"image"_s, u"inspect"_s, u"ferry-base:bookworm"_s});
        QVERIFY2(explained(base.ok(), base), "no base image: run 'tests/services/docker.sh base-image'");
        m_imagesBefore = imageIds({u"-a"_s});

        // The wheelhouse: pkg_b needs pkg_a; the dev tools are stand-ins with the real names.
        const QString wheels = ws(u"wheels"_s);
        QVERIFY(QDir().mkpath(wheels));
        QVERIFY(writeWheel(wheels, u"pkg_a"_s, u"1.2.0"_s, "VERSION = \"1.2.0\"\n"));
        QVERIFY(writeWheel(wheels, u"pkg_b"_s, u"0.3.1"_s, "import pkg_a\n\nVERSION = \"0.3.1\"\n", {u"pkg-a>=1.0"_s}));
        for (const QString &tool : {u"black"_s, u"pytest"_s, u"pylint"_s})
            QVERIFY(writeWheel(wheels, tool, u"0.0.1"_s, "VERSION = \"0.0.1\"\n"));
        QVERIFY(ferry::test::writeFile(ws(u"environments/demo.yml"_s), kEnvironment));
    }

    // The wheels themselves install with plain pip in the base image, so a failure further on
    // is the export's, not this test's fixture.
    void wheelsInstallWithPlainPip()
    {
        const CommandResult r =
            docker({u"run"_s, u"--rm"_s, u"--network"_s, u"none"_s, u"-v"_s, ws(u"wheels"_s) + u":/wheels:ro"_s,
                    u"-e"_s, u"PIP_BREAK_SYSTEM_PACKAGES=1"_s, u"ferry-base:bookworm"_s, u"sh"_s, u"-c"_s,
                    u"python3 -m pip install -q --no-cache-dir --no-index --find-links /wheels pkg_b black "
                    u"&& python3 -c 'import pkg_a, pkg_b, black; print(pkg_a.VERSION, pkg_b.VERSION)'"_s},
                   kBuild);
        QVERIFY2(explained(r.ok(), r), qPrintable(r.command));
        QCOMPARE(r.out.trimmed(), u"1.2.0 0.3.1"_s);
    }

    void exportDevcontainer()
    {
        const CommandResult r = ferry({u"env"_s, u"export"_s, u"environments/demo.yml"_s, u"--format"_s,
                                       u"devcontainer"_s, u"-o"_s, u".devcontainer"_s});
        QVERIFY2(explained(r.ok(), r), qPrintable(r.command));
        for (const QString &file : {u"devcontainer.json"_s, u"Dockerfile"_s})
            QVERIFY2(QFileInfo(ws(u".devcontainer/"_s + file)).isFile(), qPrintable(file));
        // No conda dependencies: no environment.yml.
        QVERIFY(!QFileInfo::exists(ws(u".devcontainer/environment.yml"_s)));
        // The local find_links folder travels in the build context, under its own name.
        QVERIFY(QFileInfo(ws(u".devcontainer/wheelhouse/wheels/pkg_a-1.2.0-py3-none-any.whl"_s)).isFile());
        // requirements.txt is written by the pip step itself, with the wheelhouse's path in the image.
        QFile requirements(ws(u".devcontainer/Dockerfile"_s));
        QVERIFY(requirements.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(requirements.readAll());
        QVERIFY2(text.contains(u"/tmp/ferry/wheelhouse/wheels"_s), qPrintable(text));
        QVERIFY2(!text.contains(ws(u"wheels"_s)), qPrintable(text)); // no path of this machine in the image
        m_exported = true;
    }

    // (a) The reference implementation reads what Ferry wrote, with the meaning Ferry meant.
    void readConfiguration()
    {
        if (!m_exported)
            QSKIP("the export failed");
        const CommandResult r =
            runTool(m_devcontainer, {u"read-configuration"_s, u"--workspace-folder"_s, ws()}, m_env);
        QVERIFY2(explained(r.ok(), r), qPrintable(r.command));
        const QJsonObject configuration = QJsonDocument::fromJson(r.out.toUtf8())[u"configuration"_s].toObject();
        QVERIFY2(explained(!configuration.isEmpty(), r), "no configuration in its output");
        const QJsonObject build = configuration[u"build"_s].toObject();
        QCOMPARE(build[u"dockerfile"_s].toString(), u"Dockerfile"_s);
        QCOMPARE(build[u"context"_s].toString(), u"."_s);
        QCOMPARE(build[u"target"_s].toString(), u"dev"_s);
        QCOMPARE(configuration[u"containerEnv"_s].toObject(), (QJsonObject{{u"DEMO_FLAG"_s, u"1"_s}}));
        QStringList runArgs;
        for (const QJsonValue &value : configuration[u"runArgs"_s].toArray())
            runArgs << value.toString();
        QVERIFY2(runArgs.join(u' ').contains(u"--shm-size=1g"_s) || runArgs.join(u' ').contains(u"--shm-size 1g"_s),
                 qPrintable(runArgs.join(u' ')));
        QVERIFY2(!runArgs.contains(u"--gpus"_s), qPrintable(runArgs.join(u' '))); // gpu: off
        QVERIFY(configuration[u"hostRequirements"_s][u"gpu"_s] != QJsonValue(true));
        const QJsonObject vscode = configuration[u"customizations"_s][u"vscode"_s].toObject();
        QCOMPARE(vscode[u"settings"_s][u"python.defaultInterpreterPath"_s].toString(), u"python3"_s);
        QVERIFY(vscode[u"extensions"_s].toArray().contains(u"ms-python.python"_s));
        QCOMPARE(configuration[u"remoteUser"_s].toString(), u"root"_s);
    }

    // (b) The Dev Containers CLI builds the `dev` stage on the real engine, with no network.
    void buildDevImage()
    {
        if (!m_exported)
            QSKIP("the export failed");
        const CommandResult r =
            runTool(m_devcontainer, {u"build"_s, u"--workspace-folder"_s, ws(), u"--image-name"_s, m_devImage}, m_env,
                    ws(), kBuild);
        QVERIFY2(explained(r.ok(), r), qPrintable(r.command));
        QVERIFY2(explained(r.out.contains(u"\"outcome\":\"success\""_s), r), "no success in its output");
        m_devBuilt = true;
    }

    // (c) The packages and the dev tools are in the image; the variables are not baked in.
    void runDevImage()
    {
        if (!m_devBuilt)
            QSKIP("the dev image was not built");
        CommandResult r = docker({u"run"_s, u"--rm"_s, u"--network"_s, u"none"_s, m_devImage, u"python3"_s, u"-c"_s,
                                  u"import pkg_a, pkg_b; print(pkg_a.VERSION)"_s});
        QVERIFY2(explained(r.ok(), r), qPrintable(r.command));
        QCOMPARE(r.out.trimmed(), u"1.2.0"_s);

        // One container for the rest: each `docker run` copies the whole image with vfs.
        r = docker({u"run"_s, u"--rm"_s, u"--network"_s, u"none"_s, m_devImage, u"python3"_s, u"-c"_s,
                    u"import os, black, pytest, pylint; print(black.VERSION, os.environ.get('DEMO_FLAG'))"_s});
        QVERIFY2(explained(r.ok(), r), qPrintable(r.command));
        // The variables reach a run when it starts (containerEnv, -e); they are not baked in.
        QCOMPARE(r.out.trimmed(), u"0.0.1 None"_s);
    }

    // (d) The plain Dockerfile export builds its `runtime` stage with plain `docker build`, and
    // the image says which spec it was built from.
    void buildRuntimeStage()
    {
        const CommandResult exported = ferry({u"env"_s, u"export"_s, u"environments/demo.yml"_s, u"--format"_s,
                                              u"dockerfile"_s, u"-o"_s, u"image/Dockerfile"_s});
        QVERIFY2(explained(exported.ok(), exported), qPrintable(exported.command));
        const CommandResult hash = ferry({u"env"_s, u"hash"_s, u"environments/demo.yml"_s, u"--json"_s});
        QVERIFY2(explained(hash.ok(), hash), qPrintable(hash.command));
        const QString specHash = QJsonDocument::fromJson(hash.out.toUtf8())[u"hash"_s].toString();
        QVERIFY2(explained(!specHash.isEmpty(), hash), "no hash in its output");

        const CommandResult built =
            docker({u"build"_s, u"--force-rm"_s, u"--target"_s, u"runtime"_s, u"-t"_s, m_runtimeImage, ws(u"image"_s)},
                   kBuild);
        QVERIFY2(explained(built.ok(), built), qPrintable(built.command));
        const QJsonObject runtimeLabels = labels(m_runtimeImage);
        QVERIFY2(runtimeLabels[u"dev.ferry.spec-hash"_s].toString() == specHash,
                 qPrintable(u"expected spec hash %1 in %2"_s.arg(
                     specHash, QString::fromUtf8(QJsonDocument(runtimeLabels).toJson()))));
        if (m_devBuilt) // the dev stage inherits it
            QCOMPARE(labels(m_devImage)[u"dev.ferry.spec-hash"_s].toString(), specHash);

        // Dev tools belong to the dev stage only.
        const CommandResult r =
            docker({u"run"_s, u"--rm"_s, u"--network"_s, u"none"_s, m_runtimeImage, u"python3"_s, u"-c"_s,
                    u"import importlib.util, pkg_b; "
                    u"print(pkg_b.VERSION, importlib.util.find_spec('black') is not None)"_s});
        QVERIFY2(explained(r.ok(), r), qPrintable(r.command));
        QCOMPARE(r.out.trimmed(), u"0.3.1 False"_s);
    }

    // (e) `ferry env devcontainer-up` with the Dev Containers CLI: the devcontainer runs the
    // image Ferry built, whose layers start with those of the runtime image runs use.
    void devcontainerUpWithCli()
    {
        QFile marker(ws(u"marker.txt"_s));
        QVERIFY(marker.open(QIODevice::WriteOnly) && marker.write("from the workspace\n") > 0);
        marker.close();
        const CommandResult hash = ferry({u"env"_s, u"hash"_s, u"environments/demo.yml"_s, u"--json"_s});
        QVERIFY2(explained(hash.ok(), hash), qPrintable(hash.command));
        m_ferryImage = json(hash)[u"image"_s].toString();
        QVERIFY(m_ferryImage.startsWith(u"ferry:demo-1-"_s));

        const CommandResult up =
            ferry({u"env"_s, u"devcontainer-up"_s, u"environments/demo.yml"_s, u"--cli"_s, m_devcontainer, u"--json"_s},
                  kBuild);
        QVERIFY2(explained(up.ok(), up), qPrintable(up.command));
        const QJsonObject dc = json(up);
        QCOMPARE(dc[u"method"_s].toString(), u"devcontainer-cli"_s);
        QCOMPARE(dc[u"image"_s].toString(), m_ferryImage + u"-dev"_s);
        QCOMPARE(dc[u"reused"_s].toBool(), false);
        QCOMPARE(dc[u"configFile"_s].toString(), ws(u".devcontainer/ferry-demo/devcontainer.json"_s));
        m_containerId = dc[u"containerId"_s].toString();
        QVERIFY(!m_containerId.isEmpty());

        // One image for development and training: dev = runtime + the dev tools' layers.
        const QStringList runtime = layers(m_ferryImage);
        const QStringList dev = layers(m_ferryImage + u"-dev"_s);
        QVERIFY(!runtime.isEmpty());
        QVERIFY2(dev.size() > runtime.size() && dev.mid(0, runtime.size()) == runtime,
                 qPrintable(runtime.join(u' ') + u"\nvs\n"_s + dev.join(u' ')));

        // The workspace is mounted where the CLI mounts it, the variables are set, the tools are there.
        const QString folder = dc[u"remoteWorkspaceFolder"_s].toString();
        QCOMPARE(folder, u"/workspaces/"_s + QFileInfo(ws()).fileName());
        const CommandResult inside = docker({u"exec"_s, u"-w"_s, folder, m_containerId, u"sh"_s, u"-c"_s,
                                             u"cat marker.txt; echo \"flag=$DEMO_FLAG\"; "
                                             u"python3 -c 'import pkg_b, black; print(pkg_b.VERSION)'"_s});
        QVERIFY2(explained(inside.ok(), inside), qPrintable(inside.command));
        QCOMPARE(inside.out, u"from the workspace\nflag=1\n0.3.1\n"_s);
        const CommandResult label =
            docker({u"inspect"_s, u"-f"_s, u"{{index .Config.Labels \"devcontainer.local_folder\"}}"_s, m_containerId});
        QCOMPARE(label.out.trimmed(), ws());
    }

    // (f) Without the CLI the engine alone finds that same container (the labels are the CLI's)
    // and keeps it, starts it again when it has stopped; another workspace gets its own; down
    // removes them.
    void devcontainerUpWithEngine()
    {
        if (m_containerId.isEmpty())
            QSKIP("devcontainer-up with the CLI failed");
        const QStringList up{u"env"_s, u"devcontainer-up"_s, ws(u"environments/demo.yml"_s), u"--no-cli"_s,
                             u"--json"_s};
        CommandResult r = ferry(up);
        QVERIFY2(explained(r.ok(), r), qPrintable(r.command));
        QCOMPARE(json(r)[u"method"_s].toString(), u"docker"_s);
        QCOMPARE(json(r)[u"containerId"_s].toString(), m_containerId);
        QCOMPARE(json(r)[u"reused"_s].toBool(), true);
        QCOMPARE(json(r)[u"buildSteps"_s].toInt(), 0);

        r = docker({u"stop"_s, u"-t"_s, u"1"_s, m_containerId});
        QVERIFY2(explained(r.ok(), r), qPrintable(r.command));
        r = ferry(up);
        QVERIFY2(explained(r.ok(), r), qPrintable(r.command));
        QCOMPARE(json(r)[u"containerId"_s].toString(), m_containerId);
        QCOMPARE(docker({u"inspect"_s, u"-f"_s, u"{{.State.Running}}"_s, m_containerId}).out.trimmed(), u"true"_s);

        QVERIFY(m_workspace2.isValid());
        QFile marker(m_workspace2.filePath(u"second.txt"_s));
        QVERIFY(marker.open(QIODevice::WriteOnly) && marker.write("second\n") > 0);
        marker.close();
        r = ferry(QStringList(up) << u"--workspace"_s << m_workspace2.path());
        QVERIFY2(explained(r.ok(), r), qPrintable(r.command));
        const QString second = json(r)[u"containerId"_s].toString();
        QVERIFY(!second.isEmpty() && second != m_containerId);
        QCOMPARE(json(r)[u"reused"_s].toBool(), false);
        const QString folder = json(r)[u"remoteWorkspaceFolder"_s].toString();
        r = docker({u"exec"_s, u"-w"_s, folder, second, u"sh"_s, u"-c"_s, u"cat second.txt; echo $DEMO_FLAG"_s});
        QVERIFY2(explained(r.ok(), r), qPrintable(r.command));
        QCOMPARE(r.out, u"second\n1\n"_s);

        for (const QString &workspace : {ws(), m_workspace2.path()}) {
            r = ferry({u"env"_s, u"devcontainer-down"_s, ws(u"environments/demo.yml"_s), u"--workspace"_s, workspace});
            QVERIFY2(explained(r.ok() && r.out.startsWith(u"removed devcontainer "_s), r), qPrintable(r.command));
            r = docker({u"ps"_s, u"-a"_s, u"-q"_s, u"--filter"_s, u"label=devcontainer.local_folder="_s + workspace});
            QCOMPARE(r.out.trimmed(), QString());
        }
        m_containerId.clear();
    }

    void devcontainerUpRefusesAMissingWorkspace()
    {
        const CommandResult r = ferry({u"env"_s, u"devcontainer-up"_s, u"environments/demo.yml"_s, u"--no-cli"_s,
                                       u"--workspace"_s, ws(u"no-such-folder"_s)});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(u"no-such-folder: the workspace folder does not exist"_s), qPrintable(r.err));
    }

    void cleanupTestCase()
    {
        if (!m_containerId.isEmpty())
            docker({u"rm"_s, u"-f"_s, m_containerId});
        if (!m_ferryImage.isEmpty()) {
            for (const QString &workspace : {ws(), m_workspace2.path()})
                ferry({u"env"_s, u"devcontainer-down"_s, ws(u"environments/demo.yml"_s), u"--workspace"_s, workspace});
            m_devImage2 = m_ferryImage + u"-dev"_s;
        }
        // Removing the tags removes the intermediate layers only these images use.
        for (const QString &image : {m_devImage, m_runtimeImage, m_devImage2, m_ferryImage}) {
            if (image.isEmpty())
                continue;
            if (docker({u"image"_s, u"inspect"_s, image}).ok()) {
                const CommandResult r = docker({u"rmi"_s, u"-f"_s, image});
                if (!r.ok())
                    qWarning().noquote() << r.describe();
            }
        }
        // A failed build leaves its steps behind as untagged images (142 MB each with vfs).
        // Only those that appeared during this test go; without -f, so none in use is touched.
        if (m_imagesBefore.isEmpty())
            return;
        for (const QString &id : imageIds({u"-f"_s, u"dangling=true"_s})) {
            if (!m_imagesBefore.contains(id))
                docker({u"rmi"_s, id});
        }
    }
};

FERRY_TEST_GUILESS_MAIN(TestDevcontainer)
#include "tst_devcontainer.moc"
