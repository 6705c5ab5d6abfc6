// M3 (issue 14, item 4): a multi-line secret (a PEM-like key, kept with its inner newlines by
// `ferry secret set` in a real keychain, support/keyring.h) given to a run as a secret variable,
// and printed by the script line by line with a flush and a pause after each line, whole, and
// split in the middle of a line. Before the fix the redaction went line by line and every line
// of the key reached the log. Now on every target — a local run (the supervisor's
// StreamRedactor), a container run on the real Docker engine, an SSH run on the real sshd and a
// Slurm job (the Python secret entry program) — no line of the key is in the run's log, the run
// store or what `ferry runs attach` printed while it followed the run, and the script's other
// lines are all there, in order. The run follower's own pass (the lines it returns) hides a
// multi-line value that reached the log unredacted (a hyperparameter) too.
#include "support/files.h"
#include "support/keyring.h"
#include "support/process.h"
#include "support/testenv.h"

#include "targets/targetfactory.h"
#include "tracking/runfollower.h"
#include "tracking/runlauncher.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>

using namespace Qt::StringLiterals;
using namespace ferry;
using ferry::test::readFile;

namespace {

const QString kKey = u"-----BEGIN FERRY TEST KEY-----\n"
                     "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCm3bodyline1xq\n"
                     "BKcwggSjAgEAAoIBAQC7VJTUt9Us8cKjm3bodyline2zw\n"
                     "-----END FERRY TEST KEY-----"_s;

// The parts of the key that must never be seen: each of its lines.
const QByteArrayList kKeyLines = QByteArray("-----BEGIN FERRY TEST KEY-----\n"
                                            "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCm3bodyline1xq\n"
                                            "BKcwggSjAgEAAoIBAQC7VJTUt9Us8cKjm3bodyline2zw\n"
                                            "-----END FERRY TEST KEY-----")
                                     .split('\n');

const QByteArray kPemScript = "import os, sys, time\n"
                              "key = os.environ['PEM_KEY']\n"
                              "time.sleep(5)  # `ferry runs attach` is following by now\n"
                              "print('m3 start', flush=True)\n"
                              "for line in key.split('\\n'):\n"
                              "    print(line, flush=True)\n"
                              "    time.sleep(0.4)\n"
                              "print('m3 after lines', flush=True)\n"
                              "print(key, flush=True)\n"
                              "print('m3 after whole', flush=True)\n"
                              "cut = key.index('m3bodyline1') + 4\n"
                              "sys.stdout.write(key[:cut])\n"
                              "sys.stdout.flush()\n"
                              "time.sleep(0.6)\n"
                              "sys.stdout.write(key[cut:] + '\\n')\n"
                              "sys.stdout.flush()\n"
                              "print('m3 after split', flush=True)\n"
                              "for i in range(3):\n"
                              "    print('loss=%d' % i, flush=True)\n"
                              "print('m3 end', flush=True)\n";

// What the log shows of the script's output, in order.
const QByteArray kExpected = "m3 start\n***\nm3 after lines\n***\nm3 after whole\n***\nm3 after split\n"
                             "loss=0\nloss=1\nloss=2\nm3 end\n";

using ferry::test::ProgramOutput;

ProgramOutput command(const QString &program, const QStringList &arguments, const QString &cwd = {},
                      const QByteArray &input = {})
{
    return ferry::test::runCommand(program, arguments, cwd, input, QProcessEnvironment::systemEnvironment(), 900000);
}

QString keyLineIn(const QByteArray &bytes)
{
    for (const QByteArray &line : kKeyLines) {
        if (bytes.contains(line))
            return QString::fromUtf8(line);
    }
    return {};
}

// `bytes` holds `expected`'s lines in order (other lines may come between them).
bool inOrder(const QByteArray &bytes, const QByteArray &expected)
{
    const QByteArrayList lines = bytes.split('\n');
    qsizetype at = 0;
    for (const QByteArray &want : expected.split('\n')) {
        if (want.isEmpty())
            continue;
        while (at < lines.size() && lines[at] != want)
            ++at;
        if (at == lines.size())
            return false;
        ++at;
    }
    return true;
}

} // namespace

