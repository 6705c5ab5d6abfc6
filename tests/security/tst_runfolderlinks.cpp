// H1 (security review 2026-12-01), the run-folder half shared by every target: a run that can
// write its folder plants links where Ferry writes or reads (heartbeat, exit.json's temp name,
// output/failure) and replaces model/ and output/data/ with links to a victim folder. Here the
// real local supervisor runs a script doing that (a container cannot reach these names any
// more: tst_containerescape). Asserted: the victims are unchanged, no victim byte reaches
// exit.json, the log or an archive, the archives hold nothing from outside the run, and the
// run still ends, with a note saying what was not packed.
#include "run/archive.h"
#include "run/rundirectory.h"
#include "support/targets.h"
#include "support/testenv.h"
#include "support/testmain.h"
#include "targets/localtarget.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace ferry::run;
using namespace ferry::targets;
using ferry::test::readFile;
using ferry::test::waitFor;
using ferry::test::writeFile;

namespace {

RunProbe probe(const QString &runDir)
{
    return ferry::test::probeOf(LocalTarget(ferry::test::ferryBinary()), runDir);
}

// What the script does, from its own folders (SM_MODEL_DIR is <run>/model).
constexpr char kLinkAttack[] = R"PY(import glob, os, shutil, sys
victim_file, victim_dir = sys.argv[2], sys.argv[4]
model, output = os.environ['SM_MODEL_DIR'], os.environ['SM_OUTPUT_DIR']
run = os.path.dirname(model)
# Links where Ferry writes and reads: the heartbeat, exit.json and its temp names, the failure.
for name in ['heartbeat', 'exit.json.tmp-%d' % os.getppid(), 'model.tar.gz.tmp-%d' % os.getppid(),
             'output.tar.gz.tmp-%d' % os.getppid()]:
    try:
        os.symlink(victim_file, os.path.join(run, name))
    except OSError as e:
        print('plant', name, e)
os.symlink(victim_file, os.path.join(output, 'failure'))
# The folders Ferry packs: links to the victim folder and to /.
shutil.rmtree(model)
os.symlink(victim_dir, model)
data = os.path.join(output, 'data')
shutil.rmtree(data)
os.symlink('/', data)
print('planted', flush=True)
sys.exit(5)
)PY";

} // namespace

class TestRunFolderLinks : public QObject {
    Q_OBJECT

    QTemporaryDir m_ws;
    QTemporaryDir m_victim;

private Q_SLOTS:
    void plantedLinksAreNeverFollowed()
    {
        QVERIFY(m_ws.isValid() && m_victim.isValid());
        const QString victimFile = m_victim.filePath(u"credentials"_s);
        const QByteArray secret = "aws_secret_access_key = VICTIM-BYTES-1234\n";
        QVERIFY(writeFile(victimFile, secret));
        const QString victimDir = m_victim.filePath(u"home"_s);
        QVERIFY(QDir().mkpath(victimDir));
        QVERIFY(writeFile(victimDir + u"/id_rsa"_s, "VICTIM-KEY"));

        const QString src = m_ws.filePath(u"src"_s);
        QVERIFY(QDir().mkpath(src));
        QVERIFY(writeFile(src + u"/attack.py"_s, kLinkAttack));
        RunSpec spec;
        spec.id = newRunId(u"attack.py"_s);
        spec.script = u"attack.py"_s;
        spec.sourceDir = src;
        spec.interpreter = u"/usr/bin/python3"_s;
        spec.hyperparameters = {{u"victim-file"_s, victimFile}, {u"victim-dir"_s, victimDir}};
        const QString runDir = RunDirectory::pathFor(m_ws.path(), spec.id);
        const auto started = LocalTarget(ferry::test::ferryBinary()).start(runDir, spec);
        QVERIFY2(started, qPrintable(started ? QString() : started.error().toString()));
        QVERIFY(ferry::test::waitFor(
            [&] {
                const RunProbe s = probe(runDir);
                return s.finished() && s.archived;
            },
            60000));

        const RunDirectory dir(runDir);
        const QByteArray log = readFile(dir.logFile());
        QVERIFY2(log.contains("planted"), log.constData()); // the attack ran
        // The run ended as it did, and says why the failure and the folders were not read.
        const RunProbe status = probe(runDir);
        QCOMPARE(status.state, RunState::Failed);
        QCOMPARE(status.exit->exitCode, 5);
        QVERIFY2(status.exit->error.contains(u"symbolic link"_s), qPrintable(status.exit->error));
        QVERIFY2(log.contains("model is not a folder of the run"), log.constData());
        QVERIFY2(log.contains("output/data is not a folder of the run"), log.constData());
        // Nothing of the victims was read, followed or written.
        QCOMPARE(readFile(victimFile), secret);
        QCOMPARE(readFile(victimDir + u"/id_rsa"_s), QByteArray("VICTIM-KEY"));
        QCOMPARE(QDir(victimDir).entryList(QDir::AllEntries | QDir::NoDotAndDotDot), QStringList{u"id_rsa"_s});
        for (const QString &file : {dir.exitFile(), dir.logFile()})
            QVERIFY2(!readFile(file).contains("VICTIM"), qPrintable(file));
        QVERIFY(QFileInfo(dir.exitFile()).isFile() && !QFileInfo(dir.exitFile()).isSymLink());
        // The archives exist, empty: nothing from outside the run.
        QCOMPARE(*archiveEntries(dir.modelArchive()), QStringList());
        QCOMPARE(*archiveEntries(dir.outputArchive()), QStringList());
        QVERIFY(!QFileInfo(dir.modelArchive()).isSymLink());
    }

    // packDirectory itself refuses a folder that is a link, and stores nested links as links.
    void packingKeepsNestedLinksAsLinks()
    {
        const QString folder = m_ws.filePath(u"pack"_s);
        QVERIFY(QDir().mkpath(folder));
        QVERIFY(writeFile(folder + u"/model.pth"_s, "weights"));
        QVERIFY(QFile::link(u"/"_s, folder + u"/root"_s));
        QVERIFY(QFile::link(m_victim.path(), folder + u"/victim"_s));
        const QString archive = m_ws.filePath(u"pack.tar.gz"_s);
        QVERIFY(packDirectory(folder, archive));
        QCOMPARE(*archiveEntries(archive), (QStringList{u"model.pth"_s, u"root"_s, u"victim"_s}));
        QVERIFY(!readArchiveFile(archive, u"victim/credentials"_s));

        const QString linked = m_ws.filePath(u"linked"_s);
        QVERIFY(QFile::link(m_victim.path(), linked));
        const auto refused = packDirectory(linked, m_ws.filePath(u"linked.tar.gz"_s));
        QVERIFY(!refused);
        QVERIFY2(refused.error().message.contains(u"symbolic link"_s), qPrintable(refused.error().toString()));
        QVERIFY(!QFileInfo::exists(m_ws.filePath(u"linked.tar.gz"_s)));
    }
};

FERRY_TEST_GUILESS_MAIN(TestRunFolderLinks)
#include "tst_runfolderlinks.moc"
