// The canary sweep (issue 9): one canary secret in a real keychain (support/keyring.h), set and read
// with `ferry secret`, used as an environment-file secret variable of a local run and of a
// container run on the real Docker engine, whose base image comes from a real password-protected
// registry (tests/services/registry.sh) whose password is a keychain secret too. The scripts print
// the value and its encodings and write its hash to the model folder. Then nothing may hold the
// canary, the registry password or an encoding of one: the run store (SQLite bytes), every file of
// the workspace (.ferry/, generated Dockerfile and devcontainer.json, `ferry runs export` outputs),
// Ferry's settings, ~/.docker/config.json, any command line (`ps -eo args`) or `docker inspect`
// of the run's container while it runs. And the scripts saw the real value.
// The same secret variable then reaches runs on a real OpenSSH server on 127.0.0.1 (the `sshd`
// fixture) in the host's Python and in the environment's image, and a job on a real Slurm (the
// `slurm` fixture): the run folders on the host are swept too, and their secrets folder is gone.
// Kernels on that host and on that Slurm get it too, and their folders are swept as well.
#include "support/files.h"
#include "support/kernel.h"
#include "support/keyring.h"
#include "support/process.h"
#include "support/testenv.h"

#include <QByteArrayList>
#include <QCryptographicHash>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QUrl>

using namespace Qt::StringLiterals;

namespace {

// Characters that encode differently in URLs and base64 on purpose.
const QString kCanary = u"canary/sweep+7f3a Q=d9e1-secret"_s;

const QByteArray kCanaryScript = "import base64, hashlib, os, sys, time, urllib.parse\n"
                                 "value = os.environ['HF_TOKEN']\n"
                                 "print('plain', value, flush=True)\n"
                                 "print('base64', base64.b64encode(value.encode()).decode(), flush=True)\n"
                                 "print('url', urllib.parse.quote(value, safe=''), flush=True)\n"
                                 "sys.stdout.write('split ' + value[:5])\n"
                                 "sys.stdout.flush()\n"
                                 "time.sleep(0.3)\n"
                                 "print(value[5:], flush=True)\n"
                                 "model = os.environ['SM_MODEL_DIR']\n"
                                 "with open(os.path.join(model, 'token.sha256'), 'w') as f:\n"
                                 "    f.write(hashlib.sha256(value.encode()).hexdigest())\n"
                                 "with open(os.path.join(os.environ['SM_OUTPUT_DIR'], 'failure'), 'w') as f:\n"
                                 "    f.write('warning: token ' + value + ' looked odd')\n"
                                 "time.sleep(4)\n"
                                 "print('done', flush=True)\n";

using ferry::test::ProgramOutput;

ProgramOutput command(const QString &program, const QStringList &arguments, const QString &cwd = {},
                      const QByteArray &input = {},
                      const QProcessEnvironment &env = QProcessEnvironment::systemEnvironment())
{
    return ferry::test::runCommand(program, arguments, cwd, input, env, 900000);
}

QByteArrayList formsOf(const QString &value)
{
    const QByteArray raw = value.toUtf8();
    return {raw, raw.toBase64(), raw.toBase64(QByteArray::OmitTrailingEquals), QUrl::toPercentEncoding(value),
            QUrl::toPercentEncoding(value).replace("%20", "+")};
}

} // namespace

