// RunDirectory::claim, the one way a run takes its folder: paths made absolute, spec.json
// written, and a folder that holds any run marker refused. Every target starts through it; the
// refusal is checked for each marker on each target, so one that drifts to its own, shorter
// list fails here (review 2026-12-01 §4: local checked 3 markers, container 3 others, remote 2,
// embedded 1).
#include "run/rundirectory.h"
#include "support/files.h"
#include "support/testenv.h"
#include "support/testmain.h"
#include "targets/containertarget.h"
#include "targets/localtarget.h"
#include "targets/remoterun.h"
#include "targets/slurmtarget.h"
#include "targets/sshtarget.h"
#include "training/embeddedrun.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace ferry;
using namespace ferry::run;
using namespace ferry::targets;

using ferry::test::readFile;
using ferry::test::writeFile;

namespace {

QStringList entries(const QString &dir)
{
    return QDir(dir).entryList(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot, QDir::Name);
}

QStringList markerNames()
{
    QStringList names;
    for (const QString &file : RunDirectory(u"/nowhere"_s).markerFiles())
        names << QFileInfo(file).fileName();
    return names;
}

} // namespace

class TestRunDirectory : public QObject {
    Q_OBJECT

    QTemporaryDir m_ws;
    QString m_engine; // a "docker" that is never run: the claim comes first
    int m_runs = 0;

    QString ws(const QString &file) const { return m_ws.filePath(file); }

    RunSpec scriptSpec() const
    {
        RunSpec spec;
        spec.id = newRunId(u"train.py"_s);
        spec.script = u"train.py"_s;
        spec.sourceDir = ws(u"src"_s);
        spec.interpreter = u"/usr/bin/python3"_s;
        spec.environmentFile = ws(u"env.yml"_s);
        spec.channels << DataChannel{u"training"_s, ws(u"data"_s)};
        return spec;
    }

