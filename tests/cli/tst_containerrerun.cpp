// A container run's image as it was, against the real Docker engine of the `docker` fixture:
// the run records its image's id, its resolved packages and the host as the container saw it;
// `ferry runs rerun` of it once the image is gone rebuilds the image from the run's environment,
// says so, and warns that the rebuilt image's packages differ from the first run's list (here
// made to differ by a line written into that list, as a newer release would). A container run from
// elsewhere (second review H1, H3) never names the engine nor carries the consent its
// environment's isolation-breaking run arguments need.
#include "run/hostfacts.h"
#include "support/bundle.h"
#include "support/container.h"
#include "support/testmain.h"
#include "targets/containertarget.h"
#include "targets/imagerecord.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace ferry;
using namespace ferry::test;

class TestContainerRerun : public QObject {
    Q_OBJECT

    QTemporaryDir m_ws;
    QString m_image;

    QString newestRun() const
    {
        return QJsonDocument::fromJson(runFerry(m_ws.path(), {u"runs"_s, u"list"_s, u"--json"_s}).out.toUtf8())
            .array()
            .first()[u"id"_s]
            .toString();
    }
    QString runDir(const QString &id) const { return m_ws.filePath(u".ferry/runs/"_s + id); }

private Q_SLOTS:
    void initTestCase()
    {
        const QString missing = connectToDocker();
        QVERIFY2(missing.isEmpty(), qPrintable(missing));
        m_image = writeTestEnvironment(m_ws.filePath(u"env.yml"_s),
                                       u"tst-rerun-%1"_s.arg(QCoreApplication::applicationPid()));
        QVERIFY(!m_image.isEmpty());
        QVERIFY(writeFile(m_ws.filePath(u"hello.py"_s), "print('hello from the image')\n"));
    }

    void cleanupTestCase()
    {
        if (!m_image.isEmpty())
            docker({u"rmi"_s, u"-f"_s, m_image});
    }

    void aGoneImageIsRebuiltFromTheRunsEnvironment()
    {
        const auto first = runFerry(m_ws.path(), {u"run"_s, u"hello.py"_s, u"--target"_s, u"container"_s, u"--env"_s,
                                                  u"env.yml"_s, u"--follow"_s});
        QVERIFY2(first.exitCode == 0, qPrintable(first.err + first.out));
        const QString a = newestRun();
        const QString id = targets::ContainerTarget::readRecord(runDir(a)).value(u"imageId"_s).toString();
        QVERIFY2(id.startsWith(u"sha256:"_s), qPrintable(id));
        QCOMPARE(id, docker({u"image"_s, u"inspect"_s, u"--format"_s, u"{{.Id}}"_s, m_image}).out.trimmed());
        QVERIFY(QFile::exists(runDir(a) + u'/' + targets::kPackagesFile));
        // The host as the container saw it: the image's OS, not necessarily this machine's.
        const auto facts = run::readHostFacts(runDir(a));
        QVERIFY2(facts, qPrintable(QString::fromUtf8(logOf(runDir(a)))));
        QVERIFY2(facts->os.contains(u"bookworm"_s), qPrintable(facts->os));
        QVERIFY(facts->cores >= 1);
        const auto show = runFerry(m_ws.path(), {u"runs"_s, u"show"_s, a});
        QVERIFY2(show.out.contains(u"image:     "_s + id), qPrintable(show.out));

        // What the first build resolved, as if a package has had a release since.
        QVERIFY(writeFile(runDir(a) + u'/' + targets::kPackagesFile,
                          readFile(runDir(a) + u'/' + targets::kPackagesFile) + "zz-gone-package==0.1\n"));
        QCOMPARE(docker({u"rmi"_s, u"-f"_s, m_image}).exitCode, 0);
        const auto again = runFerry(m_ws.path(), {u"runs"_s, u"rerun"_s, a, u"--follow"_s});
        QVERIFY2(again.exitCode == 0, qPrintable(again.err + again.out));
        QVERIFY2(again.err.contains(u"image %1 is gone: rebuilding it from the run's environment"_s.arg(m_image)),
                 qPrintable(again.err));
        QVERIFY2(again.err.contains(u"warning: the image resolved other packages than run %1's"_s.arg(a)),
                 qPrintable(again.err));
        QVERIFY2(again.err.contains(u"  -zz-gone-package==0.1\n"_s), qPrintable(again.err));
        QVERIFY2(again.out.contains(u"hello from the image"_s), qPrintable(again.out));
        const QString b = newestRun();
        QVERIFY(b != a);
        QVERIFY(docker({u"image"_s, u"inspect"_s, m_image}).exitCode == 0); // built again
        QVERIFY(!targets::ContainerTarget::readRecord(runDir(b)).value(u"imageId"_s).toString().isEmpty());
    }

