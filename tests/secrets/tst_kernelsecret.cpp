// Secrets reaching a kernel (support/keyring.h: a real gnome-keyring): `ferry kernel start
// --secret-env` gives the kernel its variable, read from the keychain where the kernel starts; what
// the kernel prints of it (its cells, and a subprocess writing to the kernel's own output) is
// "***" in the output Ferry shows, and the canary is in no file of the workspace (the journal,
// the kernel's log, its records). A kernel started without it has no such variable.
#include "support/cli.h"
#include "support/container.h"
#include "support/kernel.h"
#include "support/keyring.h"
#include "support/testenv.h"

#include "secrets/secretstore.h"

#include <QDir>
#include <QFile>
#include <QSettings>
#include <QTemporaryDir>

using namespace Qt::StringLiterals;

class TestKernelSecret : public QObject {
    Q_OBJECT

    QTemporaryDir m_ws;
    const QString m_canary = u"canary-kernel-5e0b7f19-secret"_s;
    QString m_env;

    ferry::test::CliResult kernel(const QStringList &args)
    {
        return ferry::test::runFerry(
            m_ws.path(), QStringList{u"kernel"_s} + args + QStringList{u"--workspace"_s, m_ws.path()}, 120000);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QSettings settings; // the same settings the ferry processes use (XDG_CONFIG_HOME)
        ferry::secrets::SecretStore store(settings);
        QVERIFY(store.writeNow(u"CANARY_TOKEN"_s, m_canary));
        m_env = ferry::test::writeDebianPythonEnvironment(m_ws.filePath(u"debian.yml"_s));
        QVERIFY(!m_env.isEmpty());
    }

    void theKernelGetsItRedacted()
    {
        const ferry::test::CliResult started =
            kernel({u"start"_s, u"--env"_s, m_env, u"--secret-env"_s, u"HF_TOKEN=CANARY_TOKEN"_s});
        QVERIFY2(started.exitCode == 0, qPrintable(started.err));
        const QString id = started.out.trimmed();
        const ferry::test::CliResult printed =
            kernel({u"exec"_s, id,
                    u"import os, subprocess\nprint(os.environ['HF_TOKEN'])\nprint(len(os.environ['HF_TOKEN']))\n"
                    "subprocess.run(['sh', '-c', 'echo \"$HF_TOKEN\"; echo \"$HF_TOKEN\" >&2'])\n"
                    "import sys; print(repr(os.environ['HF_TOKEN']), file=sys.stderr)"_s});
        QVERIFY2(printed.exitCode == 0, qPrintable(printed.err));
        QVERIFY2(printed.out.startsWith(u"***\n%1\n"_s.arg(m_canary.size())), qPrintable(printed.out));
        QVERIFY(!printed.out.contains(m_canary) && !printed.err.contains(m_canary));
        QCOMPARE(kernel({u"stop"_s, id}).exitCode, 0);
        // The subprocess wrote to the kernel's own output: kernel.log has it, hidden.
        QFile log(m_ws.filePath(u".ferry/kernels/"_s + id + u"/kernel/kernel.log"_s));
        QVERIFY(log.open(QIODevice::ReadOnly));
        QVERIFY2(log.readAll().contains("***\n"), "the kernel's own output went through the keeper's redaction");
        const QStringList holding = ferry::test::filesHolding(m_ws.path(), m_canary);
        QVERIFY2(holding.isEmpty(), qPrintable(holding.join(u", "_s)));
    }

    // The same in a container (the docker fixture, ferry-kernel:bookworm): the variable given by
    // the container's secret entry, '***' in what Ferry shows, the canary in no file of the
    // workspace, the container gone once stopped.
    void inAContainer()
    {
        if (const QString missing = ferry::test::connectToKernelImage(); !missing.isEmpty())
            QFAIL(qPrintable(missing));
        const QString env = m_ws.filePath(u"tst-kernelsecret.yml"_s);
        QFile file(env);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("ferry: 1\nname: tst-kernelsecret\nversion: \"1\"\ndocker:\n  base_image: ferry-kernel:bookworm\n"
                   "  gpu: \"off\"\npython:\n  interpreter: python3\n  user_managed: true\n");
        file.close();
        const ferry::test::CliResult started = kernel({u"start"_s, u"--env"_s, env, u"--target"_s, u"container"_s,
                                                       u"--secret-env"_s, u"HF_TOKEN=CANARY_TOKEN"_s});
        QVERIFY2(started.exitCode == 0, qPrintable(started.err));
        const QString id = started.out.trimmed();
        const ferry::test::CliResult printed =
            kernel({u"exec"_s, id, u"import os\nprint(os.environ['HF_TOKEN'])\nprint(len(os.environ['HF_TOKEN']))"_s});
        QVERIFY2(printed.exitCode == 0, qPrintable(printed.err));
        QCOMPARE(printed.out, u"***\n%1\n"_s.arg(m_canary.size()));
        QCOMPARE(kernel({u"stop"_s, id}).exitCode, 0);
        QVERIFY(ferry::test::containersLabelled(id).isEmpty());
        const QStringList holding = ferry::test::filesHolding(m_ws.path(), m_canary);
        QVERIFY2(holding.isEmpty(), qPrintable(holding.join(u", "_s)));
        QCOMPARE(kernel({u"remove"_s, id}).exitCode, 0);
        (void)ferry::test::docker({u"image"_s, u"rm"_s, u"-f"_s, u"ferry:tst-kernelsecret-1"_s});
    }

    void onlyWhenAsked()
    {
        const ferry::test::CliResult started = kernel({u"start"_s, u"--env"_s, m_env});
        QVERIFY2(started.exitCode == 0, qPrintable(started.err));
        const QString id = started.out.trimmed();
        QCOMPARE(kernel({u"exec"_s, id, u"import os\nprint('HF_TOKEN' in os.environ)"_s}).out, u"False\n"_s);
        QCOMPARE(kernel({u"remove"_s, id}).exitCode, 0);
    }
};

FERRY_KEYRING_TEST_MAIN(TestKernelSecret)
#include "tst_kernelsecret.moc"
