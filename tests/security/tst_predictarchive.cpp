// H2 (security review; issue 14, item 2): `ferry predict evil.tar.gz` writes nowhere but its
// temporary folder. Each case crafts a real model.tar.gz with libarchive, as an attacker would
// share it, runs the real `ferry predict` on it, and checks the exit code, the message, that the
// victim files are unchanged and that nothing new appeared where the archive aimed.
#include "support/tarball.h"
#include "support/testenv.h"

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

using Entry = ferry::test::TarEntry;
Q_DECLARE_METATYPE(QList<Entry>)

namespace {

using ferry::test::writeTarGz;

// A card `ferry predict` accepts, naming `weights` as the weights file.
QByteArray card(const QString &weights)
{
    return QJsonDocument(QJsonObject{{u"format"_s, 1},
                                     {u"architecture"_s, QJsonObject{}},
                                     {u"input"_s, QJsonObject{{u"kind"_s, u"table"_s},
                                                              {u"shape"_s, QJsonArray{2}},
                                                              {u"features"_s, QJsonArray{u"a"_s, u"b"_s}}}},
                                     {u"output"_s, QJsonObject{{u"task"_s, u"classification"_s},
                                                               {u"target"_s, u"y"_s},
                                                               {u"classes"_s, QJsonArray{u"0"_s, u"1"_s}}}},
                                     {u"weights"_s, weights}})
        .toJson();
}

QByteArray contents(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray("<missing>");
}

} // namespace

class TestPredictArchive : public QObject {
    Q_OBJECT

    QTemporaryDir m_root;
    // TMPDIR is <root>/a/b/tmp, so the unpack folder is <root>/a/b/tmp/<name>, and "../../x"
    // from there is <root>/a/b/x.
    QString tmp() const { return m_root.filePath(u"a/b/tmp"_s); }
    QString climbed() const { return m_root.filePath(u"a/b/x"_s); }
    QString project() const { return m_root.filePath(u"project"_s); }
    QString absoluteVictim() const { return m_root.filePath(u"home/.bashrc"_s); }

    struct Result {
        int exitCode = -1;
        QString err;
    };

    // `ferry predict ARCHIVE --data new.csv`, run from the project folder with TMPDIR set.
    Result predict(const QString &archivePath) const
    {
        QProcess process;
        process.setWorkingDirectory(project());
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(u"TMPDIR"_s, tmp());
        process.setProcessEnvironment(env);
        process.start(ferry::test::ferryBinary(), {u"predict"_s, archivePath, u"--data"_s, u"new.csv"_s});
        if (!process.waitForFinished(60000)) {
            process.kill();
            process.waitForFinished();
        }
        return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
                QString::fromUtf8(process.readAllStandardError())};
    }

    static bool write(const QString &path, const QByteArray &bytes)
    {
        QDir().mkpath(QFileInfo(path).absolutePath());
        QFile f(path);
        return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(bytes) == bytes.size();
    }

