// A container run's image as it was, against the real Docker engine of the `docker` fixture:
// the run records its image's id, its resolved packages and the host as the container saw it;
// `ferry runs rerun` of it once the image is gone rebuilds the image from the run's environment,
// says so, and warns that the rebuilt image's packages differ from the first run's list (here
// made to differ by a line written into that list, as a newer release would).
#include "run/hostfacts.h"
#include "support/container.h"
#include "targets/containertarget.h"
#include "targets/imagerecord.h"

#include <QJsonArray>
#include <QJsonDocument>
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
};

QTEST_APPLESS_MAIN(TestContainerRerun)
#include "tst_containerrerun.moc"
