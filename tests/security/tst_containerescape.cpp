// H1 (security review 2026-12-01): a container run must not reach the host. A real container
// run (the `docker` fixture), started as the GUI and `ferry run` start one (launchRun, the run
// store, a keychain secret), runs a script that tries every attack of H1: it writes an
// executable wherever it can and points container.json's engine at it, rewrites
// container.json, spec.json and exit.json wherever it can reach them, reads the host paths of
// its mounts from /proc/self/mountinfo and tries those, plants links at the heartbeat, log,
// exit.json temp, archive temp and output/failure names pointing at a victim file, fills
// model/ with links to / and to a victim folder and tries to replace model/ itself, and tries
// to overwrite the secret entry. Asserted: the planted program never ran (its marker never
// appears), the victims are unchanged, the recorded outcome and engine are the real ones, no
// secret or victim byte reaches exit.json, the log or the store, the archives hold nothing from
// outside the run, and the run ends and is listed as it really ended.
#include "support/container.h"
#include "support/keyring.h"
#include "support/testenv.h"

#include "run/archive.h"
#include "run/rundirectory.h"
#include "secrets/secretstore.h"
#include "store/runstore.h"
#include "targets/containerengine.h"
#include "targets/containertarget.h"
#include "targets/targetfactory.h"
#include "tracking/runfollower.h"
#include "tracking/runlauncher.h"

#include <QCryptographicHash>
#include <QDir>
#include <QDirIterator>
#include <QJsonDocument>
#include <QSettings>
#include <QTemporaryDir>

using namespace Qt::StringLiterals;
using namespace ferry;
using namespace ferry::run;
using namespace ferry::targets;
using ferry::test::readFile;
using ferry::test::writeFile;

namespace {

// Inside the container, as the run's user. argv: --marker M --victim-file F --victim-dir D
// (host paths: a planted program run on the host would write M).
constexpr char kEscapeAttack[] = R"PY(import hashlib, json, os, sys
args = dict(zip(sys.argv[1::2], sys.argv[2::2]))
marker, victim_file, victim_dir = args['--marker'], args['--victim-file'], args['--victim-dir']
print('token-sha256 ' + hashlib.sha256(os.environ.get('ESCAPE_TOKEN', '').encode()).hexdigest(), flush=True)
tried = []
def attempt(what, fn):
    try:
        fn()
        tried.append(what + ': done')
    except OSError as e:
        tried.append('%s: %s' % (what, e.strerror))
# Where the mounts come from on the host.
hosts = set()
for line in open('/proc/self/mountinfo'):
    f = line.split()
    if f[4].startswith('/opt/ml'):
        hosts.add(os.path.dirname(f[3]))
print('mountinfo ' + ' '.join(sorted(hosts)), flush=True)
places = ['/opt/ml/ferry', '/opt/ml', '/opt/ml/model', '/opt/ml/output', '/opt/ml/checkpoints', '/opt/ml/input',
          '/opt/ml/model/..', '/tmp'] + sorted(hosts)
# 1. An executable, and the engine pointed at it (the host path of model/x.sh first).
evil = '#!/bin/sh\necho ran > %s\n' % marker
def plant(path):
    with open(path, 'w') as f:
        f.write(evil)
    os.chmod(path, 0o755)
for p in places:
    attempt('write ' + os.path.join(p, 'x.sh'), lambda p=p: plant(os.path.join(p, 'x.sh')))
engines = [os.path.join(h, 'model', 'x.sh') for h in sorted(hosts)] + ['/opt/ml/model/x.sh']
# 2. The control files, wherever they might be.
forged = {
    'container.json': {'engine': engines[0], 'phase': 'started', 'containerId': 'forged'},
    'spec.json': {'id': 'forged', 'script': 'x.sh', 'sourceDir': '/', 'target': {'kind': 'local'}},
    'exit.json': {'exitCode': 0, 'signal': 0, 'cancelled': False, 'error': 'forged outcome'},
}
def write_json(path, value):
    with open(path, 'w') as f:
        json.dump(value, f)
for p in places:
    for name, value in forged.items():
        attempt('forge ' + os.path.join(p, name), lambda p=p, name=name, value=value: write_json(os.path.join(p, name), value))
# 3. Links at every name Ferry writes or reads, to the victim file.
for p in places:
    for name in ['heartbeat', 'log', 'exit.json.tmp-1', 'model.tar.gz.tmp-1', 'output.tar.gz.tmp-1', 'supervisor.json']:
        attempt('link ' + os.path.join(p, name), lambda p=p, name=name: os.symlink(victim_file, os.path.join(p, name)))
attempt('replace the log', lambda: os.unlink('/opt/ml/ferry/log'))
attempt('overwrite the secret entry', lambda: open('/opt/ml/ferry/secret-entry.py', 'w').write('import os\n'))
attempt('link output/failure', lambda: os.symlink(victim_file, '/opt/ml/output/failure'))
# 4. The model folder: links to / and the victim folder, then the folder itself replaced.
with open('/opt/ml/model/model.pth', 'w') as f:
    f.write('weights')
os.symlink('/', '/opt/ml/model/root')
os.symlink(victim_dir, '/opt/ml/model/victim')
os.makedirs('/opt/ml/output/data', exist_ok=True)
os.symlink(victim_dir, '/opt/ml/output/data/up')
attempt('move model/', lambda: os.rename('/opt/ml/model', '/opt/ml/m2'))
attempt('replace model/', lambda: (os.rmdir('/opt/ml/model'), os.symlink('/', '/opt/ml/model')))
for line in tried:
    print('tried ' + line)
sys.stdout.flush()
sys.exit(7)
)PY";