class TestMultilineSecret : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_ws;

    ProgramOutput ferry(const QStringList &arguments, const QByteArray &input = {}) const
    {
        return command(ferry::test::ferryBinary(), arguments, m_ws, input);
    }

    // `name` in the workspace.
    void writeFile(const QString &name, const QByteArray &bytes) const
    {
        QVERIFY(ferry::test::writeFile(m_ws + u'/' + name, bytes));
    }

    QString remoteRoot() const { return m_dir.filePath(u"remote"_s); }

    QStringList filesWithKeyLines(const QString &root) const
    {
        QStringList hits;
        QDirIterator it(root, QDir::Files | QDir::Hidden | QDir::System, QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QString path = it.next();
            if (path.endsWith(u".gz"_s) || path.endsWith(u"/secret-entry.py"_s))
                continue;
            if (const QString line = keyLineIn(readFile(path)); !line.isEmpty())
                hits << path + u" ("_s + line + u')';
        }
        return hits;
    }

    // Starts the run, follows it with `ferry runs attach` until it ends, checks the log, the
    // store and what attach printed.
    void runAndCheck(const QStringList &arguments, const QString &hostFolder = {})
    {
        const ProgramOutput started = ferry(QStringList{u"run"_s, u"key.py"_s} + arguments);
        QVERIFY2(started.code == 0, started.err.constData());
        const QString id = QString::fromUtf8(started.out).trimmed();
        QVERIFY(!id.isEmpty());
        const ProgramOutput attached = ferry({u"runs"_s, u"attach"_s, id});
        QVERIFY2(attached.code == 0, attached.err.constData());
        const QJsonObject shown = QJsonDocument::fromJson(ferry({u"runs"_s, u"show"_s, id, u"--json"_s}).out).object();
        QCOMPARE(shown[u"status"_s].toString(), u"succeeded"_s);

        const QByteArray log = readFile(m_ws + u"/.ferry/runs/"_s + id + u"/log"_s);
        QVERIFY2(keyLineIn(log).isEmpty(), log.constData());
        QVERIFY2(inOrder(log, kExpected), log.constData());
        QVERIFY2(log.contains(kExpected), log.constData()); // nothing of the key between them
        QVERIFY2(keyLineIn(attached.out).isEmpty(), attached.out.constData());
        QVERIFY2(inOrder(attached.out, kExpected), attached.out.constData());
        if (!hostFolder.isEmpty()) {
            const QByteArray remoteLog = readFile(hostFolder + u'/' + id + u"/log"_s);
            QVERIFY2(keyLineIn(remoteLog).isEmpty(), remoteLog.constData());
            QVERIFY2(inOrder(remoteLog, kExpected), remoteLog.constData());
        }
        const QStringList hits = filesWithKeyLines(m_ws + u"/.ferry"_s);
        QVERIFY2(hits.isEmpty(), qPrintable(hits.join(u", "_s)));
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_ws = m_dir.filePath(u"ws"_s);
        QVERIFY(QDir().mkpath(m_ws));
        QVERIFY(QDir().mkpath(remoteRoot()));
        writeFile(u"key.py"_s, kPemScript);
        writeFile(u"environments/local.yml"_s, "ferry: 1\nname: m3-local\npython:\n  interpreter: /usr/bin/python3\n"
                                               "  user_managed: true\nvariables:\n  PEM_KEY: {secret: M3_PEM_KEY}\n");
        writeFile(u"environments/container.yml"_s,
                  u"ferry: 1\nname: m3-container-%1\ndocker:\n  base_image: ferry-base:bookworm\n  gpu: \"off\"\n"
                  u"python:\n  interpreter: python3\n  user_managed: true\nvariables:\n"
                  u"  PEM_KEY: {secret: M3_PEM_KEY}\n"_s.arg(QCoreApplication::applicationPid())
                      .toUtf8());
        const ProgramOutput set = ferry({u"secret"_s, u"set"_s, u"M3_PEM_KEY"_s}, kKey.toUtf8());
        QVERIFY2(set.code == 0, set.err.constData());
        // The keychain holds the key with its inner newlines.
        QCOMPARE(ferry::test::keychainLookup(u"M3_PEM_KEY"_s), kKey);
    }

    void localRun() { runAndCheck({u"--env"_s, u"environments/local.yml"_s}); }

    void containerRun()
    {
        const QString services = QStringLiteral(FERRY_SOURCE_DIR) + u"/tests/services/"_s;
        if (qEnvironmentVariableIsEmpty("DOCKER_HOST")) {
            const ProgramOutput engine = command(u"bash"_s, {services + u"docker.sh"_s, u"status"_s});
            QVERIFY2(engine.code == 0, "no Docker engine: run the docker_service_start test first");
            qputenv("DOCKER_HOST", engine.out.trimmed().split('\n').last());
        }
        runAndCheck({u"--env"_s, u"environments/container.yml"_s, u"--target"_s, u"container"_s});
    }

    void sshRun()
    {
        qputenv("FERRY_SSH_CONFIG", (ferry::test::sshdDir() + u"/config"_s).toLocal8Bit());
        const QString knownHosts = qEnvironmentVariable("XDG_CONFIG_HOME") + u"/ferry/known_hosts"_s;
        QVERIFY(QDir().mkpath(QFileInfo(knownHosts).absolutePath()));
        QFile::remove(knownHosts);
        QVERIFY(QFile::copy(ferry::test::sshdDir() + u"/known_hosts"_s, knownHosts));
        runAndCheck({u"--env"_s, u"environments/local.yml"_s, u"--target"_s, u"ssh:ferrytest"_s, u"--host-python"_s,
                     u"--remote-dir"_s, remoteRoot()},
                    remoteRoot());
    }

    void slurmRun()
    {
        runAndCheck({u"--env"_s, u"environments/local.yml"_s, u"--target"_s, u"slurm:ferrytest"_s, u"--remote-dir"_s,
                     remoteRoot()},
                    remoteRoot());
    }

    // The follower's own pass: the key given as a hyperparameter (so nothing redacts the log),
    // printed line by line; the lines the follower returns hide it whole.
    void followerHidesWhatTheLogHolds()
    {
        QTemporaryDir ws;
        QFile script(ws.filePath(u"key.py"_s));
        QVERIFY(script.open(QIODevice::WriteOnly));
        script.write("import sys, time\n"
                     "key = sys.argv[sys.argv.index('--key') + 1]\n"
                     "print('m3 start', flush=True)\n"
                     "for line in key.split('\\n'):\n"
                     "    print(line, flush=True)\n"
                     "    time.sleep(0.3)\n"
                     "print('m3 end', flush=True)\n");
        script.close();
        QVERIFY(QDir().mkpath(ws.filePath(u".ferry/runs"_s)));
        auto store = run::RunStore::open(ws.filePath(u".ferry/runs.sqlite"_s));
        QVERIFY(store);
        auto target = targets::makeTarget(run::TargetSpec{}, ferry::test::ferryBinary());
        run::RunSpec spec;
        spec.script = u"key.py"_s;
        spec.sourceDir = ws.path();
        spec.id = run::newRunId(spec.script);
        spec.interpreter = u"/usr/bin/python3"_s;
        spec.hyperparameters = {{u"key"_s, kKey}};
        const auto launched = run::launchRun(**store, *target, ws.filePath(u".ferry/runs"_s), spec);
        QVERIFY2(launched, launched ? "" : qPrintable(launched.error().toString()));
        const QString runDir = ws.filePath(u".ferry/runs/"_s + launched->id);
        run::RunFollower follower(**store, *target, runDir, *launched);
        follower.setRedactor(secrets::Redactor({kKey}));
        QList<QByteArray> lines;
        bool finished = false;
        for (int round = 0; round < 600 && !finished; ++round) {
            const auto step = follower.poll();
            QVERIFY2(step, step ? "" : qPrintable(step.error().toString()));
            lines << step->lines;
            finished = step->finished;
            if (!finished)
                QTest::qWait(50);
        }
        QVERIFY(finished);
        QVERIFY(readFile(runDir + u"/log"_s).contains(kKeyLines[1])); // the log itself holds it
        const QByteArray shown = lines.join('\n') + '\n';
        QVERIFY2(keyLineIn(shown).isEmpty(), shown.constData());
        QVERIFY2(shown.contains("m3 start\n***\nm3 end\n"), shown.constData());
    }

    void cleanupTestCase()
    {
        (void)ferry({u"secret"_s, u"delete"_s, u"M3_PEM_KEY"_s});
        const ProgramOutput images =
            command(u"docker"_s, {u"images"_s, u"-q"_s, u"--filter"_s,
                                  u"reference=ferry:m3-container-%1-*"_s.arg(QCoreApplication::applicationPid())});
        for (const QByteArray &image : images.out.split('\n'))
            if (!image.trimmed().isEmpty())
                command(u"docker"_s, {u"rmi"_s, u"-f"_s, QString::fromUtf8(image.trimmed())});
    }
};

FERRY_KEYRING_TEST_MAIN(TestMultilineSecret)
#include "tst_multilinesecret.moc"
