// Dockerfile and devcontainer.json generation: layer order for the build cache, nothing baked
// in that belongs to a run, local wheelhouses carried into the build, GPU settings.
#include "env/environmentfile.h"
#include "env/imagegenerator.h"
#include "env/spechash.h"
#include "support/testmain.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace ferry::env;

namespace {

Environment sample()
{
    const EnvironmentRead read = parseEnvironmentYaml(
        u"ferry: 1\nname: demo\nversion: \"2\"\n"
        u"docker: {base_image: 'mambaorg/micromamba:1.5', system_packages: [git], steps: 'RUN echo step', shm_size: "
        u"2g}\n"
        u"python:\n  version: \"3.11\"\n  channels: [conda-forge]\n  conda: [numpy>=1.24]\n  pip: [requests==2.31.0]\n"
        u"  dev_tools: [black]\n"
        u"variables: {OMP_NUM_THREADS: \"1\", SECRET_LOOKING: abc}\n"_s,
        u"demo.yml"_s);
    if (hasErrors(read.diagnostics))
        qFatal("sample environment does not parse");
    return read.environment;
}

const GeneratedFile *find(const QList<GeneratedFile> &files, const QString &name)
{
    for (const GeneratedFile &f : files)
        if (f.name == name)
            return &f;
    return nullptr;
}

const GeneratedFile *find(const ImageBuild &build, const QString &name)
{
    return find(build.files, name);
}

const GeneratedFile *inlined(const ImageBuild &build, const QString &name)
{
    return find(build.inlined, name);
}

// The RUN steps of a Dockerfile as the builder sees them: continuation lines joined.
QStringList runSteps(QString dockerfile)
{
    dockerfile.replace(u"\\\n"_s, QString());
    QStringList steps;
    for (const QString &line : dockerfile.split(u'\n'))
        if (line.startsWith(u"RUN "_s))
            steps << line.mid(4);
    return steps;
}

QJsonObject devcontainer(const Environment &env)
{
    QJsonParseError error{};
    const QJsonDocument doc = QJsonDocument::fromJson(generateDevcontainerJson(env).toUtf8(), &error);
    if (error.error != QJsonParseError::NoError)
        qFatal("devcontainer.json is not JSON");
    return doc.object();
}

} // namespace

