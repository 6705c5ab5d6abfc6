// What a remote host sends back is never followed here (review security-2026-12-01 M10, issue 14
// item 1's last sentence), and what its script writes cannot desynchronise the status
// protocol (L6). Real runs on the test sshd, started and followed as `ferry run --target ssh:...
// --follow` does (run::launchRun, a run store, run::RunFollower until the end):
// - M10: the script plants output/failure -> a local victim file (absolute), output/up ->
//   ../../../.. and model/root -> / and fails. Nothing of the victim reaches exit.json, the
//   run store (its error is what the CLI prints at the end), the log lines, the local run
//   folder; no link is made here.
// - L6: the script writes the status call's log marker into ../attempt and ../heartbeat while
//   it prints: the local log is still the host's, byte for byte.
#include "store/runstore.h"
#include "targets/sshtarget.h"
#include "tracking/runfollower.h"
#include "tracking/runlauncher.h"

#include "support/files.h"
#include "support/keyring.h"
#include "support/remote.h"
#include "support/targets.h"
#include "support/testmain.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace ferry;
using ferry::test::kHost;
using ferry::test::readFile;
using ferry::test::SshSandbox;
using ferry::test::writeFile;

namespace {

const QByteArray kVictimText = "VICTIM-aws_secret_access_key=Zm9vYmFyYmF6";

struct Followed {
    run::RunRecord record;
    QByteArray lines; // what --follow prints, one line each
    QString runDir;
};

// `script` (in ws/src) run on the test sshd and followed to its end, its folder there in ws/host.
Followed runAndFollow(const SshSandbox &sandbox, const QTemporaryDir &ws, const QString &script,
                      const QList<run::Hyperparameter> &hps = {})
{
    Followed f;
    auto store = run::RunStore::open(ws.filePath(u"runs.sqlite"_s));
    if (!store)
        return f;
    run::RunSpec spec =
        ferry::test::remoteSpec(u"ssh:"_s + kHost, ws.filePath(u"src"_s), script, ws.filePath(u"host"_s));
    spec.hyperparameters = hps;
    targets::SshTarget target(kHost, sandbox.options());
    const auto launched = run::launchRun(**store, target, ws.filePath(u"runs"_s), spec);
    if (!launched) {
        qWarning("launch: %s", qPrintable(launched.error().toString()));
        return f;
    }
    f.runDir = ws.filePath(u"runs/"_s + spec.id);
    run::RunFollower follower(**store, target, f.runDir, *launched);
    const bool ended = ferry::test::waitFor(
        [&] {
            const auto step = follower.poll();
            if (!step)
                return true;
            for (const QByteArray &line : step->lines)
                f.lines += line + '\n';
            return step->finished;
        },
        120000, 100);
    (*store)->flush();
    if (ended)
        f.record = follower.record();
    return f;
}

} // namespace

class TestRemoteHostOutput : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void plantedLinksAreNotFollowed()
    {
        const SshSandbox sandbox;
        QTemporaryDir ws;
        const QString victim = ws.filePath(u"victim/credentials"_s);
        QVERIFY(QDir().mkpath(ws.filePath(u"victim"_s)));
        QVERIFY(writeFile(victim, kVictimText));
        QVERIFY(QDir().mkpath(ws.filePath(u"src"_s)));
        QVERIFY(writeFile(ws.filePath(u"src/plant.py"_s),
                          "import os, sys\n"
                          "out, model = os.environ['SM_OUTPUT_DIR'], os.environ['SM_MODEL_DIR']\n"
                          "os.symlink(sys.argv[sys.argv.index('--victim') + 1], os.path.join(out, 'failure'))\n"
                          "os.symlink('../../../../../../../..', os.path.join(out, 'up'))\n"
                          "os.symlink('/', os.path.join(model, 'root'))\n"
                          "open(os.path.join(model, 'model.pth'), 'w').write('weights')\n"
                          "print('planted')\n"
                          "sys.exit(3)\n"));
        const Followed ran = runAndFollow(sandbox, ws, u"plant.py"_s, {{u"victim"_s, victim}});
        QVERIFY2(ran.lines.contains("planted"), ran.lines);
        QCOMPARE(ran.record.status, run::RunStatus::Failed); // as the script said
        QCOMPARE(ran.record.exitCode, std::optional<int>(3));
        QVERIFY2(!ran.record.error.contains(QString::fromUtf8(kVictimText)), qPrintable(ran.record.error));
        QVERIFY(!ran.lines.contains(kVictimText));
        const QString id = QFileInfo(ran.runDir).fileName();
        // The links were there on the host (the attack happened).
        QVERIFY(QFileInfo(ws.filePath(u"host/"_s + id + u"/output/failure"_s)).isSymLink());
        const QString runDir = ran.runDir;
        QVERIFY(QFile::exists(runDir + u"/exit.json"_s));
        QVERIFY2(!readFile(runDir + u"/exit.json"_s).contains(kVictimText), readFile(runDir + u"/exit.json"_s));
        // The run store (its files) and the run folder.
        QVERIFY(QFile::exists(ws.filePath(u"runs.sqlite"_s)));
        for (const QString &store : {u"runs.sqlite"_s, u"runs.sqlite-wal"_s})
            QVERIFY2(!readFile(ws.filePath(store)).contains(kVictimText), qPrintable(store));
        QCOMPARE(ferry::test::filesHolding(runDir, QString::fromUtf8(kVictimText)), QStringList());
        // No link came over: none in the run folder; the model's file did.
        QDirIterator it(runDir, QDir::AllEntries | QDir::System | QDir::Hidden | QDir::NoDotAndDotDot,
                        QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QString path = it.next();
            QVERIFY2(!QFileInfo(path).isSymLink(), qPrintable(path));
        }
        QCOMPARE(readFile(runDir + u"/model/model.pth"_s), QByteArray("weights"));
        QCOMPARE(readFile(victim), kVictimText); // the victim is untouched
    }

    void markerWrittenByTheScriptKeepsTheLogExact()
    {
        const SshSandbox sandbox;
        QTemporaryDir ws;
        // The marker at a line's start, in every file the status call echoes.
        QVERIFY(QDir().mkpath(ws.filePath(u"src"_s)));
        QVERIFY(writeFile(ws.filePath(u"src/marker.py"_s), "import time\n"
                                                           "evil = '--ferry-log--\\nINJECTED\\n'\n"
                                                           "for i in range(40):\n"
                                                           "    for name in ('../attempt', '../heartbeat'):\n"
                                                           "        open(name, 'w').write(evil)\n"
                                                           "    print('line %d' % i, flush=True)\n"
                                                           "    time.sleep(0.05)\n"));
        const Followed ran = runAndFollow(sandbox, ws, u"marker.py"_s);
        QCOMPARE(ran.record.status, run::RunStatus::Succeeded);
        const QString id = QFileInfo(ran.runDir).fileName();
        QVERIFY(readFile(ws.filePath(u"host/"_s + id + u"/attempt"_s)).startsWith("--ferry-log--"));
        const QByteArray there = readFile(ws.filePath(u"host/"_s + id + u"/log"_s));
        const QByteArray here = readFile(ran.runDir + u"/log"_s);
        QCOMPARE(there.count("line "), 40);
        QCOMPARE(here, there);
        QVERIFY(!ran.lines.contains("INJECTED"));
        for (int i = 0; i < 40; ++i)
            QCOMPARE(ran.lines.count(QByteArray("line " + QByteArray::number(i) + '\n')), 1);
    }
};

FERRY_TEST_GUILESS_MAIN(TestRemoteHostOutput)
#include "tst_remotehostoutput.moc"
