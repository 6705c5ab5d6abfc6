// The window's "Re-run exactly" of a container run (RunActions::rerunExactly), against the real
// Docker engine of the `docker` fixture: the rerun uses the environment the run recorded, not
// the environment file as it has been edited since, says that the image is gone and rebuilds
// it, and runs the code of the snapshot. A run from elsewhere (imported) asks first
// (ForeignRerunDialog): nothing of its bundle's engine, secrets, data or consents is prefilled or
// used; its code runs once the user answers, and nothing runs when the user cancels.
#include "run/runspec.h"
#include "store/runstore.h"
#include "support/bundle.h"
#include "support/container.h"
#include "support/testmain.h"
#include "ui/launch/remotetargetfields.h"
#include "ui/runs/foreignrerundialog.h"
#include "ui/runs/runactions.h"

#include <QApplication>
#include <QComboBox>
#include <QDirIterator>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QSettings>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

using namespace Qt::StringLiterals;
using namespace ferry;
using namespace ferry::test;

class TestRerunActions : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_image, m_edited;

    // A workspace's run store and the window's run actions on it, as the main window wires them.
    struct Wired {
        std::unique_ptr<run::RunStore> store;
        std::unique_ptr<QSettings> settings;
        std::unique_ptr<ui::RunActions> actions;
        QString runsDir;
    };
    Wired wire(const QString &ws, const QString &settingsFile) const
    {
        Wired wired;
        auto opened = run::RunStore::open(run::RunStore::pathInWorkspace(ws));
        if (!opened)
            return wired;
        wired.store = std::move(*opened);
        wired.settings = std::make_unique<QSettings>(m_dir.filePath(settingsFile), QSettings::IniFormat);
        wired.actions = std::make_unique<ui::RunActions>(*wired.settings, ferryBinary(), nullptr);
        wired.runsDir = ws + u"/.ferry/runs"_s;
        wired.actions->setWorkspace(wired.store.get(), ws, wired.runsDir);
        return wired;
    }