private Q_SLOTS:
    void init()
    {
        QVERIFY(QDir().mkpath(tmp()));
        QVERIFY(write(climbed(), "the user's x\n"));
        QVERIFY(write(project() + u"/train.py"_s, "print('the user script')\n"));
        QVERIFY(write(project() + u"/new.csv"_s, "a,b\n1,2\n"));
        QVERIFY(write(absoluteVictim(), "export PATH=/usr/bin\n"));
    }

    void refusedBeforeAnythingIsWritten_data()
    {
        QTest::addColumn<QList<Entry>>("entries");
        QTest::addColumn<QString>("message");
        QTest::addColumn<QString>("target"); // where the attack aimed (the file must not change or appear)

        const QByteArray evil = "import os; os.system('echo owned')\n";
        const QString newTarget = m_root.filePath(u"a/b/planted"_s);
        QTest::newRow("weights ../../x") << QList<Entry>{{"model.json", card(u"../../x"_s)}, {"../../x", evil}}
                                         << u"'weights' in model.json must be a file name in the model folder"_s
                                         << climbed();
        QTest::newRow("weights ../../planted (a new file)")
            << QList<Entry>{{"model.json", card(u"../../planted"_s)}, {"../../planted", evil}}
            << u"not '../../planted'"_s << newTarget;
        QTest::newRow("weights absolute")
            << QList<Entry>{{"model.json", card(absoluteVictim())}, {QFile::encodeName(absoluteVictim()), evil}}
            << u"'weights' in model.json must be a file name"_s << absoluteVictim();
        QTest::newRow("weights /proc/self/cwd/train.py")
            << QList<Entry>{{"model.json", card(u"/proc/self/cwd/train.py"_s)}, {"/proc/self/cwd/train.py", evil}}
            << u"not '/proc/self/cwd/train.py'"_s << project() + u"/train.py"_s;
        QTest::newRow("weights nested ..")
            << QList<Entry>{{"model.json", card(u"sub/../../../x"_s)}, {"sub/../../../x", evil}}
            << u"'weights' in model.json"_s << climbed();
        // The card is fine; an entry named to climb out makes the whole archive refused.
        QTest::newRow("entry named with ..")
            << QList<Entry>{{"../../x", evil}, {"model.json", card(u"model.pt"_s)}, {"model.pt", "weights"}}
            << u"entry named '../../x', which leads out of its folder"_s << climbed();
        QTest::newRow("absolute entry") << QList<Entry>{{QFile::encodeName(absoluteVictim()), evil},
                                                        {"model.json", card(u"model.pt"_s)}}
                                        << u"leads out of its folder"_s << absoluteVictim();
        // Links are never followed on read: a link at the weights' name is refused, not read through.
        QTest::newRow("weights a symlink")
            << QList<Entry>{{"model.json", card(u"model.pt"_s)},
                            {"model.pt", {}, Entry::Symlink, QFile::encodeName(climbed())}}
            << u"'model.pt' in the archive is a link or a folder, not a file"_s << climbed();
        QTest::newRow("weights a hard link")
            << QList<Entry>{{"model.json", card(u"model.pt"_s)}, {"model.pt", {}, Entry::Hardlink, "model.json"}}
            << u"'model.pt' in the archive is a link or a folder, not a file"_s << climbed();
        QTest::newRow("model.json a symlink")
            << QList<Entry>{{"model.json", {}, Entry::Symlink, QFile::encodeName(climbed())}}
            << u"'model.json' in the archive is a link"_s << climbed();
    }

    void refusedBeforeAnythingIsWritten()
    {
        QFETCH(QList<Entry>, entries);
        QFETCH(QString, message);
        QFETCH(QString, target);
        const QString archivePath = m_root.filePath(u"downloads/evil.tar.gz"_s);
        QVERIFY(QDir().mkpath(QFileInfo(archivePath).absolutePath()));
        QFile::remove(archivePath);
        QVERIFY(writeTarGz(archivePath, entries));
        const QByteArray before = contents(target);

        const Result r = predict(archivePath);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
        QVERIFY2(r.err.contains(archivePath), qPrintable(r.err)); // the archive is named
        // Nothing was written where the archive aimed, nor anywhere else around.
        QCOMPARE(contents(target), before);
        QCOMPARE(contents(climbed()), QByteArray("the user's x\n"));
        QCOMPARE(contents(absoluteVictim()), QByteArray("export PATH=/usr/bin\n"));
        QCOMPARE(contents(project() + u"/train.py"_s), QByteArray("print('the user script')\n"));
        QCOMPARE(QDir(m_root.filePath(u"a/b"_s)).entryList(QDir::AllEntries | QDir::NoDotAndDotDot),
                 (QStringList{u"tmp"_s, u"x"_s}));
        QCOMPARE(QDir(project()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot),
                 (QStringList{u"new.csv"_s, u"train.py"_s}));
        QCOMPARE(QDir(tmp()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden), QStringList());
    }

    // The same check lets a well-formed archive through: predict gets past unpacking (and fails
    // later, at the data or the trainer, never at the archive).
    void aWellFormedArchiveIsUnpacked()
    {
        const QString archivePath = m_root.filePath(u"downloads/good.tar.gz"_s);
        QVERIFY(QDir().mkpath(QFileInfo(archivePath).absolutePath()));
        QVERIFY(writeTarGz(archivePath, {{"model.json", card(u"model.pt"_s)}, {"model.pt", "weights"}}));
        const Result r = predict(archivePath);
        QCOMPARE(r.exitCode, 1); // no crash: the weights are not real ones
        QVERIFY2(!r.err.contains(u"refused"_s) && !r.err.contains(u"cannot read model.json"_s) &&
                     !r.err.contains(u"must be a file name"_s) && !r.err.contains(u"already exists"_s),
                 qPrintable(r.err));
        QCOMPARE(contents(climbed()), QByteArray("the user's x\n"));
    }
};

QTEST_GUILESS_MAIN(TestPredictArchive)
#include "tst_predictarchive.moc"
