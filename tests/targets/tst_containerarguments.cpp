// The container command line without an engine (core/targets/containerarguments.h): what a run's
// container gets and what it never gets, the order variables win in, and the refusal of an
// environment's isolation-breaking run arguments unless the run allows them (review L15).
#include "support/testmain.h"
#include "targets/containerarguments.h"
#include "targets/containerengine.h"

#include <QTest>

using namespace Qt::StringLiterals;
using namespace ferry;
using namespace ferry::targets;

namespace {

ContainerRun minimalRun()
{
    ContainerRun run;
    run.name = u"ferry-r1"_s;
    run.labels = {u"ferry.run-id=r1"_s};
    run.workdir = u"/opt/ml/code"_s;
    run.image = u"ferry:demo-1-abc"_s;
    run.command = {u"python3"_s, u"train.py"_s};
    return run;
}

// The value after each `flag`, in order.
QStringList valuesOf(const QStringList &args, const QString &flag)
{
    QStringList values;
    for (qsizetype i = 0; i + 1 < args.size(); ++i)
        if (args.at(i) == flag)
            values << args.at(i + 1);
    return values;
}

} // namespace

class ContainerArgumentsTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void everyRunHasNoNetworkAnInitAndItsLabel()
    {
        const QStringList args = containerRunArguments(minimalRun());
        QCOMPARE(args.first(), u"run"_s);
        QCOMPARE(valuesOf(args, u"--network"_s), QStringList{u"none"_s});
        QVERIFY(args.contains(u"--init"_s));
        QCOMPARE(valuesOf(args, u"--name"_s), QStringList{u"ferry-r1"_s});
        QCOMPARE(valuesOf(args, u"--label"_s), QStringList{u"ferry.run-id=r1"_s});
        QCOMPARE(valuesOf(args, u"--workdir"_s), QStringList{u"/opt/ml/code"_s});
        // Nothing that was not asked for.
        for (const QString &absent : {u"-d"_s, u"--rm"_s, u"--gpus"_s, u"--user"_s, u"--shm-size"_s, u"--mount"_s})
            QVERIFY2(!args.contains(absent), qPrintable(absent));
        // The image, then the command, at the end.
        QCOMPARE(args.mid(args.size() - 3), (QStringList{u"ferry:demo-1-abc"_s, u"python3"_s, u"train.py"_s}));
    }

    void whatWasAskedForIsPassed()
    {
        ContainerRun run = minimalRun();
        run.detached = true;
        run.removedAtEnd = true;
        run.gpus = true;
        run.shmSize = u"2g"_s;
        run.user = u"1000:1000"_s;
        const QStringList args = containerRunArguments(run);
        QVERIFY(args.contains(u"-d"_s));
        QVERIFY(args.contains(u"--rm"_s));
        QCOMPARE(valuesOf(args, u"--gpus"_s), QStringList{u"all"_s});
        QCOMPARE(valuesOf(args, u"--shm-size"_s), QStringList{u"2g"_s});
        QCOMPARE(valuesOf(args, u"--user"_s), QStringList{u"1000:1000"_s});
    }

    void mountsAreBindMountsReadOnlyWhereAsked()
    {
        ContainerRun run = minimalRun();
        run.mounts = {{u"/runs/r1/model"_s, u"/opt/ml/model"_s, false}, {u"/src"_s, u"/opt/ml/code"_s, true}};
        run.rawMounts = {u"type=tmpfs,target=/run/ferry-secrets"_s};
        QCOMPARE(valuesOf(containerRunArguments(run), u"--mount"_s),
                 (QStringList{u"type=bind,source=/runs/r1/model,target=/opt/ml/model"_s,
                              u"type=bind,source=/src,target=/opt/ml/code,readonly"_s,
                              u"type=tmpfs,target=/run/ferry-secrets"_s}));
    }

    void theEnvironmentsArgumentsComeBeforeTheImage()
    {
        // After every option of Ferry's, so they are what the user wrote; before the image, so
        // they are options of `run` and not the script's.
        ContainerRun run = minimalRun();
        run.runArguments = {u"--ipc=host"_s};
        const QStringList args = containerRunArguments(run);
        QCOMPARE(args.indexOf(u"--ipc=host"_s) + 1, args.indexOf(u"ferry:demo-1-abc"_s));
        QVERIFY(args.indexOf(u"--ipc=host"_s) > args.indexOf(u"--workdir"_s));
    }

    void variablesComeInTheOrderThatLetsTheLaterWin()
    {
        env::Environment e;
        e.variables = {{u"A"_s, u"env"_s}, {u"TOKEN"_s, u"keychain-name"_s}, {u"B"_s, u"env"_s}};
        e.secretVariables = {u"TOKEN"_s};
        const ContainerVariables v =
            containerVariables(e, {{u"B"_s, u"launch"_s}},
                               {{u"SM_MODEL_DIR"_s, u"/opt/ml/model"_s}, {u"SM_HP_LEARNING-RATE"_s, u"0.1"_s}});
        // A secret's value here is a keychain name: never given to the container as a value.
        QCOMPARE(v.variables, (QList<std::pair<QString, QString>>{{u"A"_s, u"env"_s},
                                                                  {u"B"_s, u"env"_s},
                                                                  {u"B"_s, u"launch"_s},
                                                                  {u"SM_MODEL_DIR"_s, u"/opt/ml/model"_s},
                                                                  {u"SM_HP_LEARNING-RATE"_s, u"0.1"_s}}));
        // A shell drops a name with '-': the command sets it again.
        QCOMPARE(v.unshellable, QStringList{u"SM_HP_LEARNING-RATE=0.1"_s});
        ContainerRun run = minimalRun();
        run.variables = v.variables;
        const QStringList envs = valuesOf(containerRunArguments(run), u"--env"_s);
        QCOMPARE(envs.indexOf(u"B=launch"_s), envs.lastIndexOf(u"B=env"_s) + 1);
    }

    void theShellOnlyRedirects()
    {
        QCOMPARE(shellPrefix(), (QStringList{u"sh"_s, u"-c"_s, u"exec \"$@\""_s, u"sh"_s}));
        QCOMPARE(shellPrefix(u">>/opt/ml/ferry/log 2>&1"_s),
                 (QStringList{u"sh"_s, u"-c"_s, u"exec \"$@\" >>/opt/ml/ferry/log 2>&1"_s, u"sh"_s}));
    }

    void theHintFollowsWhatTheEngineSaid_data();
    void theHintFollowsWhatTheEngineSaid();
    void isolationBreakingArgumentsNeedTheRunsAllowance()
    {
        env::Environment e;
        e.docker.runArguments = {u"--shm-size=2g"_s};
        run::RunSpec spec;
        spec.environmentFile = u"/w/environments/x.yml"_s;
        QVERIFY(checkRunArguments(e, spec)); // harmless ones need nothing

        e.docker.runArguments = {u"-v"_s, u"/etc:/host-etc:ro"_s};
        const auto refused = checkRunArguments(e, spec);
        QVERIFY(!refused);
        QCOMPARE(refused.error().path, spec.environmentFile);
        QVERIFY2(refused.error().message.contains(u"-v /etc:/host-etc:ro"_s), qPrintable(refused.error().message));
        QVERIFY(refused.error().hint.contains(u"--allow-run-arguments"_s));

        spec.target.options[run::kAllowRunArgumentsOption] = true;
        QVERIFY(runArgumentsAllowed(spec));
        QVERIFY(checkRunArguments(e, spec));
    }
};

