// A kernel on an SSH host in the environment's image (the test sshd on 127.0.0.1, the docker
// fixture's engine behind it; the image built there from the environment, on
// ferry-kernel:bookworm), as a run in the image goes: the run's contract and mounts, its keeper's
// folder and socket folder mounted from the host, reached through the same forwards and journal
// copy as a kernel in the host's Python. State kept between cells, output, an error, an image, an
// interrupted sleep(600), a restart (the protocol's, and the keeper's signal through the engine), a
// stop that leaves neither the container nor anything else on the host.
#include "kernelhost/kernelfolder.h"
#include "kernelhost/kernelhost.h"

#include "support/container.h"
#include "support/hostkernel.h"
#include "support/kernel.h"
#include "support/remote.h"
#include "support/testmain.h"

#include <QFile>
#include <QJsonObject>
#include <QTest>

#include <csignal>

using namespace Qt::StringLiterals;

class TestSshImageKernel : public QObject {
    Q_OBJECT

    ferry::test::HostKernelCase m_case;
    QString m_image;

    ferry::test::CliResult kernel(const QStringList &args) const { return m_case.kernel(args); }

private Q_SLOTS:
    void initTestCase()
    {
        if (const QString missing = ferry::test::connectToKernelImage(); !missing.isEmpty())
            QFAIL(qPrintable(missing));
        m_case.prepare();
        const QString env = m_case.dir.filePath(u"tst-sshimagekernel.yml"_s);
        QVERIFY(ferry::test::writeFile(env, "ferry: 1\nname: tst-sshimagekernel\nversion: \"1\"\n"
                                            "docker:\n  base_image: ferry-kernel:bookworm\n  gpu: \"off\"\n"
                                            "python:\n  interpreter: python3\n  user_managed: true\n"
                                            "variables:\n  FROM_THE_ENVIRONMENT: \"yes\"\n"));
        m_image = u"ferry:tst-sshimagekernel-1"_s;
        const QString data = m_case.dir.filePath(u"data"_s);
        QVERIFY(ferry::test::writeFile(data + u"/a.txt"_s, "from the channel\n"));
        const ferry::test::CliResult started =
            kernel({u"start"_s, u"--target"_s, u"ssh:"_s + ferry::test::kHost, u"--env"_s, env, u"--data"_s,
                    u"training="_s + data, u"--remote-dir"_s, m_case.hostRoot()});
        QVERIFY2(started.exitCode == 0, qPrintable(started.err));
        m_case.id = started.out.trimmed();
        QCOMPARE(ferry::test::containersLabelled(m_case.id).size(), 1);
    }

    void cleanupTestCase()
    {
        if (!m_case.id.isEmpty())
            (void)kernel({u"remove"_s, m_case.id});
        (void)ferry::test::docker({u"image"_s, u"rm"_s, u"-f"_s, m_image});
    }

    // In the container, as a run in the image would be: the contract's paths and channels, the
    // environment's variables, the code folder; the sockets are the host's, mounted.
    void theRunsContractInTheImage()
    {
        const ferry::test::CliResult seen =
            kernel({u"exec"_s, m_case.id,
                    u"import os\nprint(os.path.exists('/.dockerenv'), os.getcwd(), os.environ['SM_MODEL_DIR'])\n"
                    "print(open(os.environ['SM_CHANNEL_TRAINING'] + '/a.txt').read().strip())\n"
                    "print(os.environ['FROM_THE_ENVIRONMENT'])"_s});
        QVERIFY2(seen.exitCode == 0, qPrintable(seen.err));
        QCOMPARE(seen.out, u"True /opt/ml/code /opt/ml/model\nfrom the channel\nyes\n"_s);
        const QString sockets = ferry::run::hostKernelSocketDir(m_case.id);
        QVERIFY(QFileInfo(sockets).isDir());
        QCOMPARE(QFileInfo(sockets).permissions() & (QFile::ReadGroup | QFile::ReadOther), QFile::Permissions());
        QVERIFY(QFileInfo::exists(m_case.keeperThere() + u"/journal"_s));
    }

    void cellsKeepStateAndShowOutputs()
    {
        m_case.cellsRunAndTheListSaysSo(u"ssh:"_s + ferry::test::kHost, ferry::test::kStandardLibraryPngCell);
    }

    void interruptsASleep() { ferry::test::interruptsASleep(m_case.cli(), m_case.id); }

    // The keeper's signal reaches it through the engine (its pid is the container's): USR1 is the
    // interrupt by signal, which ends a sleeping cell as the protocol's does.
    void theKeepersSignalGoesThroughTheEngine()
    {
        QProcess exec;
        m_case.cli().startExec(exec, m_case.id, u"import time\nprint('asleep', flush=True)\ntime.sleep(600)"_s);
        QByteArray out;
        QTRY_VERIFY2_WITH_TIMEOUT((out += exec.readAllStandardOutput()).contains("asleep"),
                                  qPrintable(QString::fromUtf8(out + exec.readAllStandardError())), 30000);
        const auto sent =
            ferry::kernels::interruptKernelBySignal(m_case.folderOf(m_case.id), ferry::test::ferryBinary());
        QVERIFY2(sent, qPrintable(sent ? QString() : sent.error().toString()));
        QVERIFY(exec.waitForFinished(30000));
        QCOMPARE(exec.exitCode(), 1);
        QVERIFY(exec.readAllStandardError().contains("KeyboardInterrupt"));
    }

    void restartGivesAFreshKernel() { ferry::test::restartGivesAFreshKernel(m_case.cli(), m_case.id); }

    // Stopped: the container is gone (and its socket folder on the host), then removed with the rest.
    void stopLeavesNothingOnTheHost()
    {
        m_case.stopAndRemoveLeaveNothing();
        QVERIFY(ferry::test::containersLabelled(m_case.id).isEmpty());
        m_case.id.clear();
    }
};

FERRY_TEST_GUILESS_MAIN(TestSshImageKernel)
#include "tst_sshimagekernel.moc"
