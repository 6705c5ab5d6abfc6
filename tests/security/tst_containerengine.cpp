// H1 (security review 2026-12-01), the engine half: no program path is ever read from a run
// folder. The engine comes from the settings, validated (docker or podman on PATH, or an
// absolute path to one), and the engine that started a container run is recorded with the run
// in the run store, so a later Ferry probes and cancels it with that engine after the setting
// changed. Against the real Docker engine (the `docker` fixture): two engine programs of our
// own (named docker, each logging its calls and running the real one) tell which was used;
// container.json naming a planted program, and bad values in the settings or the store, are
// refused and never run.
#include "support/container.h"
#include "support/testenv.h"
#include "support/testmain.h"

#include "run/rundirectory.h"
#include "store/runstore.h"
#include "targets/containerengine.h"
#include "targets/containertarget.h"
#include "targets/targetfactory.h"
#include "tracking/runlauncher.h"

#include <QDir>
#include <QJsonDocument>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>

using namespace Qt::StringLiterals;
using namespace ferry;
using namespace ferry::run;
using namespace ferry::targets;
using ferry::test::readFile;
using ferry::test::writeFile;

namespace {

// A program that, run at all, leaves `marker`: what a hostile run would plant.
bool plantProgram(const QString &path, const QString &marker)
{
    return writeFile(path, u"#!/bin/sh\necho ran >> '%1'\n"_s.arg(marker).toUtf8()) &&
           QFile::setPermissions(path, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
}

// `dir`/docker: logs its arguments to `dir`/calls, then runs the real docker.
bool makeEngineWrapper(const QString &dir, const QString &realDocker)
{
    return QDir().mkpath(dir) &&
           writeFile(dir + u"/docker"_s,
                     u"#!/bin/sh\necho \"$*\" >> '%1/calls'\nexec '%2' \"$@\"\n"_s.arg(dir, realDocker).toUtf8()) &&
           QFile::setPermissions(dir + u"/docker"_s,
                                 QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
}

void setEngineSetting(const QString &value)
{
    QSettings settings;
    kContainerEngineSetting.set(settings, value);
    settings.sync();
}

} // namespace

class TestContainerEngine : public QObject {
    Q_OBJECT

    QTemporaryDir m_ws;
    QString m_envFile;
    QString m_image;
    QString m_realDocker;
    QString m_marker;
    QString m_planted;
    QStringList m_runIds;

    // A run folder holding a container run's spec, its container.json naming the planted program.
    QString craftedRunFolder(const QString &id)
    {
        RunSpec spec;
        spec.id = id;
        spec.script = u"x.py"_s;
        spec.sourceDir = m_ws.path();
        spec.environmentFile = m_envFile;
        spec.target.kind = TargetKind::Container;
        const QString runDir = m_ws.filePath(u"crafted/"_s + id);
        const RunDirectory dir(runDir);
        if (!QDir().mkpath(runDir) || !dir.writeSpec(spec))
            return {};
        const QJsonObject record{{u"engine"_s, m_planted}, {u"phase"_s, u"started"_s}};
        return writeFile(ContainerTarget::recordFile(runDir), QJsonDocument(record).toJson()) ? runDir : QString();
    }

private Q_SLOTS:
    void initTestCase()
    {
        QCoreApplication::setOrganizationName(u"FerryTests"_s);
        QVERIFY(m_ws.isValid());
        const QString missing = ferry::test::connectToDocker();
        QVERIFY2(missing.isEmpty(), qPrintable(missing));
        m_realDocker = QStandardPaths::findExecutable(u"docker"_s);
        QVERIFY(!m_realDocker.isEmpty());
        m_envFile = m_ws.filePath(u"env.yml"_s);
        m_image =
            ferry::test::writeTestEnvironment(m_envFile, u"tst-engine-%1"_s.arg(QCoreApplication::applicationPid()));
        QVERIFY(!m_image.isEmpty());
        m_marker = m_ws.filePath(u"planted-program-ran"_s);
        m_planted = m_ws.filePath(u"x.sh"_s);
        QVERIFY(plantProgram(m_planted, m_marker));
        setEngineSetting({});
    }

    void cleanupTestCase()
    {
        for (const QString &id : std::as_const(m_runIds)) {
            const QStringList left = ferry::test::containersLabelled(id);
            if (!left.isEmpty())
                ferry::test::docker(QStringList{u"rm"_s, u"-f"_s} + left);
        }
        if (!m_image.isEmpty())
            ferry::test::docker({u"rmi"_s, u"-f"_s, m_image});
        setEngineSetting({});
    }

    // container.json says the engine is the planted program: a probe and a cancel use the
    // settings' engine, never that one.
    void engineIsNeverReadFromTheRunFolder()
    {
        const QString runDir = craftedRunFolder(u"crafted-record"_s);
        QVERIFY(!runDir.isEmpty());
        auto target = makeTarget(TargetSpec{TargetKind::Container, {}, {}}, ferry::test::ferryBinary());
        const auto probed = target->probe(runDir);
        QVERIFY2(probed, qPrintable(probed ? QString() : probed.error().toString()));
        QCOMPARE(probed->state, RunState::Lost); // the real engine knows no such container
        const auto cancelled = target->cancel(runDir, 1000);
        QVERIFY2(cancelled, qPrintable(cancelled ? QString() : cancelled.error().toString()));
        QCOMPARE(cancelled->state, RunState::Cancelled);
        QVERIFY2(!QFileInfo::exists(m_marker), "the program named in container.json ran");
    }

    void badEnginesAreRefused_data()
    {
        QTest::addColumn<QString>("value");
        QTest::newRow("planted program") << m_planted;
        QTest::newRow("a shell") << u"/bin/sh"_s;
        QTest::newRow("another name on PATH") << u"sh"_s;
        QTest::newRow("relative path") << u"./docker"_s;
        QTest::newRow("relative folder") << u"bin/docker"_s;
        QTest::newRow("missing absolute") << m_ws.filePath(u"nowhere/docker"_s);
        QTest::newRow("not executable") << m_ws.filePath(u"plain/docker"_s);
        QTest::newRow("unclean path") << m_ws.path() + u"/../x/docker"_s;
        QTest::newRow("with arguments") << u"docker --host evil"_s;
    }

    // A bad engine in the settings or in a run's stored record is refused with a clear error,
    // and nothing is run.
    void badEnginesAreRefused()
    {
        QFETCH(QString, value);
        QVERIFY(QDir().mkpath(m_ws.filePath(u"plain"_s)));
        QVERIFY(writeFile(m_ws.filePath(u"plain/docker"_s), "#!/bin/sh\n")); // 0644: not executable
        const auto validated = validatedEngineProgram(value);
        QVERIFY(!validated);
        QVERIFY2(validated.error().message.contains(value), qPrintable(validated.error().toString()));
        const QString runDir = craftedRunFolder(u"refused"_s);
        QVERIFY(!runDir.isEmpty());

        // From the settings (a run with no recorded engine, or a new one).
        setEngineSetting(value);
        auto fromSettings = makeTarget(TargetSpec{TargetKind::Container, {}, {}}, ferry::test::ferryBinary());
        for (const auto &result : {fromSettings->probe(runDir), fromSettings->cancel(runDir, 1000)}) {
            QVERIFY(!result);
            QVERIFY2(result.error().message.startsWith(u"cannot use the container engine"_s),
                     qPrintable(result.error().toString()));
        }
        RunSpec spec;
        spec.script = u"x.py"_s;
        spec.sourceDir = m_ws.path();
        spec.environmentFile = m_envFile;
        spec.target.kind = TargetKind::Container;
        QVERIFY(!fromSettings->start(m_ws.filePath(u"refused-start"_s), spec));
        QVERIFY(!QFileInfo::exists(m_ws.filePath(u"refused-start/spec.json"_s))); // refused before anything
        setEngineSetting({});

        // From the run store: a record whose engine was tampered with is validated when read.
        auto store = RunStore::open(m_ws.filePath(u"refused.sqlite"_s));
        QVERIFY(store);
        spec.id = u"tampered-%1"_s.arg(QString::fromUtf8(QTest::currentDataTag())).replace(u' ', u'-');
        RunRecord record = newRunRecord(spec);
        QJsonObject target = record.spec.value(u"target"_s).toObject();
        target[u"options"_s] = QJsonObject{{u"engine"_s, value}};
        record.spec[u"target"_s] = target;
        (*store)->createRun(record);
        (*store)->flush();
        const auto stored = RunSpec::fromJson((*store)->run(spec.id)->spec);
        QVERIFY(stored);
        auto fromStore = makeTarget(stored->target, ferry::test::ferryBinary());
        for (const auto &result : {fromStore->probe(runDir), fromStore->cancel(runDir, 1000)}) {
            QVERIFY(!result);
            QVERIFY2(result.error().message.contains(value), qPrintable(result.error().toString()));
        }
        (*store)->close();
        QVERIFY2(!QFileInfo::exists(m_marker), "a refused engine ran");
    }

    // A recorded engine that is no string at all is refused too, not replaced by the settings'.
    void recordedEngineOfWrongTypeIsRefused()
    {
        const QString runDir = craftedRunFolder(u"wrong-type"_s);
        TargetSpec target{TargetKind::Container, {}, QJsonObject{{u"engine"_s, 42}}};
        const auto probed = makeTarget(target, ferry::test::ferryBinary())->probe(runDir);
        QVERIFY(!probed);
        QVERIFY2(probed.error().message.startsWith(u"cannot use the container engine"_s),
                 qPrintable(probed.error().toString()));
    }

    // Started with engine A (the setting then), probed and cancelled after the setting changed
    // to B, then to a refused value: A does it all, B is never run.
    void recordedEngineOutlivesSettingChange()
    {
        const QString engineA = m_ws.filePath(u"engine-a"_s);
        const QString engineB = m_ws.filePath(u"engine-b"_s);
        QVERIFY(makeEngineWrapper(engineA, m_realDocker));
        QVERIFY(makeEngineWrapper(engineB, m_realDocker));
        const QString src = m_ws.filePath(u"wait"_s);
        QVERIFY(QDir().mkpath(src));
        QVERIFY(writeFile(src + u"/wait.py"_s, "import time\nprint('waiting', flush=True)\n"
                                               "while True:\n    time.sleep(1)\n"));
        RunSpec spec;
        spec.script = u"wait.py"_s;
        spec.sourceDir = src;
        spec.environmentFile = m_envFile;
        spec.interpreter = u"python3"_s;
        spec.target.kind = TargetKind::Container;

        setEngineSetting(engineA + u"/docker"_s);
        auto store = RunStore::open(RunStore::pathInWorkspace(m_ws.path()));
        QVERIFY(store);
        const QString runsDir = m_ws.filePath(u".ferry/runs"_s);
        auto starter = makeTarget(spec.target, ferry::test::ferryBinary());
        const auto launched = launchRun(**store, *starter, runsDir, spec);
        QVERIFY2(launched, qPrintable(launched ? QString() : launched.error().toString()));
        m_runIds << launched->id;
        const QString runDir = QDir(runsDir).filePath(launched->id);
        const auto stored = RunSpec::fromJson((*store)->run(launched->id)->spec);
        QVERIFY(stored);
        QCOMPARE(stored->target.options.value(u"engine"_s).toString(), engineA + u"/docker"_s);
        QVERIFY(ferry::test::waitFor([&] { return readFile(RunDirectory(runDir).logFile()).contains("waiting\n"); },
                                     120000, 100));

        for (const QString &setting : {QString(engineB + u"/docker"_s), u"/bin/sh"_s}) {
            setEngineSetting(setting);
            const auto again = RunSpec::fromJson((*store)->run(launched->id)->spec);
            const auto probed = makeTarget(again->target, ferry::test::ferryBinary())->probe(runDir);
            QVERIFY2(probed, qPrintable(probed ? QString() : probed.error().toString()));
            QCOMPARE(probed->state, RunState::Running);
        }
        const qsizetype callsBeforeCancel = readFile(engineA + u"/calls"_s).count('\n');
        const auto cancelled = makeTarget(stored->target, ferry::test::ferryBinary())->cancel(runDir, 1000);
        QVERIFY2(cancelled, qPrintable(cancelled ? QString() : cancelled.error().toString()));
        QCOMPARE(cancelled->state, RunState::Cancelled);
        QVERIFY(ferry::test::containersLabelled(launched->id).isEmpty());

        const QByteArray callsA = readFile(engineA + u"/calls"_s);
        QVERIFY2(callsA.contains("run -d") && callsA.contains("\nstop "), callsA.constData());
        QVERIFY(callsA.count('\n') > callsBeforeCancel);
        QVERIFY2(!QFileInfo::exists(engineB + u"/calls"_s), readFile(engineB + u"/calls"_s).constData());
        (*store)->close();
        setEngineSetting({});
    }
};

FERRY_TEST_GUILESS_MAIN(TestContainerEngine)
#include "tst_containerengine.moc"
