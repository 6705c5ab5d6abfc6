// Single instance: a second `ferry PATH...` (the real binary) hands its paths to the running
// one and exits; a socket left by a crashed Ferry is taken over; the window opens handed
// files as drops.
#include "gui/windowharness.h"
#include "support/testenv.h"
#include "support/testmain.h"
#include "ui/data/datasetpanel.h"
#include "ui/problems/problemspanel.h"
#include "ui/window/singleinstance.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QUuid>

using namespace Qt::StringLiterals;
using namespace ferry;

namespace {

QString uniqueName()
{
    return u"ferry-test-"_s + QUuid::createUuid().toString(QUuid::Id128).left(12);
}

// The real `ferry` binary, offscreen, for instance `name`.
void startFerry(QProcess &process, const QString &name, const QStringList &arguments, const QString &dir)
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(u"FERRY_INSTANCE_NAME"_s, name);
    env.insert(u"QT_QPA_PLATFORM"_s, u"offscreen"_s);
    env.insert(u"XDG_CONFIG_HOME"_s, dir + u"/config"_s); // its own settings
    process.setProcessEnvironment(env);
    process.setWorkingDirectory(dir);
    process.start(ferry::test::ferryBinary(), arguments);
}

} // namespace

class TestSingleInstance : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

private Q_SLOTS:
    void initTestCase()
    {
        QFile csv(m_dir.filePath(u"iris.csv"_s));
        QVERIFY(csv.open(QIODevice::WriteOnly));
        csv.write("a,b,label\n1,2,x\n3,4,y\n");
        QVERIFY(QDir(m_dir.path()).mkpath(u"nb"_s));
        QFile notebook(m_dir.filePath(u"nb/analysis.ipynb"_s));
        QVERIFY(notebook.open(QIODevice::WriteOnly));
        notebook.write(R"({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": []})");
    }

    void secondFerryHandsItsPathsOver()
    {
        const QString name = uniqueName();
        ui::SingleInstance running(name);
        QVERIFY2(running.listen(), qPrintable(running.errorString()));
        QSignalSpy received(&running, &ui::SingleInstance::pathsReceived);

        QProcess second;
        startFerry(second, name, {u"iris.csv"_s, u"nb/analysis.ipynb"_s}, m_dir.path());
        QVERIFY(received.wait(30000));
        QCOMPARE(received.front().front().toStringList(),
                 (QStringList{m_dir.filePath(u"iris.csv"_s), m_dir.filePath(u"nb/analysis.ipynb"_s)}));
        QVERIFY(second.waitForFinished(30000));
        QCOMPARE(second.exitStatus(), QProcess::NormalExit);
        QCOMPARE(second.exitCode(), 0); // it handed over and opened no window of its own

        // Without paths it asks the running one to show itself.
        QProcess third;
        startFerry(third, name, {}, m_dir.path());
        QVERIFY(received.wait(30000));
        QCOMPARE(received.back().front().toStringList(), QStringList());
        QVERIFY(third.waitForFinished(30000));
        QCOMPARE(third.exitCode(), 0);
    }

    // A Ferry killed with -9 leaves its socket file: the next one finds nobody there and
    // takes the name over.
    void aCrashedInstancesSocketIsTakenOver()
    {
        const QString name = uniqueName();
        QProcess first;
        startFerry(first, name, {}, m_dir.path());
        ui::SingleInstance probe(name);
        bool listening = false;
        for (int i = 0; i < 300 && !listening; ++i) {
            listening = probe.handToRunning({}, 200);
            if (!listening)
                QTest::qWait(100);
        }
        QVERIFY2(listening, first.readAllStandardError().constData());
        first.kill(); // SIGKILL: no clean-up
        QVERIFY(first.waitForFinished(10000));

        ui::SingleInstance next(name);
        QVERIFY(!next.handToRunning({u"x"_s}, 2000));
        QVERIFY2(next.listen(), qPrintable(next.errorString()));
        QSignalSpy received(&next, &ui::SingleInstance::pathsReceived);
        QProcess other;
        startFerry(other, name, {u"iris.csv"_s}, m_dir.path());
        QVERIFY(received.wait(30000));
        QVERIFY(other.waitForFinished(30000));
        QCOMPARE(other.exitCode(), 0);
    }

    // What the window does with handed paths: what a drop of them does.
    void windowOpensHandedFilesAsDrops()
    {
        test::WindowHarness harness;
        QVERIFY(QDir().mkpath(m_dir.filePath(u"ws"_s)));
        QVERIFY(harness.window.openWorkspaceAt(m_dir.filePath(u"ws"_s)));
        harness.window.openPaths({m_dir.filePath(u"iris.csv"_s), u"https://example.com/data.csv"_s});
        const ui::DatasetPanel *datasets = harness.window.datasetPanel();
        QTRY_COMPARE(datasets->channels().size(), 1); // detected off the GUI thread
        QCOMPARE(datasets->channels().front().path, m_dir.filePath(u"iris.csv"_s));
        QVERIFY(harness.window.problems()->count() >= 1); // the https URL, refused with a reason
    }
};

FERRY_TEST_MAIN(TestSingleInstance)
#include "tst_singleinstance.moc"
