// M6 (security review; issue 14, item 6), in the window: the workspace overview reads
// environments/*.yml off the GUI thread, when a workspace opens and after every change, and shows
// an alias fan-out's refusal as a problem. The reader is the real one, wrapped to record the
// thread it runs on and held at a gate until the test has seen the list the GUI thread drew
// without it (a parse on the GUI thread would have to pass the gate first: the test would see
// labels, not "reading…").
#include "env/formats.h"
#include "support/testmain.h"
#include "ui/workspace/workspaceoverview.h"

#include <QApplication>
#include <QDir>
#include <QFile>
#include <QMutex>
#include <QSemaphore>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <memory>

using namespace Qt::StringLiterals;
using namespace ferry;

namespace {

// Ten aliases per level over nine levels: about 500 bytes, 10^9 values expanded.
QByteArray bomb()
{
    QByteArray text = "ferry: 1\nname: bomb\nx0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
    for (int level = 1; level < 9; ++level) {
        QByteArrayList items;
        for (int i = 0; i < 10; ++i)
            items << "*a" + QByteArray::number(level - 1);
        text += "x" + QByteArray::number(level) + ": &a" + QByteArray::number(level) + " [" + items.join(",") + "]\n";
    }
    return text;
}

struct ReaderLog {
    QMutex mutex;
    QList<QThread *> threads;
    QSemaphore gate;

    int calls()
    {
        const QMutexLocker lock(&mutex);
        return int(threads.size());
    }
};

} // namespace

class TestYamlBombView : public QObject {
    Q_OBJECT

    QTemporaryDir m_ws;

    bool write(const QString &relative, const QByteArray &text)
    {
        QDir().mkpath(QFileInfo(m_ws.filePath(relative)).absolutePath());
        QFile f(m_ws.filePath(relative));
        return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(text) == text.size();
    }

    static ui::WorkspaceOverview::EnvironmentReader gatedReader(const std::shared_ptr<ReaderLog> &log)
    {
        return [log](const QString &path) {
            {
                const QMutexLocker lock(&log->mutex);
                log->threads << QThread::currentThread();
            }
            log->gate.tryAcquire(1, 30000); // a reader on the GUI thread would stall here, not forever
            return env::readEnvironment(path);
        };
    }

    static QTreeWidgetItem *item(const ui::WorkspaceOverview &overview, const QString &path)
    {
        QTreeWidgetItem *top = overview.topLevelItem(0);
        for (int c = 0; c < top->childCount(); ++c) {
            if (top->child(c)->data(0, Qt::UserRole).toString() == path)
                return top->child(c);
        }
        return nullptr;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(write(u"environments/bomb.yml"_s, bomb()));
        QVERIFY(write(u"environments/demo.yml"_s, "ferry: 1\nname: demo\ndocker: {base_image: 'python:3.11-slim'}\n"));
        QVERIFY(write(u"train.py"_s, "print(1)\n"));
    }

    void readOffTheGuiThreadAndRefused()
    {
        auto log = std::make_shared<ReaderLog>();
        ui::WorkspaceOverview overview;
        overview.setEnvironmentReader(gatedReader(log));
        QSignalSpy read(&overview, &ui::WorkspaceOverview::environmentsRead);
        overview.setRoot(m_ws.path());

        // Listed at once; the labels wait for the reader, which waits at the gate.
        using Kind = ui::WorkspaceOverview::Kind;
        QCOMPARE(overview.entries(Kind::Environment),
                 (QStringList{u"environments/bomb.yml"_s, u"environments/demo.yml"_s}));
        QCOMPARE(overview.entries(Kind::Script), QStringList{u"train.py"_s});
        QVERIFY2(item(overview, u"environments/bomb.yml"_s)->text(0).contains(u"reading"_s),
                 qPrintable(item(overview, u"environments/bomb.yml"_s)->text(0)));
        log->gate.release(2);

        QVERIFY(read.wait(30000));
        QCOMPARE(log->calls(), 2);
        for (QThread *thread : std::as_const(log->threads))
            QVERIFY(thread != QApplication::instance()->thread());
        // The refusal is shown as the file's problem; the other file is read as usual.
        const QTreeWidgetItem *refused = item(overview, u"environments/bomb.yml"_s);
        QVERIFY2(refused->text(0).contains(u"has errors"_s), qPrintable(refused->text(0)));
        QVERIFY2(refused->toolTip(0).contains(u"bomb.yml:7:"_s) &&
                     refused->toolTip(0).contains(u"expands to more than 100000 values"_s),
                 qPrintable(refused->toolTip(0)));
        QVERIFY2(item(overview, u"environments/demo.yml"_s)->text(0).contains(u"demo-1-"_s),
                 qPrintable(item(overview, u"environments/demo.yml"_s)->text(0)));
    }

    // A scan overtaken by a newer one (the folder changed) never labels the list.
    void staleResultsAreDropped()
    {
        auto log = std::make_shared<ReaderLog>();
        ui::WorkspaceOverview overview;
        overview.setEnvironmentReader(gatedReader(log));
        QSignalSpy read(&overview, &ui::WorkspaceOverview::environmentsRead);
        overview.setRoot(m_ws.path()); // scan 1, held at the gate
        QTRY_VERIFY(log->calls() >= 1);
        overview.rescan(); // scan 2
        log->gate.release(4);
        QTRY_COMPARE(log->calls(), 4); // both scans read both files
        QTRY_COMPARE_WITH_TIMEOUT(read.size(), 1, 30000);
        QTest::qWait(500);        // room for the older scan's result to arrive, were it shown
        QCOMPARE(read.size(), 1); // only the latest scan's result was shown
        QVERIFY(item(overview, u"environments/bomb.yml"_s)->text(0).contains(u"has errors"_s));
    }
};

FERRY_TEST_MAIN(TestYamlBombView)
#include "tst_yamlbombview.moc"
