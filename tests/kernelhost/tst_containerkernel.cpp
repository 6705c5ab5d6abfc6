// Kernels in a container of the environment's image (the real dockerd of the `docker` fixture,
// ferry-kernel:bookworm: the base image with Debian's ipykernel), through `ferry kernel`: the run's
// mounts, contract variables and data channels, state between cells, output, an error, an image,
// an interrupted sleep(600), a restart, a stop that removes the container, and a kernel killed by
// the out-of-memory killer under a cgroup memory limit, said as such.
#include "kernelhost/kernelfolder.h"

#include "support/cli.h"
#include "support/container.h"
#include "support/kernel.h"
#include "support/testmain.h"

#include <QDir>
#include <QFile>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace ferry::test;

class TestContainerKernel : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_ws;
    QString m_env;
    QString m_id;

    KernelCli kernel; // `ferry kernel ...` in m_ws (support/kernel.h)
    QJsonObject shown(const QString &id) const { return kernel.shown(id); }
    QString writeEnvironment(const QString &name, const QString &extra)
    {
        const QString path = m_dir.filePath(name + u".yml"_s);
        QFile file(path);
        if (!file.open(QIODevice::WriteOnly))
            return {};
        file.write(
            u"ferry: 1\nname: %1\nversion: \"1\"\ndocker:\n  base_image: ferry-kernel:bookworm\n  gpu: \"off\"\n%2"
            "python:\n  interpreter: python3\n  user_managed: true\n"_s.arg(name, extra)
                .toUtf8());
        return path;
    }

private Q_SLOTS:
    void initTestCase()
    {
        if (const QString missing = connectToKernelImage(); !missing.isEmpty())
            QFAIL(qPrintable(missing));
        QVERIFY(m_dir.isValid());
        m_ws = m_dir.filePath(u"ws"_s);
        kernel.workspace = m_ws;
        kernel.environment = QProcessEnvironment::systemEnvironment(); // DOCKER_HOST, as connectToDocker set it
        QVERIFY(QDir().mkpath(m_ws + u"/data"_s));
        QFile data(m_ws + u"/data/a.txt"_s);
        QVERIFY(data.open(QIODevice::WriteOnly));
        data.write("from the channel\n");
        data.close();
        m_env = writeEnvironment(u"tst-containerkernel"_s, {});
        const CliResult started = kernel({u"start"_s, u"--env"_s, m_env, u"--target"_s, u"container"_s, u"--data"_s,
                                          u"training="_s + m_ws + u"/data"_s});
        QVERIFY2(started.exitCode == 0, qPrintable(started.err));
        m_id = started.out.trimmed();
        QCOMPARE(containersLabelled(m_id).size(), 1);
    }

    void theRunsContract()
    {
        const CliResult seen =
            kernel({u"exec"_s, m_id,
                    u"import os\nprint(open('/opt/ml/input/data/training/a.txt').read().strip())\n"
                    "print(os.environ['SM_CHANNEL_TRAINING'], os.environ['SM_MODEL_DIR'], os.getcwd())"_s});
        QVERIFY2(seen.exitCode == 0, qPrintable(seen.err));
        QCOMPARE(seen.out, u"from the channel\n/opt/ml/input/data/training /opt/ml/model /opt/ml/code\n"_s);
    }

    void cellsKeepStateAndShowOutputs()
    {
        ferry::test::cellsKeepStateAndShowOutputs(kernel, m_id, ferry::test::kStandardLibraryPngCell);
    }

    void interruptsASleepAndRestarts()
    {
        QProcess exec;
        exec.start(ferryBinary(),
                   {u"kernel"_s, u"exec"_s, m_id, u"import time\nprint('asleep', flush=True)\ntime.sleep(600)"_s,
                    u"--workspace"_s, m_ws});
        QByteArray out;
        QTRY_VERIFY2_WITH_TIMEOUT((out += exec.readAllStandardOutput()).contains("asleep"),
                                  qPrintable(QString::fromUtf8(out)), 60000);
        QCOMPARE(kernel({u"interrupt"_s, m_id}).exitCode, 0);
        QVERIFY(exec.waitForFinished(60000));
        QVERIFY(exec.readAllStandardError().contains("KeyboardInterrupt"));
        QCOMPARE(kernel({u"restart"_s, m_id}).exitCode, 0);
        QTRY_COMPARE_WITH_TIMEOUT(shown(m_id).value(u"restarts"_s).toInt(), 1, 60000);
        const CliResult after = kernel({u"exec"_s, m_id, u"print(x)"_s});
        QCOMPARE(after.exitCode, 1);
        QVERIFY(after.err.contains(u"NameError"_s));
    }

    void stopRemovesTheContainer()
    {
        const QString sockets = ferry::kernels::KernelFolder(m_ws + u"/.ferry/kernels/"_s + m_id).ferrySocketDir();
        QVERIFY(QFileInfo::exists(sockets));
        QCOMPARE(kernel({u"stop"_s, m_id}).exitCode, 0);
        QCOMPARE(shown(m_id).value(u"end"_s).toObject().value(u"reason"_s).toString(), u"stopped"_s);
        QVERIFY(containersLabelled(m_id).isEmpty());
        QVERIFY(!QFileInfo::exists(sockets));
        QCOMPARE(kernel({u"remove"_s, m_id}).exitCode, 0);
    }

    // A cgroup memory limit (the environment's docker run arguments, consented to) and a cell that
    // goes past it: the kernel is killed by the out-of-memory killer, and says so.
    void outOfMemory()
    {
        const QString env =
            writeEnvironment(u"tst-containerkernel-oom"_s,
                             u"  run_arguments: [\"--memory\", \"300m\", \"--memory-swap\", \"300m\"]\n"_s);
        const CliResult started =
            kernel({u"start"_s, u"--env"_s, env, u"--target"_s, u"container"_s, u"--allow-run-arguments"_s});
        QVERIFY2(started.exitCode == 0, qPrintable(started.err));
        const QString id = started.out.trimmed();
        const CliResult killed =
            kernel({u"exec"_s, id, u"b = bytearray(1024 ** 3)\nb[::4096] = b'x' * len(b[::4096])"_s});
        QCOMPARE(killed.exitCode, 1);
        QVERIFY2(killed.err.contains(u"the kernel ended: out of memory"_s), qPrintable(killed.err));
        const QJsonObject end = shown(id).value(u"end"_s).toObject();
        QCOMPARE(end.value(u"reason"_s).toString(), u"out-of-memory"_s);
        QVERIFY(end.value(u"peakMemoryBytes"_s).toDouble() > 100e6);
        QCOMPARE(kernel({u"remove"_s, id}).exitCode, 0);
        QVERIFY(containersLabelled(id).isEmpty());
    }

    void cleanupTestCase()
    {
        for (const QString &tag : {u"tst-containerkernel"_s, u"tst-containerkernel-oom"_s})
            (void)docker({u"image"_s, u"rm"_s, u"-f"_s, u"ferry:"_s + tag + u"-1"_s});
    }
};

FERRY_TEST_GUILESS_MAIN(TestContainerKernel)
#include "tst_containerkernel.moc"