    // Starts `spec` on a target of `kind`, the way each one does it.
    Expected<void> startOn(const QString &kind, const QString &runDir, RunSpec spec) const
    {
        if (kind == u"embedded"_s) {
            spec.target.kind = TargetKind::Embedded;
            auto begun = EmbeddedRun::begin(runDir, spec);
            if (!begun)
                return begun.error();
            return {};
        }
        spec.target = *TargetSpec::parse(kind);
        if (kind == u"local"_s)
            return LocalTarget(ferry::test::ferryBinary()).start(runDir, spec);
        if (kind == u"container"_s)
            return ContainerTarget(m_engine).start(runDir, spec);
        if (kind.startsWith(u"ssh:"_s))
            return SshTarget(spec.target.host).start(runDir, spec);
        return SlurmTarget(spec.target.host).start(runDir, spec);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_ws.isValid());
        QVERIFY(QDir().mkpath(ws(u"src"_s)) && QDir().mkpath(ws(u"data"_s)) && QDir().mkpath(ws(u"bin"_s)));
        QVERIFY(writeFile(ws(u"src/train.py"_s), "print('never runs')\n"));
        QVERIFY(writeFile(ws(u"env.yml"_s), "ferry: 1\nname: claim\npython:\n  version: '3.11'\n"));
        m_engine = ws(u"bin/docker"_s);
        QVERIFY(writeFile(m_engine, "#!/bin/sh\nexit 1\n"));
        QVERIFY(QFile::setPermissions(m_engine, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner));
    }

    void claimWritesTheSpecWithAbsolutePaths()
    {
        const QString relativeWs = QDir::current().relativeFilePath(m_ws.path());
        RunSpec spec = scriptSpec();
        spec.sourceDir = relativeWs + u"/src/../src"_s;
        spec.environmentFile = relativeWs + u"/env.yml"_s;
        spec.channels = {DataChannel{u"training"_s, relativeWs + u"/data/"_s}};
        spec.interpreter = relativeWs + u"/bin/docker"_s; // a path: made absolute for a local run
        const RunDirectory dir(ws(u"runs/absolute"_s));
        const auto claimed = dir.claim(spec);
        QVERIFY2(claimed, qPrintable(claimed ? QString() : claimed.error().toString()));
        QCOMPARE(claimed->sourceDir, ws(u"src"_s));
        QCOMPARE(claimed->environmentFile, ws(u"env.yml"_s));
        QCOMPARE(claimed->channels.first().path, ws(u"data"_s));
        QCOMPARE(claimed->interpreter, m_engine);
        QCOMPARE(*dir.readSpec(), *claimed);
        QCOMPARE(entries(dir.path()), QStringList{u"spec.json"_s});

        // Elsewhere the interpreter names a program in the image or on the host: left alone.
        spec.target = *TargetSpec::parse(u"container"_s);
        const auto inContainer = RunDirectory(ws(u"runs/container"_s)).claim(spec);
        QVERIFY(inContainer);
        QCOMPARE(inContainer->interpreter, spec.interpreter);
    }

    void claimingTwiceIsRefused()
    {
        const RunDirectory dir(ws(u"runs/twice"_s));
        QVERIFY(dir.claim(scriptSpec()));
        const QByteArray first = readFile(dir.specFile());
        const auto again = dir.claim(scriptSpec());
        QVERIFY(!again);
        QVERIFY2(again.error().message.contains(u"holds a run already (spec.json)"_s),
                 qPrintable(again.error().toString()));
        QCOMPARE(again.error().hint, u"start each run in a new folder"_s);
        QCOMPARE(readFile(dir.specFile()), first);
    }

    // The targets' own records are markers, by the names their writers use.
    void targetRecordsAreMarkers()
    {
        const QString runDir = ws(u"runs/records"_s);
        const QStringList markers = RunDirectory(runDir).markerFiles();
        QVERIFY(markers.contains(ContainerTarget::recordFile(runDir)));
        QVERIFY(QDir().mkpath(runDir));
        const RemoteRecord record{u"gpu-host"_s, u"/home/me/.ferry/runs/x"_s, {}};
        QVERIFY(record.write(runDir));
        const QStringList written = entries(runDir);
        QCOMPARE(written.size(), 1);
        QVERIFY2(markers.contains(QDir(runDir).filePath(written.first())), qPrintable(written.first()));
    }

    void everyTargetRefusesEveryMarker_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("marker");
        QTest::addColumn<bool>("asLink");
        for (const QString &kind :
             {u"local"_s, u"container"_s, u"ssh:gpu-host"_s, u"slurm:gpu-host"_s, u"embedded"_s}) {
            for (const QString &marker : markerNames()) {
                QTest::addRow("%s %s", qPrintable(kind), qPrintable(marker)) << kind << marker << false;
                // A dangling link counts too: exists() would not see it.
                QTest::addRow("%s %s link", qPrintable(kind), qPrintable(marker)) << kind << marker << true;
            }
        }
    }

    void everyTargetRefusesEveryMarker()
    {
        QFETCH(QString, kind);
        QFETCH(QString, marker);
        QFETCH(bool, asLink);
        const QString runDir = ws(u"runs/used-%1"_s.arg(++m_runs));
        QVERIFY(QDir().mkpath(runDir));
        const QString planted = QDir(runDir).filePath(marker);
        if (asLink)
            QVERIFY(QFile::link(ws(u"nothing-here"_s), planted));
        else
            QVERIFY(writeFile(planted, "from an earlier run\n"));

        const auto started = startOn(kind, runDir, scriptSpec());
        QVERIFY(!started);
        QVERIFY2(started.error().message.contains(u"the folder holds a run already (%1)"_s.arg(marker)),
                 qPrintable(started.error().toString()));
        // Nothing written: the earlier run's folder is as it was.
        QCOMPARE(entries(runDir), QStringList{marker});
        if (!asLink)
            QCOMPARE(readFile(planted), QByteArray("from an earlier run\n"));
    }
};

FERRY_TEST_GUILESS_MAIN(TestRunDirectory)
#include "tst_rundirectory.moc"
