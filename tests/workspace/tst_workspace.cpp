#include "common/error.h"
#include "support/testmain.h"
#include "workspace/workspace.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using ferry::workspace::Workspace;

class TestWorkspace : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void openCreatesStateFolder()
    {
        QTemporaryDir dir;
        const auto ws = Workspace::open(dir.path());
        QVERIFY2(ws, qPrintable(ws ? QString() : ws.error().toString()));
        QCOMPARE(ws->root(), QDir::cleanPath(dir.path()));
        QCOMPARE(ws->name(), QFileInfo(dir.path()).fileName());
        QVERIFY(QFileInfo(dir.filePath(u".ferry"_s)).isDir());
        QVERIFY(QFileInfo(dir.filePath(u".ferry/runs"_s)).isDir());
        QCOMPARE(ws->runsDir(), dir.filePath(u".ferry/runs"_s));
        QFile ignore(dir.filePath(u".ferry/.gitignore"_s));
        QVERIFY(ignore.open(QIODevice::ReadOnly));
        QVERIFY(ignore.readAll().contains("\n*\n"));
    }

    void reopenKeepsWhatIsThere()
    {
        QTemporaryDir dir;
        QVERIFY(Workspace::open(dir.path()));
        QFile ignore(dir.filePath(u".ferry/.gitignore"_s));
        QVERIFY(ignore.open(QIODevice::WriteOnly));
        ignore.write("# edited by the user\n");
        ignore.close();
        QFile marker(dir.filePath(u".ferry/runs/keep"_s));
        QVERIFY(marker.open(QIODevice::WriteOnly));
        marker.close();

        QVERIFY(Workspace::open(dir.path()));
        QVERIFY(ignore.open(QIODevice::ReadOnly));
        QCOMPARE(ignore.readAll(), QByteArray("# edited by the user\n"));
        QVERIFY(marker.exists());
    }

    void relativeAndUncleanPathsAreNormalised()
    {
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkdir(u"sub"_s));
        const auto ws = Workspace::open(dir.path() + u"/sub/../sub/"_s);
        QVERIFY(ws);
        QCOMPARE(ws->root(), QDir::cleanPath(dir.filePath(u"sub"_s)));
    }

    void openRefusesBadPaths_data()
    {
        QTest::addColumn<QString>("relative");
        QTest::addColumn<QString>("message");
        QTest::newRow("missing") << u"missing"_s << u"no such folder"_s;
        QTest::newRow("file") << u"file.txt"_s << u"not a folder; a workspace is a folder"_s;
        QTest::newRow("empty") << QString() << u"no workspace folder given"_s;
    }
    void openRefusesBadPaths()
    {
        QFETCH(QString, relative);
        QFETCH(QString, message);
        QTemporaryDir dir;
        QFile file(dir.filePath(u"file.txt"_s));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.close();

        const QString path = relative.isEmpty() ? QString() : dir.filePath(relative);
        const auto ws = Workspace::open(path);
        QVERIFY(!ws);
        QCOMPARE(ws.error().message, message);
        QCOMPARE(ws.error().path, path);
        QVERIFY(!ws.error().hint.isEmpty());
        QVERIFY(!QFileInfo::exists(dir.filePath(u"missing"_s))); // never created by open()
    }

    void createMakesFolderAndLayout()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(u"new/project"_s);
        const auto ws = Workspace::create(path);
        QVERIFY(ws);
        QVERIFY(QFileInfo(path + u"/environments"_s).isDir());
        QVERIFY(QFileInfo(path + u"/.ferry/runs"_s).isDir());
        QCOMPARE(ws->environmentsDir(), path + u"/environments"_s);
    }

    void createRefusesAFile()
    {
        QTemporaryDir dir;
        QFile file(dir.filePath(u"taken"_s));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.close();
        const auto ws = Workspace::create(file.fileName());
        QVERIFY(!ws);
        QCOMPARE(ws.error().message, u"a file of that name exists"_s);
    }

    void errorText_data()
    {
        QTest::addColumn<int>("line");
        QTest::addColumn<int>("column");
        QTest::addColumn<QString>("expected");
        QTest::newRow("path only") << 0 << 0 << u"env.yml: bad\n  hint: fix it"_s;
        QTest::newRow("line") << 3 << 0 << u"env.yml:3: bad\n  hint: fix it"_s;
        QTest::newRow("line and column") << 3 << 7 << u"env.yml:3:7: bad\n  hint: fix it"_s;
    }
    void errorText()
    {
        QFETCH(int, line);
        QFETCH(int, column);
        QFETCH(QString, expected);
        const ferry::Error error{u"bad"_s, u"env.yml"_s, line, column, u"fix it"_s};
        QCOMPARE(error.toString(), expected);
        QCOMPARE((ferry::Error{u"bad"_s, {}, 0, 0, {}}).toString(), u"bad"_s);
    }
};

FERRY_TEST_APPLESS_MAIN(TestWorkspace)
#include "tst_workspace.moc"