// Every regular file under `root` (links are not followed: the planted ones point at the victim)
// that holds `bytes`.
QStringList regularFilesHolding(const QString &root, const QByteArray &bytes)
{
    QStringList hits;
    QDirIterator it(root, QDir::Files | QDir::Hidden | QDir::System, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        if (!it.fileInfo().isSymLink() && readFile(path).contains(bytes))
            hits << path;
    }
    return hits;
}

} // namespace

class TestContainerEscape : public QObject {
    Q_OBJECT

    QTemporaryDir m_ws;
    QTemporaryDir m_victim;
    QString m_envFile;
    QString m_image;
    QString m_runId;
    const QString m_secret = u"escape-canary-%1-Zq7"_s.arg(QCoreApplication::applicationPid());

private Q_SLOTS:
    void initTestCase()
    {
        QCoreApplication::setOrganizationName(u"FerryTests"_s);
        QVERIFY(m_ws.isValid() && m_victim.isValid());
        const QString missing = ferry::test::connectToDocker();
        QVERIFY2(missing.isEmpty(), qPrintable(missing));
        m_envFile = m_ws.filePath(u"env.yml"_s);
        m_image =
            ferry::test::writeTestEnvironment(m_envFile, u"tst-escape-%1"_s.arg(QCoreApplication::applicationPid()));
        QVERIFY(!m_image.isEmpty());
        QSettings settings;
        secrets::SecretStore store(settings);
        QVERIFY(store.writeNow(u"ESCAPE_SECRET"_s, m_secret));
    }

    void cleanupTestCase()
    {
        if (!m_runId.isEmpty()) {
            const QStringList left = ferry::test::containersLabelled(m_runId);
            if (!left.isEmpty())
                ferry::test::docker(QStringList{u"rm"_s, u"-f"_s} + left);
        }
        if (!m_image.isEmpty())
            ferry::test::docker({u"rmi"_s, u"-f"_s, m_image});
    }