private Q_SLOTS:
    void initTestCase()
    {
        const QString missing = connectToDocker();
        QVERIFY2(missing.isEmpty(), qPrintable(missing));
    }

    void cleanupTestCase()
    {
        for (const QString &image : {m_image, m_edited}) {
            if (!image.isEmpty())
                docker({u"rmi"_s, u"-f"_s, image});
        }
        // The snapshot's files are written read-only: writable again, for the temporary folder to go.
        for (QDirIterator it(m_dir.path(), QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot,
                             QDirIterator::Subdirectories);
             it.hasNext();)
            QFile::setPermissions(it.next(), QFile::permissions(it.filePath()) | QFileDevice::WriteOwner);
    }

    void aGoneImageIsRebuiltFromTheRecordedEnvironment()
    {
        const QString ws = m_dir.filePath(u"project"_s); // the snapshot's files go beside it
        QDir().mkpath(ws);
        const QString name = u"tst-gui-rerun-%1"_s.arg(QCoreApplication::applicationPid());
        m_image = writeTestEnvironment(ws + u"/env.yml"_s, name);
        QVERIFY(!m_image.isEmpty());
        QVERIFY(writeFile(ws + u"/hello.py"_s, "print('version 1 in the image')\n"));
        const auto first = runFerry(
            ws, {u"run"_s, u"hello.py"_s, u"--target"_s, u"container"_s, u"--env"_s, u"env.yml"_s, u"--follow"_s});
        QVERIFY2(first.exitCode == 0, qPrintable(first.err + first.out));
        const QString a = QJsonDocument::fromJson(runFerry(ws, {u"runs"_s, u"list"_s, u"--json"_s}).out.toUtf8())
                              .array()
                              .first()[u"id"_s]
                              .toString();
        // Since: the code and the environment file changed, and the run's image is gone.
        QVERIFY(writeFile(ws + u"/hello.py"_s, "print('version 2')\n"));
        m_edited = writeTestEnvironment(ws + u"/env.yml"_s, name + u"-edited"_s);
        QVERIFY(m_edited != m_image);
        QCOMPARE(docker({u"rmi"_s, u"-f"_s, m_image}).exitCode, 0);

        Wired wired = wire(ws, u"settings.ini"_s);
        QVERIFY(wired.store);
        run::RunStore *store = wired.store.get();
        ui::RunActions &actions = *wired.actions;
        const QString &runsDir = wired.runsDir;
        const auto record = store->run(a);
        QVERIFY(record);
        QSignalSpy messages(&actions, &ui::RunActions::message);
        QSignalSpy starting(&actions, &ui::RunActions::starting);
        QSignalSpy problems(&actions, &ui::RunActions::problem);
        actions.rerunExactly(*record);
        QVERIFY(starting.wait(60000));
        QStringList said;
        for (const QList<QVariant> &m : messages)
            said << m.first().toString();
        QVERIFY2(said.contains(u"Image %1 is gone: rebuilding it from the environment of run %2"_s.arg(m_image, a)),
                 qPrintable(said.join(u'\n')));
        const QString b = starting.first().first().toString();
        const QString log = runsDir + u'/' + b + u"/log"_s;
        QVERIFY2(waitFor([&] { return readFile(log).contains("version 1 in the image"); }, 600000),
                 readFile(log).constData());
        actions.finishLaunches();
        for (const QList<QVariant> &p : problems)
            QFAIL(qPrintable(p.first().value<Error>().toString()));
        store->flush();
        const auto rerun = store->run(b);
        QVERIFY(rerun);
        const auto spec = run::RunSpec::fromJson(rerun->spec);
        QVERIFY(spec);
        QCOMPARE(spec->rerunOf, a);
        // The recorded environment, in a hidden file in the snapshot's folder; its image built again.
        QCOMPARE(QFileInfo(spec->environmentFile).fileName(), u".ferry-env-"_s + spec->environmentTag + u".yml"_s);
        QVERIFY2(spec->environmentFile.startsWith(spec->sourceDir + u'/'), qPrintable(spec->environmentFile));
        QCOMPARE(spec->environmentSpec, run::RunSpec::fromJson(record->spec)->environmentSpec);
        QCOMPARE(docker({u"image"_s, u"inspect"_s, m_image}).exitCode, 0);
        QVERIFY(docker({u"image"_s, u"inspect"_s, m_edited}).exitCode != 0); // never the edited file's
    }

    // H1, H3 in the window: the rerun of a run from elsewhere asks, shows what it will run, and
    // takes nothing the bundle granted; a cancelled question starts nothing and leaves no folder.
    void aRunFromElsewhereAsksFirstAndTakesNothingItGranted()
    {
        QVERIFY(!m_image.isEmpty()); // the run of the test before, its image rebuilt
        const QString ws = m_dir.filePath(u"project"_s);
        const QString a = QJsonDocument::fromJson(runFerry(ws, {u"runs"_s, u"list"_s, u"--json"_s}).out.toUtf8())
                              .array()
                              .last()[u"id"_s]
                              .toString();
        const QString bundle = m_dir.filePath(u"a.tar.gz"_s);
        QVERIFY(runFerry(ws, {u"runs"_s, u"export"_s, a, u"--bundle"_s, bundle}).exitCode == 0);
        const QString marker = m_dir.filePath(u"engine-ran"_s);
        QVERIFY(writeFile(m_dir.filePath(u"bin/docker"_s), "#!/bin/sh\ntouch '" + QFile::encodeName(marker) + "'\n"));
        QFile(m_dir.filePath(u"bin/docker"_s)).setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        const auto crafted = withSpec(readTarGz(bundle), [&](QJsonObject &spec, QJsonObject &) {
            QJsonObject target = spec[u"target"_s].toObject();
            target[u"options"_s] =
                QJsonObject{{u"engine"_s, m_dir.filePath(u"bin/docker"_s)}, {u"allowRunArguments"_s, true}};
            spec[u"target"_s] = target;
            spec[u"channels"_s] = QJsonArray{QJsonObject{{u"name"_s, u"training"_s}, {u"path"_s, u"/home"_s}}};
            spec[u"secretVariables"_s] =
                QJsonArray{QJsonObject{{u"name"_s, u"HF_TOKEN"_s}, {u"secret"_s, u"github-token"_s}}};
        });
        QVERIFY(writeTarGz(bundle, crafted));
        const QString other = m_dir.filePath(u"colleague"_s);
        QDir().mkpath(other);
        const auto imported = runFerry(other, {u"runs"_s, u"import"_s, bundle});
        QVERIFY2(imported.exitCode == 0, qPrintable(imported.err));

        Wired wired = wire(other, u"settings-colleague.ini"_s);
        QVERIFY(wired.store);
        run::RunStore *store = wired.store.get();
        ui::RunActions &actions = *wired.actions;
        const QString &runsDir = wired.runsDir;
        const auto record = store->run(a);
        QVERIFY(record);
        QSignalSpy starting(&actions, &ui::RunActions::starting);
        QSignalSpy problems(&actions, &ui::RunActions::problem);
        // The question: answered (or cancelled) as a person would, once it is up.
        QString summary, kept;
        bool hostEmpty = false, answer = false;
        QStringList channelRows;
        QTimer poll;
        connect(&poll, &QTimer::timeout, this, [&] {
            auto *dialog = qobject_cast<ui::ForeignRerunDialog *>(QApplication::activeModalWidget());
            if (!dialog)
                return;
            summary = dialog->summaryView()->toPlainText();
            kept = dialog->findChild<QLabel *>(u"keptAside"_s)->text();
            hostEmpty = dialog->remoteFields()->hostEdit()->text().isEmpty();
            channelRows.clear();
            for (int row = 0; row < dialog->channelTable()->rowCount(); ++row)
                channelRows << dialog->channelTable()->item(row, 0)->text() + u'=' +
                                   dialog->channelTable()->item(row, 1)->text();
            answer ? dialog->accept() : dialog->reject();
        });
        poll.start(50);
        actions.rerunExactly(*record);
        QVERIFY(waitFor([&] { return !summary.isEmpty(); }, 60000));
        QVERIFY(waitFor([&] { return QApplication::activeModalWidget() == nullptr; }, 10000));
        QTest::qWait(200);
        QCOMPARE(starting.size(), 0); // cancelled: nothing started
        QVERIFY(waitFor([&] { return QDir(other + u"/.ferry/reruns"_s).isEmpty(); }, 10000));
        for (const QString &said : {u"target: container"_s, u"keychain secrets: none"_s, u"interpreter: python3"_s})
            QVERIFY2(summary.contains(said), qPrintable(summary));
        QVERIFY2(!summary.contains(u"consent:"_s) && !summary.contains(u"/home"_s), qPrintable(summary));
        QVERIFY2(kept.contains(u"engine"_s) && kept.contains(u"HF_TOKEN=github-token"_s), qPrintable(kept));
        QVERIFY(hostEmpty);
        QCOMPARE(channelRows, QStringList{u"training="_s});

        summary.clear();
        answer = true;
        actions.rerunExactly(*record);
        QVERIFY(starting.wait(60000));
        const QString b = starting.first().first().toString();
        const QString log = runsDir + u'/' + b + u"/log"_s;
        QVERIFY2(waitFor([&] { return readFile(log).contains("version 1 in the image"); }, 600000),
                 readFile(log).constData());
        actions.finishLaunches();
        for (const QList<QVariant> &p : problems)
            QFAIL(qPrintable(p.first().value<Error>().toString()));
        store->flush();
        const auto spec = run::RunSpec::fromJson(store->run(b)->spec);
        QVERIFY(spec);
        QCOMPARE(spec->rerunOf, a);
        QVERIFY(spec->secretVariables.isEmpty() && spec->channels.isEmpty() && !spec->fromElsewhere());
        QVERIFY(!spec->target.options.contains(u"allowRunArguments"_s));
        QVERIFY2(spec->target.options.value(u"engine"_s).toString() != m_dir.filePath(u"bin/docker"_s),
                 qPrintable(spec->target.options.value(u"engine"_s).toString()));
        QVERIFY(!QFileInfo::exists(marker));
    }
};

FERRY_TEST_MAIN(TestRerunActions)
#include "tst_rerunactions.moc"
