// L5 (issue 14, item 10): artifacts are listed even when packing finishes after the exit record.
// The supervisor writes exit.json, then packs model/ and output/. A run whose model is a few
// hundred MB of incompressible bytes takes seconds to pack; `ferry runs list` (whose refresh
// follows every unfinished run once) is called again and again meanwhile. Before the fix the
// first refresh after exit.json recorded the run as ended with the artifacts that existed then
// (none), and later calls never looked again: model.tar.gz was never listed. Now the run is over
// for Ferry once its archives are there, and `ferry runs show` lists model.tar.gz with its size.
#include "support/process.h"
#include "support/testenv.h"
#include "support/testmain.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;

namespace {

const QByteArray kBigModelScript = "import os\n"
                                   "model = os.environ['SM_MODEL_DIR']\n"
                                   "with open(os.path.join(model, 'weights.bin'), 'wb') as f:\n"
                                   "    for _ in range(300):\n"
                                   "        f.write(os.urandom(1 << 20))\n"
                                   "print('written', flush=True)\n";

using ferry::test::ProgramOutput;

} // namespace

class TestArtifactRace : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_ws;

    ProgramOutput ferry(const QStringList &arguments) const
    {
        QProcess p;
        p.setWorkingDirectory(m_ws);
        p.start(ferry::test::ferryBinary(), arguments);
        p.waitForFinished(300000);
        return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(),
                p.readAllStandardError()};
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_ws = m_dir.filePath(u"ws"_s);
        QVERIFY(QDir().mkpath(m_ws + u"/environments"_s));
        QFile script(m_ws + u"/big.py"_s);
        QVERIFY(script.open(QIODevice::WriteOnly));
        script.write(kBigModelScript);
        script.close();
        QFile env(m_ws + u"/environments/local.yml"_s);
        QVERIFY(env.open(QIODevice::WriteOnly));
        env.write("ferry: 1\nname: l5-local\npython:\n  interpreter: /usr/bin/python3\n  user_managed: true\n");
    }

    void bigModelIsListed()
    {
        const ProgramOutput started = ferry({u"run"_s, u"big.py"_s, u"--env"_s, u"environments/local.yml"_s});
        QVERIFY2(started.code == 0, started.err.constData());
        const QString id = QString::fromUtf8(started.out).trimmed();
        const QString runDir = m_ws + u"/.ferry/runs/"_s + id;
        // Refreshes while the run ends, until its archive is in place (a hang guard only).
        bool sawPacking = false;
        int refreshesWhilePacking = 0;
        for (int i = 0; i < 3000 && !QFileInfo::exists(runDir + u"/model.tar.gz"_s); ++i) {
            const bool packing = QFileInfo::exists(runDir + u"/exit.json"_s);
            QCOMPARE(ferry({u"runs"_s, u"list"_s}).code, 0);
            if (packing && !QFileInfo::exists(runDir + u"/model.tar.gz"_s)) {
                sawPacking = true;
                ++refreshesWhilePacking;
            }
        }
        QVERIFY2(sawPacking, "the model was packed before any refresh saw the exit record: make it bigger");
        QVERIFY(refreshesWhilePacking > 0);
        QVERIFY(QFileInfo::exists(runDir + u"/model.tar.gz"_s));

        QJsonObject shown;
        for (int i = 0; i < 600; ++i) { // the supervisor may still be packing output/
            shown = QJsonDocument::fromJson(ferry({u"runs"_s, u"show"_s, id, u"--json"_s}).out).object();
            if (shown[u"status"_s].toString() != u"running"_s)
                break;
            QTest::qWait(100);
        }
        QCOMPARE(shown[u"status"_s].toString(), u"succeeded"_s);
        QJsonObject model;
        for (const QJsonValue &a : shown[u"artifacts"_s].toArray()) {
            if (a[u"path"_s].toString() == u"model.tar.gz"_s)
                model = a.toObject();
        }
        QVERIFY2(!model.isEmpty(), QJsonDocument(shown).toJson().constData());
        QCOMPARE(model[u"kind"_s].toString(), u"model"_s);
        QCOMPARE(model[u"size"_s].toInteger(), QFileInfo(runDir + u"/model.tar.gz"_s).size());
        QVERIFY(model[u"size"_s].toInteger() > 300 << 20); // incompressible: all of it
        QFile::remove(runDir + u"/model.tar.gz"_s);
        QDir(runDir + u"/model"_s).removeRecursively();
    }
};

FERRY_TEST_GUILESS_MAIN(TestArtifactRace)
#include "tst_artifactrace.moc"