    // H1: a bundle of a container run naming the engine (a program of the attacker's, outside or
    // where an earlier Ferry wrote a rerun's code) never runs it: the rerun uses this machine's
    // engine. H3: the bundle's consent to its environment's `-v /:/host --privileged` is never
    // taken: the rerun refuses them until the user allows them.
    void aContainerRunFromElsewhereNamesNoEngineAndNoConsent()
    {
        const QString a = newestRun();
        const QString bundle = m_ws.filePath(u"a.tar.gz"_s);
        QVERIFY(runFerry(m_ws.path(), {u"runs"_s, u"export"_s, a, u"--bundle"_s, bundle}).exitCode == 0);
        const QString marker = m_ws.filePath(u"engine-ran"_s);
        const QString tree = jsonOf(readTarGz(bundle), "spec.json")[u"snapshot"_s][u"tree"_s].toString();
        const QStringList engines{m_ws.filePath(u"attacker/docker"_s),
                                  QDir::tempPath() + u"/..X11-unix-ferry-"_s + tree.left(12) + u"/docker"_s};
        for (const QString &engine : engines) {
            QVERIFY(writeFile(engine, "#!/bin/sh\ntouch '" + QFile::encodeName(marker) + "'\nexit 1\n"));
            QFile(engine).setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        }
        for (const bool breaksIsolation : {true, false}) {
            for (const QString &engine : engines) {
                const auto crafted = withSpec(readTarGz(bundle), [&](QJsonObject &spec, QJsonObject &) {
                    QJsonObject target = spec[u"target"_s].toObject();
                    target[u"options"_s] = QJsonObject{{u"engine"_s, engine}, {u"allowRunArguments"_s, true}};
                    spec[u"target"_s] = target;
                    if (breaksIsolation)
                        spec[u"environmentSpec"_s] = spec[u"environmentSpec"_s].toString().replace(
                            u"docker:\n"_s, u"docker:\n  run_arguments: [\"-v\", \"/:/host\", \"--privileged\"]\n"_s);
                });
                const QString other = m_ws.filePath(u"colleague"_s);
                QDir(other).removeRecursively();
                QDir().mkpath(other);
                QVERIFY(writeTarGz(bundle + u".crafted.tar.gz"_s, crafted));
                const auto imported = runFerry(other, {u"runs"_s, u"import"_s, bundle + u".crafted.tar.gz"_s});
                QVERIFY2(imported.exitCode == 0, qPrintable(imported.err));
                QVERIFY2(imported.err.contains(u"engine"_s), qPrintable(imported.err));
                const auto rerun = runFerry(other, {u"runs"_s, u"rerun"_s, a, u"--accept-foreign"_s, u"--follow"_s});
                const QString said = rerun.err + rerun.out;
                QVERIFY(!QFileInfo::exists(marker));
                if (breaksIsolation) {
                    QVERIFY2(rerun.exitCode != 0, qPrintable(rerun.out));
                    QVERIFY2(said.contains(u"--allow-run-arguments"_s), qPrintable(said));
                    QVERIFY(!said.contains(u"hello from the image"_s));
                } else {
                    QVERIFY2(rerun.exitCode == 0, qPrintable(rerun.err + rerun.out));
                    QVERIFY2(rerun.out.contains(u"hello from the image"_s), qPrintable(rerun.out));
                }
            }
        }
        QDir(QFileInfo(engines.last()).absolutePath()).removeRecursively();
    }
};

FERRY_TEST_APPLESS_MAIN(TestContainerRerun)
#include "tst_containerrerun.moc"