    void everyAttackFails()
    {
        // The victims: a credentials file and a folder of the user's, outside the run.
        const QString victimFile = m_victim.filePath(u"credentials"_s);
        const QByteArray victimBytes = "aws_secret_access_key = VICTIM-BYTES-5678\n";
        QVERIFY(writeFile(victimFile, victimBytes));
        const QString victimDir = m_victim.filePath(u"home"_s);
        QVERIFY(QDir().mkpath(victimDir));
        QVERIFY(writeFile(victimDir + u"/id_rsa"_s, "VICTIM-KEY"));
        const QString marker = m_victim.filePath(u"planted-program-ran"_s);

        const QString src = m_ws.filePath(u"src"_s);
        QVERIFY(QDir().mkpath(src));
        QVERIFY(writeFile(src + u"/attack.py"_s, kEscapeAttack));
        RunSpec spec;
        spec.script = u"attack.py"_s;
        spec.sourceDir = src;
        spec.environmentFile = m_envFile;
        spec.interpreter = u"python3"_s;
        spec.target.kind = TargetKind::Container;
        spec.hyperparameters = {{u"marker"_s, marker}, {u"victim-file"_s, victimFile}, {u"victim-dir"_s, victimDir}};
        spec.secretVariables = {{u"ESCAPE_TOKEN"_s, u"ESCAPE_SECRET"_s}};

        auto store = RunStore::open(RunStore::pathInWorkspace(m_ws.path()));
        QVERIFY(store);
        const QString runsDir = m_ws.filePath(u".ferry/runs"_s);
        auto starter = makeTarget(spec.target, ferry::test::ferryBinary());
        QVERIFY(starter);
        const auto launched = launchRun(**store, *starter, runsDir, spec);
        QVERIFY2(launched, qPrintable(launched ? QString() : launched.error().toString()));
        m_runId = launched->id;
        const QString runDir = QDir(runsDir).filePath(m_runId);
        const RunDirectory dir(runDir);
        const QByteArray specAtStart = readFile(dir.specFile());

        // Followed as the GUI and `ferry runs` follow it: a target made from the stored spec.
        const auto stored = RunSpec::fromJson((*store)->run(m_runId)->spec);
        QVERIFY(stored);
        const QString engine = *validatedEngineProgram({});
        QCOMPARE(stored->target.options.value(u"engine"_s).toString(), engine);
        auto target = makeTarget(stored->target, ferry::test::ferryBinary());
        RunFollower follower(**store, *target, runDir, *(*store)->run(m_runId));
        QVERIFY(ferry::test::waitFor(
            [&] {
                const auto step = follower.poll();
                return step && step->finished;
            },
            600000, 500));
        (*store)->flush();
        const QByteArray log = readFile(dir.logFile());
        qInfo("the run's log:\n%s", log.constData());

        // The attack ran: it saw its secret, found the host paths, planted the program in model/.
        const QByteArray tokenHash = QCryptographicHash::hash(m_secret.toUtf8(), QCryptographicHash::Sha256).toHex();
        const QByteArray sawToken = "token-sha256 " + tokenHash;
        QVERIFY2(log.contains(sawToken), log.constData());
        QVERIFY2(log.contains("mountinfo /"), log.constData());
        QVERIFY2(log.contains("tried write /opt/ml/model/x.sh: done"), log.constData());
        QVERIFY(QFileInfo(dir.path() + u"/model/x.sh"_s).isExecutable());
        // What it could not do: Ferry's folder, the log and the entry are out of its reach.
        for (const char *refused : {"tried replace the log: done", "tried overwrite the secret entry: done",
                                    "tried move model/: done", "tried replace model/: done"})
            QVERIFY2(!log.contains(refused), refused);

        // Probed and cancelled again by a fresh target, as a later Ferry would: still nothing runs.
        auto later = makeTarget(stored->target, ferry::test::ferryBinary());
        const auto probed = later->probe(runDir);
        QVERIFY2(probed, qPrintable(probed ? QString() : probed.error().toString()));
        const auto cancelled = later->cancel(runDir, 1000);
        QVERIFY2(cancelled, qPrintable(cancelled ? QString() : cancelled.error().toString()));
        QVERIFY2(!QFileInfo::exists(marker), "the planted program ran on the host");

        // The victims are unchanged.
        QCOMPARE(readFile(victimFile), victimBytes);
        QVERIFY(!QFileInfo(victimFile).isSymLink());
        QCOMPARE(QDir(victimDir).entryList(QDir::AllEntries | QDir::NoDotAndDotDot), QStringList{u"id_rsa"_s});
        QCOMPARE(readFile(victimDir + u"/id_rsa"_s), QByteArray("VICTIM-KEY"));

        // The outcome is the real one: exit 7, no forged record, the failure link not read.
        QCOMPARE(readFile(dir.specFile()), specAtStart);
        const auto exit = dir.readExit();
        QVERIFY2(exit && exit->has_value(), "exit.json is missing or was refused");
        QCOMPARE((*exit)->exitCode, 7);
        QVERIFY((*exit)->error != u"forged outcome"_s);
        QVERIFY2((*exit)->error.contains(u"symbolic link"_s), qPrintable((*exit)->error));
        QCOMPARE(ContainerTarget::readRecord(runDir).value(u"engine"_s).toString(), engine);
        const auto record = (*store)->run(m_runId);
        QVERIFY(record);
        QCOMPARE(record->status, RunStatus::Failed);
        QVERIFY(record->exitCode == 7);
        QCOMPARE(RunSpec::fromJson(record->spec)->target.options.value(u"engine"_s).toString(), engine);
        bool listed = false;
        for (const RunRecord &r : (*store)->runs())
            listed = listed || (r.id == m_runId && r.status == RunStatus::Failed);
        QVERIFY(listed);

        // No victim byte and no secret anywhere Ferry wrote or shows.
        for (const QString &text : {record->error, (*exit)->error, QString::fromUtf8(log)}) {
            QVERIFY2(!text.contains(u"VICTIM"_s), qPrintable(text.left(2000)));
            QVERIFY(!text.contains(m_secret));
        }
        QCOMPARE(regularFilesHolding(runDir, m_secret.toUtf8()), QStringList());
        QCOMPARE(regularFilesHolding(runDir, "VICTIM"), QStringList());
        for (const QString &file :
             {dir.exitFile(), dir.heartbeatFile(), dir.specFile(), dir.logFile(), ContainerTarget::recordFile(runDir)})
            QVERIFY2(QFileInfo(file).isFile() && !QFileInfo(file).isSymLink(), qPrintable(file));

        // The archives hold the run's own files, the links as links, nothing from outside.
        const auto model = archiveEntries(dir.modelArchive());
        QVERIFY(model);
        for (const QString &entry : *model)
            QVERIFY2(!entry.contains(u'/'), qPrintable(entry)); // nothing below root/ or victim/
        QVERIFY(model->contains(u"model.pth"_s) && model->contains(u"root"_s) && model->contains(u"victim"_s));
        QVERIFY(!readArchiveFile(dir.modelArchive(), u"victim/id_rsa"_s));
        QCOMPARE(*archiveEntries(dir.outputArchive()), QStringList{u"up"_s});
        QStringList artifacts;
        for (const Artifact &a : (*store)->artifacts(m_runId))
            artifacts << a.path;
        artifacts.sort();
        QCOMPARE(artifacts, (QStringList{u"log"_s, u"model.tar.gz"_s, u"output.tar.gz"_s}));
        QVERIFY(ferry::test::containersLabelled(m_runId).isEmpty());
        (*store)->close();
    }
};

FERRY_KEYRING_TEST_MAIN(TestContainerEscape)
#include "tst_containerescape.moc"
