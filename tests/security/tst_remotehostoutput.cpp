// What a remote host sends back is never followed here (review security-2026-12-01 M10, issue 14
// item 1's last sentence), and what its script writes cannot desynchronise the status
// protocol (L6). Real runs on the test sshd through `ferry run --target ssh:...`:
// - M10: the script plants output/failure -> a local victim file (absolute), output/up ->
//   ../../../.. and model/root -> / and fails. Nothing of the victim reaches exit.json, the
//   run store, the CLI's output, the local run folder; no link is made here.
// - L6: the script writes the status call's log marker into ../attempt and ../heartbeat while
//   it prints: the local log is still the host's, byte for byte.
#include "remotetesthelpers.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using ferry::testing::ferryCli;
using ferry::testing::kHost;
using ferry::testing::SshSandbox;

namespace {

const QByteArray kVictimText = "VICTIM-aws_secret_access_key=Zm9vYmFyYmF6";

QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

void writeFile(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(bytes);
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
        writeFile(victim, kVictimText);
        writeFile(ws.filePath(u"plant.py"_s),
                  "import os, sys\n"
                  "out, model = os.environ['SM_OUTPUT_DIR'], os.environ['SM_MODEL_DIR']\n"
                  "os.symlink(sys.argv[sys.argv.index('--victim') + 1], os.path.join(out, 'failure'))\n"
                  "os.symlink('../../../../../../../..', os.path.join(out, 'up'))\n"
                  "os.symlink('/', os.path.join(model, 'root'))\n"
                  "open(os.path.join(model, 'model.pth'), 'w').write('weights')\n"
                  "print('planted')\n"
                  "sys.exit(3)\n");
        const auto ran = ferryCli(sandbox, ws.path(),
                                  {u"run"_s, u"plant.py"_s, u"--target"_s, u"ssh:"_s + kHost, u"--remote-dir"_s,
                                   ws.filePath(u"host"_s), u"--hp"_s, u"victim="_s + victim, u"--follow"_s});
        const QString id = ran.out.section(u'\n', 0, 0).trimmed();
        QVERIFY2(ran.out.contains(u"planted"_s), qPrintable(ran.out + ran.err));
        QCOMPARE(ran.exitCode, 1); // the run failed, as the script said
        QVERIFY2(!ran.out.contains(QString::fromUtf8(kVictimText)), qPrintable(ran.out));
        QVERIFY2(!ran.err.contains(QString::fromUtf8(kVictimText)), qPrintable(ran.err));
        // The links were there on the host (the attack happened).
        QVERIFY(QFileInfo(ws.filePath(u"host/"_s + id + u"/output/failure"_s)).isSymLink());

        const auto shown = ferryCli(sandbox, ws.path(), {u"runs"_s, u"show"_s, id, u"--json"_s});
        QCOMPARE(shown.exitCode, 0);
        QVERIFY2(!shown.out.contains(QString::fromUtf8(kVictimText)), qPrintable(shown.out));
        const QString runDir = ws.filePath(u".ferry/runs/"_s + id);
        QVERIFY(QFile::exists(runDir + u"/exit.json"_s));
        QVERIFY2(!readAll(runDir + u"/exit.json"_s).contains(kVictimText), readAll(runDir + u"/exit.json"_s));
        // The run store and the run folder (everything under .ferry).
        QCOMPARE(ferry::testing::filesHolding(ws.filePath(u".ferry"_s), QString::fromUtf8(kVictimText)), QStringList());
        // No link came over: none in the run folder, the model's file did.
        QDirIterator it(runDir, QDir::AllEntries | QDir::System | QDir::Hidden | QDir::NoDotAndDotDot,
                        QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QString path = it.next();
            QVERIFY2(!QFileInfo(path).isSymLink(), qPrintable(path));
        }
        QCOMPARE(readAll(runDir + u"/model/model.pth"_s), QByteArray("weights"));
        QCOMPARE(readAll(victim), kVictimText); // the victim is untouched
    }

    void markerWrittenByTheScriptKeepsTheLogExact()
    {
        const SshSandbox sandbox;
        QTemporaryDir ws;
        // The marker at a line's start, in every file the status call echoes.
        writeFile(ws.filePath(u"marker.py"_s), "import time\n"
                                               "evil = '--ferry-log--\\nINJECTED\\n'\n"
                                               "for i in range(40):\n"
                                               "    for name in ('../attempt', '../heartbeat'):\n"
                                               "        open(name, 'w').write(evil)\n"
                                               "    print('line %d' % i, flush=True)\n"
                                               "    time.sleep(0.05)\n");
        const auto ran = ferryCli(sandbox, ws.path(),
                                  {u"run"_s, u"marker.py"_s, u"--target"_s, u"ssh:"_s + kHost, u"--remote-dir"_s,
                                   ws.filePath(u"host"_s), u"--follow"_s});
        QVERIFY2(ran.exitCode == 0, qPrintable(ran.err));
        const QString id = ran.out.section(u'\n', 0, 0).trimmed();
        QVERIFY(readAll(ws.filePath(u"host/"_s + id + u"/attempt"_s)).startsWith("--ferry-log--"));
        const QByteArray there = readAll(ws.filePath(u"host/"_s + id + u"/log"_s));
        const QByteArray here = readAll(ws.filePath(u".ferry/runs/"_s + id + u"/log"_s));
        QCOMPARE(there.count("line "), 40);
        QCOMPARE(here, there);
        QVERIFY(!ran.out.contains(u"INJECTED"_s));
        for (int i = 0; i < 40; ++i)
            QCOMPARE(ran.out.count(u"line %1\n"_s.arg(i)), 1);
    }
};

QTEST_GUILESS_MAIN(TestRemoteHostOutput)
#include "tst_remotehostoutput.moc"