class TestSecretSweep : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_ws;
    QString m_address, m_user, m_password;
    QString m_baseImage;
    QByteArrayList m_forbidden;
    QStringList m_commandLineHits;
    QStringList m_inspectHits;
    QStringList m_secretMounts;
    int m_samples = 0;
    int m_inspected = 0;

    ProgramOutput ferry(const QStringList &arguments, const QByteArray &input = {}) const
    {
        return command(ferry::test::ferryBinary(), arguments, m_ws, input);
    }

    QString hitIn(const QByteArray &bytes) const
    {
        for (const QByteArray &form : m_forbidden)
            if (bytes.contains(form))
                return QString::fromUtf8(form);
        return {};
    }

    QStringList filesWithHits(const QString &root) const
    {
        QStringList hits;
        QDirIterator it(root, QDir::Files | QDir::Hidden | QDir::System, QDirIterator::Subdirectories);
        while (it.hasNext()) {
            QFile file(it.next());
            if (!file.open(QIODevice::ReadOnly))
                continue;
            QByteArray bytes = file.readAll();
            if (file.fileName().endsWith(u".gz"_s)) // model.tar.gz, output.tar.gz: what they hold
                bytes += command(u"gzip"_s, {u"-dc"_s, file.fileName()}).out;
            if (const QString form = hitIn(bytes); !form.isEmpty())
                hits << file.fileName() + u" ("_s + form + u')';
        }
        return hits;
    }

    // While a run goes: every command line, and Ferry's containers as the engine describes them.
    void sample()
    {
        const ProgramOutput ps = command(u"ps"_s, {u"-eo"_s, u"args"_s});
        if (const QString form = hitIn(ps.out); !form.isEmpty())
            m_commandLineHits << form;
        ++m_samples;
        const ProgramOutput ids = command(u"docker"_s, {u"ps"_s, u"-q"_s, u"--filter"_s, u"label=ferry.run-id"_s});
        for (const QByteArray &id : ids.out.split('\n')) {
            if (id.trimmed().isEmpty())
                continue;
            const ProgramOutput inspect = command(u"docker"_s, {u"inspect"_s, QString::fromUtf8(id.trimmed())});
            if (inspect.code != 0)
                continue;
            ++m_inspected;
            if (const QString form = hitIn(inspect.out); !form.isEmpty())
                m_inspectHits << form;
            // The secrets folder it mounted may stay only while the container reads it, then it is empty or gone.
            const QJsonArray mounts = QJsonDocument::fromJson(inspect.out).array().first()[u"Mounts"_s].toArray();
            for (const QJsonValue &m : mounts) {
                const QString source = m[u"Source"_s].toString();
                if (source.contains(u"ferry-secrets-"_s))
                    m_secretMounts << source;
            }
        }
    }

    // `ferry run ...`, sampled while it starts the run (image build, container start).
    QString startRun(const QStringList &arguments)
    {
        QProcess p;
        p.setWorkingDirectory(m_ws);
        p.start(ferry::test::ferryBinary(), arguments);
        while (!p.waitForFinished(200))
            sample();
        const QByteArray err = p.readAllStandardError();
        if (p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
            qWarning("%s", err.constData());
            return {};
        }
        return QString::fromUtf8(p.readAllStandardOutput()).trimmed();
    }

    QJsonObject waitForEnd(const QString &id)
    {
        QJsonObject shown;
        for (int i = 0; i < 1800; ++i) {
            sample();
            shown = QJsonDocument::fromJson(ferry({u"runs"_s, u"show"_s, id, u"--json"_s}).out).object();
            const QString status = shown[u"status"_s].toString();
            if (!status.isEmpty() && status != u"running"_s && status != u"created"_s)
                break;
            QTest::qWait(200);
        }
        return shown;
    }

    QByteArray readRunFile(const QString &id, const QString &name) const
    {
        return ferry::test::readFile(m_ws + u"/.ferry/runs/"_s + id + u'/' + name);
    }

    // `name` in the workspace.
    void writeFile(const QString &name, const QByteArray &bytes) const
    {
        QVERIFY(ferry::test::writeFile(m_ws + u'/' + name, bytes));
    }

    // Where the SSH and Slurm runs' folders go on the host (this machine).
    QString remoteRoot() const { return m_dir.filePath(u"remote"_s); }

    // The run folder on the host: the script ran there, and its secrets folder is gone.
    void checkRemoteFolder(const QString &id) const
    {
        const QString folder = remoteRoot() + u'/' + id;
        QVERIFY2(QFileInfo::exists(folder + u"/runner.sh"_s), qPrintable(folder));
        QVERIFY2(QFileInfo::exists(folder + u"/secret-entry.py"_s), qPrintable(folder));
        QVERIFY2(!QFileInfo::exists(folder + u"/secrets"_s), qPrintable(folder + u"/secrets is still there"_s));
        QFile log(folder + u"/log"_s);
        QVERIFY(log.open(QIODevice::ReadOnly));
        QVERIFY(log.readAll().contains("plain ***\n"));
    }

    void checkRun(const QString &id, const QJsonObject &shown)
    {
        QCOMPARE(shown[u"status"_s].toString(), u"succeeded"_s);
        // The script's failure message (the contract's failure file) reaches exit.json redacted.
        QVERIFY2(readRunFile(id, u"exit.json"_s).contains("warning: token *** looked odd"),
                 readRunFile(id, u"exit.json"_s).constData());
        QCOMPARE(shown[u"error"_s].toString(), u"warning: token *** looked odd"_s);
        const QByteArray log = readRunFile(id, u"log"_s);
        QVERIFY2(log.contains("plain ***\n") && log.contains("base64 ***\n") && log.contains("url ***\n") &&
                     log.contains("split ***\n") && log.contains("done\n"),
                 log.constData());
        // The script had the real value.
        const QByteArray hash = QCryptographicHash::hash(kCanary.toUtf8(), QCryptographicHash::Sha256).toHex();
        QCOMPARE(readRunFile(id, u"model/token.sha256"_s), hash);
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_ws = m_dir.filePath(u"ws"_s);
        QVERIFY(QDir().mkpath(m_ws));
        const QString services = QStringLiteral(FERRY_SOURCE_DIR) + u"/tests/services/"_s;
        if (qEnvironmentVariableIsEmpty("DOCKER_HOST")) {
            const ProgramOutput engine = command(u"bash"_s, {services + u"docker.sh"_s, u"status"_s});
            QVERIFY2(engine.code == 0, "no Docker engine: run the docker_service_start test first");
            qputenv("DOCKER_HOST", engine.out.trimmed().split('\n').last());
        }
        const ProgramOutput registry = command(u"bash"_s, {services + u"registry.sh"_s, u"start"_s});
        QVERIFY2(registry.code == 0, registry.err.constData());
        const QList<QByteArray> parts = registry.out.trimmed().split('\n').last().split(' ');
        QCOMPARE(parts.size(), 3);
        m_address = QString::fromUtf8(parts[0]);
        m_user = QString::fromUtf8(parts[1]);
        m_password = QString::fromUtf8(parts[2]);
        m_forbidden = formsOf(kCanary) + formsOf(m_password);
        // The base image, pushed with a login of the test's own (not the code under test).
        m_baseImage = m_address + u"/ferry-base:sweep"_s;
        QProcessEnvironment pusher = QProcessEnvironment::systemEnvironment();
        pusher.insert(u"DOCKER_CONFIG"_s, m_dir.filePath(u"pusher"_s));
        QVERIFY(command(u"docker"_s, {u"login"_s, m_address, u"-u"_s, m_user, u"--password-stdin"_s}, {},
                        m_password.toUtf8(), pusher)
                    .code == 0);
        QVERIFY(command(u"docker"_s, {u"tag"_s, u"ferry-base:bookworm"_s, m_baseImage}).code == 0);
        const ProgramOutput pushed = command(u"docker"_s, {u"push"_s, m_baseImage}, {}, {}, pusher);
        QVERIFY2(pushed.code == 0, pushed.err.constData());
        QVERIFY(command(u"docker"_s, {u"rmi"_s, m_baseImage}).code == 0); // the build must pull it
        QDir(m_dir.filePath(u"pusher"_s)).removeRecursively();

        // Ferry reaches the test's sshd (and through it the Slurm cluster) as `ferrytest`, its key trusted.
        qputenv("FERRY_SSH_CONFIG", (ferry::test::sshdDir() + u"/config"_s).toLocal8Bit());
        const QString knownHosts = qEnvironmentVariable("XDG_CONFIG_HOME") + u"/ferry/known_hosts"_s;
        QVERIFY(QDir().mkpath(QFileInfo(knownHosts).absolutePath()));
        QFile::remove(knownHosts);
        QVERIFY(QFile::copy(ferry::test::sshdDir() + u"/known_hosts"_s, knownHosts));
        QVERIFY(QDir().mkpath(remoteRoot()));

        writeFile(u"train.py"_s, kCanaryScript);
        writeFile(u"environments/local.yml"_s, "ferry: 1\nname: sweep-local\npython:\n  interpreter: /usr/bin/python3\n"
                                               "  user_managed: true\nvariables:\n  PLAIN: visible\n"
                                               "  HF_TOKEN: {secret: CANARY_TOKEN}\n");
        writeFile(u"environments/container.yml"_s,
                  u"ferry: 1\nname: sweep-container-%1\ndocker:\n  base_image: %2\n  registry:\n    address: %3\n"
                  u"    username: %4\n    password_secret: REGISTRY_PASSWORD\n  gpu: \"off\"\npython:\n"
                  u"  interpreter: python3\n  user_managed: true\nvariables:\n  HF_TOKEN: {secret: CANARY_TOKEN}\n"_s
                      .arg(QCoreApplication::applicationPid())
                      .arg(m_baseImage, m_address, m_user)
                      .toUtf8());
    }

    // (c) The command line: the values come from standard input, never from an argument.
    void secretsThroughTheCommandLine()
    {
        QVERIFY(ferry({u"secret"_s, u"set"_s, u"CANARY_TOKEN"_s}, kCanary.toUtf8()).code == 0);
        // Stored for the test registry (the user sends it there): ferry secret set NAME --registry ADDRESS.
        QVERIFY(ferry({u"secret"_s, u"set"_s, u"REGISTRY_PASSWORD"_s, u"--registry"_s, m_address}, m_password.toUtf8())
                    .code == 0);
        const ProgramOutput got = ferry({u"secret"_s, u"get"_s, u"CANARY_TOKEN"_s});
        QCOMPARE(got.code, 0);
        QCOMPARE(QString::fromUtf8(got.out).trimmed(), kCanary);
    }

    // (a) An environment-file secret variable of a local run.
    void localRun()
    {
        const QString id = startRun({u"run"_s, u"train.py"_s, u"--env"_s, u"environments/local.yml"_s});
        QVERIFY(!id.isEmpty());
        checkRun(id, waitForEnd(id));
        QVERIFY(readRunFile(id, u"spec.json"_s).contains("CANARY_TOKEN")); // the name, not the value
    }

    // (a) and (b): a container run, its base image from the registry behind the keychain password.
    void containerRun()
    {
        const int inspectedBefore = m_inspected;
        const QString id = startRun(
            {u"run"_s, u"train.py"_s, u"--env"_s, u"environments/container.yml"_s, u"--target"_s, u"container"_s});
        QVERIFY(!id.isEmpty());
        checkRun(id, waitForEnd(id));
        QVERIFY2(m_inspected > inspectedBefore, "the running container was never inspected");
        QVERIFY(!m_secretMounts.isEmpty()); // it had its secrets folder mounted
        for (const QString &source : std::as_const(m_secretMounts))
            QVERIFY2(!QFileInfo::exists(source), qPrintable(source)); // and it is gone
        QVERIFY2(readRunFile(id, u"log"_s).contains(QByteArray("logging in to " + m_address.toUtf8())),
                 readRunFile(id, u"log"_s).constData());
        // What the user generates from the workspace.
        QCOMPARE(ferry({u"env"_s, u"export"_s, u"environments/container.yml"_s, u"--format"_s, u"dockerfile"_s, u"-o"_s,
                        u"generated/Dockerfile"_s})
                     .code,
                 0);
        QCOMPARE(ferry({u"env"_s, u"export"_s, u"environments/container.yml"_s, u"--format"_s, u"devcontainer"_s,
                        u"-o"_s, u".devcontainer/devcontainer.json"_s})
                     .code,
                 0);
        QCOMPARE(ferry({u"runs"_s, u"export"_s, id, u"--to"_s, u"azureml"_s, u"--compute"_s, u"gpu"_s, u"-o"_s,
                        u"generated/job.yml"_s})
                     .code,
                 0);
        QCOMPARE(ferry({u"runs"_s, u"export"_s, id, u"--to"_s, u"sagemaker"_s, u"-o"_s, u"generated/launch.py"_s}).code,
                 0);
        QVERIFY(QFile::exists(m_ws + u"/generated/Dockerfile"_s));
    }

    // (a) over SSH: the values go to the host on stdin, the entry there redacts the log.
    void sshRunInTheHostsPython()
    {
        const QString id = startRun({u"run"_s, u"train.py"_s, u"--env"_s, u"environments/local.yml"_s, u"--target"_s,
                                     u"ssh:ferrytest"_s, u"--host-python"_s, u"--remote-dir"_s, remoteRoot()});
        QVERIFY(!id.isEmpty());
        checkRun(id, waitForEnd(id));
        checkRemoteFolder(id);
    }

    void sshRunInTheImage()
    {
        const int inspectedBefore = m_inspected;
        const QString id = startRun({u"run"_s, u"train.py"_s, u"--env"_s, u"environments/container.yml"_s,
                                     u"--target"_s, u"ssh:ferrytest"_s, u"--remote-dir"_s, remoteRoot()});
        QVERIFY(!id.isEmpty());
        checkRun(id, waitForEnd(id));
        QVERIFY2(m_inspected > inspectedBefore, "the running container was never inspected");
        checkRemoteFolder(id);
    }

    void slurmRun()
    {
        const QString id = startRun({u"run"_s, u"train.py"_s, u"--env"_s, u"environments/local.yml"_s, u"--target"_s,
                                     u"slurm:ferrytest"_s, u"--remote-dir"_s, remoteRoot()});
        QVERIFY(!id.isEmpty());
        checkRun(id, waitForEnd(id));
        checkRemoteFolder(id);
    }

    // Kernels on the SSH host (its Python) and on a Slurm node get the environment's secret variable
    // as runs do: the cell's output and the kernel's own (a subprocess) are '***' in what Ferry
    // shows; stopped, their folders here and on the host are swept below with the runs'.
    void kernelsOnHosts()
    {
        for (const QString &target : {u"ssh:ferrytest"_s, u"slurm:ferrytest"_s}) {
            const QString id = startRun({u"kernel"_s, u"start"_s, u"--env"_s, u"environments/local.yml"_s,
                                         u"--target"_s, target, u"--host-python"_s, u"--remote-dir"_s, remoteRoot()});
            QVERIFY2(!id.isEmpty(), qPrintable(target));
            const ProgramOutput printed =
                ferry({u"kernel"_s, u"exec"_s, id,
                       u"import os, subprocess\nprint(os.environ['HF_TOKEN'])\nprint(len(os.environ['HF_TOKEN']))\n"
                       "_ = subprocess.run(['sh', '-c', 'echo \"$HF_TOKEN\" >&2'])"_s});
            QVERIFY2(printed.code == 0, printed.err.constData());
            QCOMPARE(printed.out, u"***\n%1\n"_s.arg(kCanary.size()).toUtf8());
            QVERIFY(hitIn(printed.out + printed.err).isEmpty());
            const ProgramOutput stopped = ferry({u"kernel"_s, u"stop"_s, id});
            QVERIFY2(stopped.code == 0, stopped.err.constData());
            // Nothing of it left on the host (this machine).
            QTRY_COMPARE_WITH_TIMEOUT(ferry::test::markedProcesses(id), QList<qint64>(), 10000);
            // The subprocess wrote to the kernel's own output: kernel.log on the host has it, hidden.
            QVERIFY(ferry::test::readFile(remoteRoot() + u'/' + id + u"/kernel/kernel.log"_s).contains("***\n"));
            QVERIFY2(!QFileInfo::exists(remoteRoot() + u'/' + id + u"/secrets"_s), qPrintable(target));
        }
    }

    void sweepFindsNothing()
    {
        QVERIFY2(filesWithHits(remoteRoot()).isEmpty(), qPrintable(filesWithHits(remoteRoot()).join(u", "_s)));
        QVERIFY(m_samples > 10);
        QVERIFY2(m_commandLineHits.isEmpty(), qPrintable(m_commandLineHits.join(u", "_s)));
        QVERIFY2(m_inspectHits.isEmpty(), qPrintable(m_inspectHits.join(u", "_s)));
        QVERIFY(QFile::exists(m_ws + u"/.ferry/runs.sqlite"_s));
        QVERIFY2(filesWithHits(m_ws).isEmpty(), qPrintable(filesWithHits(m_ws).join(u", "_s)));
        const QString config = qEnvironmentVariable("XDG_CONFIG_HOME");
        QVERIFY(!config.isEmpty());
        QVERIFY2(filesWithHits(config).isEmpty(), qPrintable(filesWithHits(config).join(u", "_s)));
        QFile dockerConfig(QDir::homePath() + u"/.docker/config.json"_s);
        if (dockerConfig.open(QIODevice::ReadOnly))
            QVERIFY2(hitIn(dockerConfig.readAll()).isEmpty(), "~/.docker/config.json holds a secret");
    }

    void cleanupTestCase()
    {
        (void)ferry({u"secret"_s, u"delete"_s, u"CANARY_TOKEN"_s});
        (void)ferry({u"secret"_s, u"delete"_s, u"REGISTRY_PASSWORD"_s});
        command(u"docker"_s, {u"rmi"_s, u"-f"_s, m_baseImage});
        // The run's image (its name is this test's own, so that every run really logs in and pulls).
        const ProgramOutput images =
            command(u"docker"_s, {u"images"_s, u"-q"_s, u"--filter"_s,
                                  u"reference=ferry:sweep-container-%1-*"_s.arg(QCoreApplication::applicationPid())});
        for (const QByteArray &image : images.out.split('\n'))
            if (!image.trimmed().isEmpty())
                command(u"docker"_s, {u"rmi"_s, u"-f"_s, QString::fromUtf8(image.trimmed())});
    }
};

FERRY_KEYRING_TEST_MAIN(TestSecretSweep)
#include "tst_secretsweep.moc"