class TestImageGenerator : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void layersInCacheFriendlyOrder()
    {
        const ImageBuild build = generateImageBuild(sample(), {});
        QVERIFY(build.diagnostics.isEmpty());
        QCOMPARE(build.files.first().name, u"Dockerfile"_s);
        const QString df = build.files.first().text;
        const QStringList order{u"FROM mambaorg/micromamba:1.5 AS runtime"_s,
                                u"apt-get install -y --no-install-recommends git"_s,
                                u"RUN echo step"_s,
                                u"> /tmp/ferry/environment.yml"_s,
                                u"micromamba install -y -n base -f /tmp/ferry/environment.yml"_s,
                                u"> /tmp/ferry/requirements.txt"_s,
                                u"-m pip install --no-cache-dir -r /tmp/ferry/requirements.txt"_s,
                                u"dev.ferry.spec-hash=\""_s + specHash(sample()) + u'"',
                                u"FROM runtime AS dev"_s,
                                u"-r /tmp/ferry/dev-requirements.txt"_s};
        qsizetype at = 0;
        for (const QString &step : order) {
            const qsizetype found = df.indexOf(step, at);
            QVERIFY2(found >= 0, qPrintable(u"missing or out of order: "_s + step + u"\n"_s + df));
            at = found;
        }
        // Each dependency file is written by its own install step (no COPY layer), code is never
        // copied, variables are given at run time.
        QVERIFY(!df.contains(u"COPY "_s));
        QCOMPARE(build.files.size(), 1);
        QVERIFY(!df.contains(u"OMP_NUM_THREADS"_s));
        QVERIFY(!df.contains(u"SECRET_LOOKING"_s));
        QVERIFY(!inlined(build, u"environment.yml"_s)->text.contains(u"requests"_s)); // pip has its own layer
        QVERIFY(inlined(build, u"environment.yml"_s)->text.contains(u"python=3.11"_s));
        QCOMPARE(inlined(build, u"requirements.txt"_s)->text, u"requests==2.31.0\n"_s);
        QCOMPARE(inlined(build, u"dev-requirements.txt"_s)->text, u"black\n"_s);
    }

    // What a RUN step writes is, byte for byte, the file it stands for, whatever the lines hold:
    // run each step by a real shell, with the stage folder moved and the install replaced.
    void inlinedFilesSurviveTheShell()
    {
        QTemporaryDir dir;
        Environment env = sample();
        env.python.pipRequirements.clear();
        for (const QString &line :
             {u"requests ; python_version >= '3.8' and platform_system != \"Windows\""_s, u"pkg[a,b]>=1.0,!=1.2"_s})
            env.python.pipRequirements << *parsePipLine(line);
        env.python.pipOptions.indexUrl = u"https://user:pa$$w'o\\rd%s@example.org/simple"_s;
        env.python.pipOptions.other = {u"--trusted-host `uname` $(id) ; # x"_s};
        const ImageBuild build = generateImageBuild(env, {});
        QVERIFY(build.diagnostics.isEmpty());
        const QStringList steps = runSteps(build.files.first().text);
        qsizetype checked = 0;
        for (QString step : steps) {
            if (!step.contains(u"printf"_s))
                continue;
            step.replace(u"/tmp/ferry"_s, dir.path());
            step = step.left(step.indexOf(u" && "_s, step.lastIndexOf(u"> "_s + dir.path()))); // not the install
            QProcess sh;
            sh.start(u"/bin/sh"_s, {u"-c"_s, step});
            QVERIFY(sh.waitForFinished(10000));
            QVERIFY2(sh.exitCode() == 0, sh.readAllStandardError().constData());
            ++checked;
        }
        QCOMPARE(checked, 3); // conda, pip, dev tools
        QCOMPARE(build.inlined.size(), 3);
        for (const GeneratedFile &file : build.inlined) {
            QFile written(dir.filePath(file.name));
            QVERIFY2(written.open(QIODevice::ReadOnly), qPrintable(file.name));
            QCOMPARE(QString::fromUtf8(written.readAll()), file.text);
        }
        const QString requirements = inlined(build, u"requirements.txt"_s)->text;
        QVERIFY2(requirements.contains(u"`uname` $(id) ; # x"_s) && requirements.contains(u"'3.8'"_s),
                 qPrintable(requirements));
    }

    void userManagedInstallsNothing()
    {
        Environment env = sample();
        env.python.userManaged = true;
        const ImageBuild build = generateImageBuild(env, {});
        const QString df = build.files.first().text;
        QVERIFY(!df.contains(u"pip install"_s));
        QVERIFY(!df.contains(u"micromamba"_s) || df.startsWith(u"#"_s));
        QVERIFY(build.inlined.isEmpty());
    }

    void localWheelhouseTravelsWithTheBuild()
    {
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkpath(u"project/wheels"_s));
        Environment env = sample();
        env.python.pipOptions.noIndex = true;
        env.python.pipOptions.findLinks = {u"wheels"_s, u"https://example.org/links"_s};
        const ImageBuild build = generateImageBuild(env, {dir.filePath(u"project"_s)});
        QVERIFY(build.diagnostics.isEmpty());
        const GeneratedFile *wheelhouse = find(build, u"wheelhouse/wheels"_s);
        QVERIFY(wheelhouse);
        QCOMPARE(wheelhouse->copyFrom, dir.filePath(u"project/wheels"_s));
        const QString requirements = inlined(build, u"requirements.txt"_s)->text;
        QVERIFY2(requirements.contains(u"/tmp/ferry/wheelhouse/wheels"_s), qPrintable(requirements));
        QVERIFY(requirements.contains(u"https://example.org/links"_s)); // remote links stay as they are
        QVERIFY(requirements.contains(u"--no-index"_s));
        QVERIFY(build.files.first().text.contains(u"COPY wheelhouse/ /tmp/ferry/wheelhouse/"_s));

        env.python.pipOptions.findLinks = {u"no-such-folder"_s};
        const ImageBuild broken = generateImageBuild(env, {dir.filePath(u"project"_s)});
        QVERIFY(hasErrors(broken.diagnostics));
    }

    void registryPrefixesTheBaseImage()
    {
        Environment env = sample();
        env.docker.registry.address = u"myregistry.azurecr.io"_s;
        env.docker.baseImage = u"team/base:1"_s;
        QVERIFY(generateImageBuild(env, {}).files.first().text.contains(
            u"FROM myregistry.azurecr.io/team/base:1 AS runtime"_s));
    }

    void devcontainerSettings_data()
    {
        QTest::addColumn<int>("gpu");
        QTest::addColumn<bool>("gpusFlag");
        QTest::addColumn<QString>("hostGpu"); // "true", "optional" or "" (absent)
        QTest::newRow("on") << int(GpuMode::On) << true << u"true"_s;
        QTest::newRow("auto") << int(GpuMode::Auto) << false << u"optional"_s;
        QTest::newRow("off") << int(GpuMode::Off) << false << QString();
    }
    void devcontainerSettings()
    {
        QFETCH(int, gpu);
        QFETCH(bool, gpusFlag);
        QFETCH(QString, hostGpu);
        Environment env = sample();
        env.docker.gpu = GpuMode(gpu);
        env.docker.runArguments = {u"--ipc=host"_s};
        const QJsonObject dc = devcontainer(env);
        QCOMPARE(dc[u"build"_s].toObject()[u"dockerfile"_s].toString(), u"Dockerfile"_s);
        QCOMPARE(dc[u"build"_s].toObject()[u"context"_s].toString(), u"."_s);
        QCOMPARE(dc[u"build"_s].toObject()[u"target"_s].toString(), u"dev"_s);
        QCOMPARE(dc[u"containerEnv"_s].toObject()[u"OMP_NUM_THREADS"_s].toString(), u"1"_s);
        const QJsonArray runArgs = dc[u"runArgs"_s].toArray();
        QVERIFY(runArgs.contains(u"--shm-size=2g"_s));
        QVERIFY(runArgs.contains(u"--ipc=host"_s));
        QCOMPARE(runArgs.contains(u"--gpus"_s), gpusFlag);
        const QJsonValue host = dc[u"hostRequirements"_s].toObject()[u"gpu"_s];
        if (hostGpu.isEmpty())
            QVERIFY(!dc.contains(u"hostRequirements"_s));
        else if (hostGpu == "true"_L1)
            QCOMPARE(host.toBool(), true);
        else
            QCOMPARE(host.toString(), hostGpu);
        const QJsonObject vscode = dc[u"customizations"_s].toObject()[u"vscode"_s].toObject();
        QCOMPARE(vscode[u"settings"_s].toObject()[u"python.defaultInterpreterPath"_s].toString(), u"python3"_s);
        QVERIFY(vscode[u"extensions"_s].toArray().contains(u"ms-python.python"_s));
        QCOMPARE(dc[u"remoteUser"_s].toString(), u"root"_s);
    }
};

FERRY_TEST_APPLESS_MAIN(TestImageGenerator)
#include "tst_imagegenerator.moc"