// A failed engine command's hint, from what it printed (review 2026-12-06, finding 14: a build
// that failed on DNS was told to check that the engine runs).
void ContainerArgumentsTest::theHintFollowsWhatTheEngineSaid_data()
{
    QTest::addColumn<QByteArray>("output");
    QTest::addColumn<bool>("started");
    QTest::addColumn<QString>("hint");
    QTest::newRow("apt on DNS") << QByteArray("Err:1 http://repo.example.org/debian bookworm InRelease\n"
                                              "  Temporary failure resolving 'repo.example.org'\n")
                                << true << u"(DNS)"_s;
    QTest::newRow("pip on DNS") << QByteArray("WARNING: Retrying ... NewConnectionError(': Failed to establish a new "
                                              "connection: [Errno -3] Temporary failure in name resolution'))\n")
                                << true << u"(DNS)"_s;
    QTest::newRow("Go client on DNS") << QByteArray(
                                             "dial tcp: lookup registry-1.docker.io on 127.0.0.53:53: no such host\n")
                                      << true << u"(DNS)"_s;
    QTest::newRow("daemon down") << QByteArray("Cannot connect to the Docker daemon at unix:///var/run/docker.sock.\n")
                                 << true << u"container engine runs"_s;
    QTest::newRow("no engine") << QByteArray() << false << u"install Docker or Podman"_s;
}

void ContainerArgumentsTest::theHintFollowsWhatTheEngineSaid()
{
    QFETCH(QByteArray, output);
    QFETCH(bool, started);
    QFETCH(QString, hint);
    const QString said = engineFailureHint(output, started);
    QVERIFY2(said.contains(hint), qPrintable(said));
    if (hint == u"(DNS)"_s)
        QVERIFY(!said.contains(u"container engine runs"_s));
}

FERRY_TEST_APPLESS_MAIN(ContainerArgumentsTest)
#include "tst_containerarguments.moc"
