// What `ferry PATH` (and a double-click through the desktop file) takes a path for, and the
// workspace it opens in.
#include "support/testmain.h"
#include "workspace/filekind.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using ferry::workspace::FileKind;

class TestFileKind : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

    QString write(const QString &relative, const QByteArray &content)
    {
        const QString path = m_dir.filePath(relative);
        QDir().mkpath(QFileInfo(path).absolutePath());
        QFile file(path);
        if (!file.open(QIODevice::WriteOnly))
            return {};
        file.write(content);
        return path;
    }

private Q_SLOTS:
    void kinds_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<int>("kind");
        const auto env = int(FileKind::Environment);
        QTest::newRow("ferry environment in environments/")
            << u"ws/environments/x.yml"_s << QByteArray("ferry: 1\nname: x\n") << env;
        QTest::newRow("ferry environment anywhere, by its first line")
            << u"loose/setup.yml"_s << QByteArray("# mine\nferry: 1\nname: x\n") << env;
        QTest::newRow("no suffix, Ferry's magic") << u"loose/environment"_s << QByteArray("ferry: 1\nname: x\n") << env;
        QTest::newRow("NAME.ferry.yml") << u"loose/mnist.ferry.yml"_s << QByteArray("name: mnist\n") << env;
        QTest::newRow("conda file by its keys")
            << u"loose/deps.yml"_s << QByteArray("channels: [conda-forge]\ndependencies: [numpy]\n") << env;
        QTest::newRow("requirements.txt") << u"loose/requirements.txt"_s << QByteArray("torch\n") << env;
        QTest::newRow("notebook") << u"loose/analysis.ipynb"_s << QByteArray("{}") << int(FileKind::Notebook);
        QTest::newRow("csv") << u"loose/iris.csv"_s << QByteArray("a,b\n1,2\n") << int(FileKind::Dataset);
        QTest::newRow("sweep by its first line")
            << u"ws/sweeps/grid.yml"_s << QByteArray("ferry-sweep: 1\nscript: train.py\n") << int(FileKind::Sweep);
        QTest::newRow("sweep by name") << u"loose/grid.ferry-sweep.yml"_s << QByteArray("script: train.py\n")
                                       << int(FileKind::Sweep);
    }
    void kinds()
    {
        QFETCH(QString, name);
        QFETCH(QByteArray, content);
        QFETCH(int, kind);
        const auto found = ferry::workspace::fileKindOf(write(name, content));
        QVERIFY2(found, qPrintable(found ? QString() : found.error().toString()));
        QCOMPARE(int(*found), kind);
    }

    void foldersAreFolders() { QCOMPARE(*ferry::workspace::fileKindOf(m_dir.path()), FileKind::Folder); }

    // Anything else is refused with what Ferry opens, never taken for a dataset or an environment.
    void otherFilesAreRefused_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QByteArray>("content");
        QTest::newRow("compose.yml") << u"other/compose.yml"_s << QByteArray("services: {}\n");
        QTest::newRow("markdown") << u"other/README.md"_s << QByteArray("# hi\n");
        QTest::newRow("a picture") << u"other/cat.png"_s << QByteArray("\x89PNG");
    }
    void otherFilesAreRefused()
    {
        QFETCH(QString, name);
        QFETCH(QByteArray, content);
        const QString path = write(name, content);
        const auto found = ferry::workspace::fileKindOf(path);
        QVERIFY(!found);
        QCOMPARE(found.error().path, path);
        QVERIFY2(found.error().hint.contains(u"notebooks (.ipynb)"_s), qPrintable(found.error().hint));
    }

    void missingPathIsAnError()
    {
        const auto found = ferry::workspace::fileKindOf(m_dir.filePath(u"nothing.yml"_s));
        QVERIFY(!found);
        QCOMPARE(found.error().message, u"no such file or folder"_s);
    }

    void environmentWorkspace()
    {
        const QString inEnvironments = write(u"proj/environments/demo.yml"_s, "ferry: 1\nname: demo\n");
        QCOMPARE(ferry::workspace::environmentWorkspaceRoot(inEnvironments), m_dir.filePath(u"proj"_s));
        const QString loose = write(u"elsewhere/conda/environment.yml"_s, "dependencies: [numpy]\n");
        QCOMPARE(ferry::workspace::environmentWorkspaceRoot(loose), m_dir.filePath(u"elsewhere/conda"_s));
        // Inside a workspace (it has .ferry/): that workspace, however deep the file is.
        QVERIFY(QDir(m_dir.path()).mkpath(u"elsewhere/.ferry"_s));
        QCOMPARE(ferry::workspace::environmentWorkspaceRoot(loose), m_dir.filePath(u"elsewhere"_s));
    }

    void enclosingWorkspace()
    {
        QVERIFY(QDir(m_dir.path()).mkpath(u"deep/ws/.ferry"_s));
        const QString data = write(u"deep/ws/data/x/points.csv"_s, "a,b\n");
        QCOMPARE(ferry::workspace::enclosingWorkspaceRoot(data), m_dir.filePath(u"deep/ws"_s));
        QCOMPARE(ferry::workspace::enclosingWorkspaceRoot(m_dir.filePath(u"deep/ws"_s)), m_dir.filePath(u"deep/ws"_s));
        QVERIFY(ferry::workspace::enclosingWorkspaceRoot(write(u"deep/other.csv"_s, "a\n")).isEmpty());
    }
};

FERRY_TEST_APPLESS_MAIN(TestFileKind)
#include "tst_filekind.moc"
