// The host as an SSH or Slurm run saw it (run/hostfacts.h), against the real test sshd and
// Slurm (tests/services/): the runner writes it on the node beside the script's start, and it
// comes back with the log into the local run folder's host.txt. The node is this machine, so
// its name, cores and OS are this machine's.
#include "run/hostfacts.h"
#include "support/remote.h"
#include "support/targets.h"
#include "support/testmain.h"
#include "targets/slurmtarget.h"
#include "targets/sshtarget.h"

#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace Qt::StringLiterals;
using namespace ferry;
using namespace ferry::test;

namespace {

QString firstLine(const QString &path)
{
    return QString::fromUtf8(readFile(path)).section(u'\n', 0, 0).trimmed();
}

} // namespace

class TestRemoteHostFacts : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void theRunnerReportsItsNode_data()
    {
        QTest::addColumn<QString>("target");
        QTest::newRow("ssh") << u"ssh:"_s + kHost;
        QTest::newRow("slurm") << u"slurm:local"_s;
    }

    void theRunnerReportsItsNode()
    {
        QFETCH(QString, target);
        const SshSandbox sandbox;
        QTemporaryDir ws;
        run::RunSpec spec = remoteSpec(target, kScripts, u"metrics.py"_s, ws.filePath(u"on-the-host"_s));
        spec.hyperparameters = {{u"steps"_s, u"3"_s}, {u"delay"_s, u"0.2"_s}};
        const QString runDir = ws.filePath(u"run"_s);
        std::unique_ptr<targets::Target> host;
        if (spec.target.kind == run::TargetKind::Ssh)
            host = std::make_unique<targets::SshTarget>(kHost, sandbox.options());
        else
            host = std::make_unique<targets::SlurmTarget>(u"local"_s, sandbox.options());
        const auto started = host->start(runDir, spec);
        QVERIFY2(started, qPrintable(errorOf(started)));
        QVERIFY(waitFor([&] { return probeOf(*host, runDir).finished(); }, 120000, 200));
        QCOMPARE(probeOf(*host, runDir).state, targets::RunState::Succeeded);
        const auto facts = run::readHostFacts(runDir);
        QVERIFY2(facts, qPrintable(QString::fromUtf8(logOf(runDir))));
        QCOMPARE(facts->hostname, firstLine(u"/proc/sys/kernel/hostname"_s));
        QVERIFY(facts->cores >= 1);
        QVERIFY(facts->memoryKiB > 0);
        QCOMPARE(facts->os, run::HostFacts::parse(run::gatherLocalHostFacts()).os);
        // The runner's file on the host is the one that came back.
        QCOMPARE(readFile(runDir + u"/host.txt"_s),
                 readFile(ws.filePath(u"on-the-host/"_s) + spec.id + u"/host.txt"_s));
    }
};

FERRY_TEST_APPLESS_MAIN(TestRemoteHostFacts)
#include "tst_remotehostfacts.moc"
