// Snapshots (core/snapshot): the exclude rule (a table of paths), a hundred snapshots of an
// unchanged tree adding nothing after the first, a one-line change adding that file and its
// folders' listings only, a link kept as a link (its target never read), the git state of a
// clean and of a dirty repository, and the files read back as they were.
#include "run/runspec.h"
#include "snapshot/secretfiles.h"
#include "snapshot/snapshot.h"
#include "support/files.h"
#include "support/git.h"
#include "support/testmain.h"

#include <QDir>
#include <QDirIterator>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace ferry;

namespace {

qint64 objectCount(const QString &objects)
{
    qint64 n = 0;
    QDirIterator it(objects, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        if (!it.next().contains(u"/index/"_s))
            ++n;
    }
    return n;
}

// A source folder: 3 folders, code and a data file.
void writeTree(const QString &root)
{
    QDir().mkpath(root + u"/model/layers"_s);
    QDir().mkpath(root + u"/.git/objects"_s); // left out
    QDir().mkpath(root + u"/.ferry/runs"_s);  // left out
    test::writeFileOrStop(root + u"/train.py"_s, "import model\nlr = 0.01\nprint(lr)\n");
    test::writeFileOrStop(root + u"/model/__init__.py"_s, "from .layers import dense\n");
    test::writeFileOrStop(root + u"/model/layers/dense.py"_s, "def dense(x):\n    return x\n");
    test::writeFileOrStop(root + u"/data.bin"_s, QByteArray(100000, 'd'));
    test::writeFileOrStop(root + u"/.git/objects/x"_s, "git's");
    test::writeFileOrStop(root + u"/.ferry/runs/y"_s, "ferry's");
}

} // namespace

class TestSnapshot : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void excludes_data()
    {
        QTest::addColumn<QString>("pattern");
        QTest::addColumn<QString>("path");
        QTest::addColumn<bool>("excluded");
        QTest::newRow(".git at the top") << QString() << u".git"_s << true;
        QTest::newRow(".git below") << QString() << u"vendor/lib/.git/HEAD"_s << true;
        QTest::newRow(".ferry") << QString() << u".ferry/objects/ab/cd"_s << true;
        QTest::newRow("a .gitignore is not .git") << QString() << u".gitignore"_s << false;
        QTest::newRow("a name anywhere") << u"*.ckpt"_s << u"out/epoch=3.ckpt"_s << true;
        QTest::newRow("a name, not a part of one") << u"*.ckpt"_s << u"out/ckpt.txt"_s << false;
        QTest::newRow("a path from the top") << u"data/raw"_s << u"data/raw/x.csv"_s << true;
        QTest::newRow("a path, not below the top") << u"data/raw"_s << u"src/data/raw/x.csv"_s << false;
        QTest::newRow("anchored with a slash") << u"/data"_s << u"data/x"_s << true;
        QTest::newRow("a wildcard within a name") << u"logs/run-?"_s << u"logs/run-1/a"_s << true;
    }
    void excludes()
    {
        QFETCH(QString, pattern);
        QFETCH(QString, path);
        QFETCH(bool, excluded);
        const snapshot::SourceExcludes rule(pattern.isEmpty() ? QStringList() : QStringList{pattern});
        QCOMPARE(rule.excluded(path), excluded);
    }
    // What a run bundle leaves out unless asked: the exclude rule's matching, on names that hold secrets.
    void secretLikeFiles_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<bool>("secret");
        for (const char *path :
             {".env", "app/.env.production", "prod.env", "certs/server.pem", "tls/site.key", "id_rsa",
              "home/.ssh/config", ".aws/config", "keys/id_ed25519.pub", "store.p12", "gcp/service-account-prod.json",
              "client_secret_123.json", ".netrc", "credentials", "config/secrets.yaml"})
            QTest::newRow(path) << QString::fromLatin1(path) << true;
        for (const char *path : {"train.py", "environment.yml", "keys.py", "README.md", "src/keyboard.py",
                                 "docs/credential_guide.md", "data/envs.csv", "secret_sauce.py"})
            QTest::newRow(path) << QString::fromLatin1(path) << false;
    }
    void secretLikeFiles()
    {
        QFETCH(QString, path);
        QFETCH(bool, secret);
        QCOMPARE(snapshot::looksSecret(path), secret);
    }
    void rsyncMeansTheSame()
    {
        const snapshot::SourceExcludes rule({u"*.ckpt"_s, u"data/raw/"_s, u"/cache"_s});
        QCOMPARE(rule.rsyncPatterns(), (QStringList{u".git"_s, u".ferry"_s, u"*.ckpt"_s, u"/data/raw"_s, u"/cache"_s}));
    }

    // Runs on this machine's Slurm kept inside the source folder are left out of its code (the
    // upload would copy the folder into itself); a remote host's folder of the same name is not.
    void runsKeptInsideTheSourceAreNotCode()
    {
        run::RunSpec spec;
        spec.sourceDir = u"/work/project"_s;
        spec.target = run::TargetSpec{run::TargetKind::Slurm, u"local"_s, {{u"remoteDir"_s, u"/work/project/runs"_s}}};
        const auto here = run::sourceExcludes(spec);
        QVERIFY(here.excluded(u"runs/20261206-bench/code/train.py"_s));
        QVERIFY(!here.excluded(u"src/runs/notes.txt"_s));
        QVERIFY(here.rsyncPatterns().contains(u"/runs"_s));
        spec.target.options[u"remoteDir"_s] = u"/work/elsewhere"_s;
        QCOMPARE(run::sourceExcludes(spec).patterns(), (QStringList{u".git"_s, u".ferry"_s}));
        spec.target = run::TargetSpec{run::TargetKind::Slurm, u"login"_s, {{u"remoteDir"_s, u"/work/project/runs"_s}}};
        QVERIFY(!run::sourceExcludes(spec).excluded(u"runs/x"_s));
    }

    void aHundredUnchangedSnapshotsCostOneCopy()
    {
        QTemporaryDir dir;
        const QString source = dir.filePath(u"src"_s), objects = dir.filePath(u"objects"_s);
        writeTree(source);
        const auto first = snapshot::takeSnapshot(objects, source, snapshot::SourceExcludes());
        QVERIFY(first);
        QCOMPARE(first->files, 4);
        qint64 bytes = 0;
        for (const QString &f : {u"train.py"_s, u"model/__init__.py"_s, u"model/layers/dense.py"_s, u"data.bin"_s})
            bytes += QFileInfo(source + u'/' + f).size();
        QCOMPARE(first->bytes, bytes);
        const qint64 stored = objectCount(objects);
        QCOMPARE(stored, 4 + 3); // the files and the three folders' listings
        for (int i = 0; i < 100; ++i) {
            const auto again = snapshot::takeSnapshot(objects, source, snapshot::SourceExcludes());
            QVERIFY(again);
            QCOMPARE(again->tree, first->tree);
            QCOMPARE(again->addedBytes, 0);
        }
        QCOMPARE(objectCount(objects), stored);
        // What it holds, read back; .git and .ferry are not in it.
        const snapshot::ObjectStore store(objects);
        const auto files = store.files(first->tree);
        QVERIFY(files);
        QCOMPARE(files->keys(),
                 (QStringList{u"data.bin"_s, u"model/__init__.py"_s, u"model/layers/dense.py"_s, u"train.py"_s}));
        QCOMPARE(*store.get(files->value(u"model/layers/dense.py"_s).hash),
                 QByteArray("def dense(x):\n    return x\n"));
    }

    void aOneLineChangeAddsThatFileAndItsFolders()
    {
        QTemporaryDir dir;
        const QString source = dir.filePath(u"src"_s), objects = dir.filePath(u"objects"_s);
        writeTree(source);
        const auto before = snapshot::takeSnapshot(objects, source, snapshot::SourceExcludes());
        QVERIFY(before);
        const QByteArray changed = "def dense(x):\n    return 2 * x\n";
        test::writeFileOrStop(source + u"/model/layers/dense.py"_s, changed);
        const auto after = snapshot::takeSnapshot(objects, source, snapshot::SourceExcludes());
        QVERIFY(after);
        QVERIFY(after->tree != before->tree);
        QCOMPARE(after->addedObjects, 1 + 3); // the file, and layers/, model/ and the top's listings
        QVERIFY2(after->addedBytes < changed.size() + 3 * 400, qPrintable(QString::number(after->addedBytes)));
        // The first snapshot still reads as it was.
        const auto old = snapshot::ObjectStore(objects).files(before->tree);
        QCOMPARE(*snapshot::ObjectStore(objects).get(old->value(u"model/layers/dense.py"_s).hash),
                 QByteArray("def dense(x):\n    return x\n"));
    }

    void aLinkIsKeptNotFollowed()
    {
        QTemporaryDir dir;
        const QString source = dir.filePath(u"src"_s), objects = dir.filePath(u"objects"_s);
        QDir().mkpath(source);
        test::writeFileOrStop(dir.filePath(u"secret.txt"_s), "outside the source folder");
        QVERIFY(QFile::link(dir.filePath(u"secret.txt"_s), source + u"/link"_s));
        const auto taken = snapshot::takeSnapshot(objects, source, snapshot::SourceExcludes());
        QVERIFY(taken);
        const auto files = snapshot::ObjectStore(objects).files(taken->tree);
        QCOMPARE(files->value(u"link"_s).type, 'l');
        QCOMPARE(*snapshot::ObjectStore(objects).get(files->value(u"link"_s).hash),
                 QFile::encodeName(dir.filePath(u"secret.txt"_s)));
        QDirIterator it(objects, QDir::Files, QDirIterator::Subdirectories);
        while (it.hasNext())
            QVERIFY(test::readFile(it.next()) != "outside the source folder");
    }

    void gitStateOfCleanAndDirty()
    {
        QTemporaryDir dir;
        const QString source = dir.filePath(u"repo"_s);
        QDir().mkpath(source);
        QVERIFY(!snapshot::gitState(source).repository);
        QVERIFY(test::git(source, {u"init"_s, u"-q"_s, u"-b"_s, u"main"_s}));
        test::writeFileOrStop(source + u"/train.py"_s, "print(1)\n");
        QVERIFY(test::git(source, {u"add"_s, u"."_s}));
        QVERIFY(test::git(source, {u"commit"_s, u"-q"_s, u"-m"_s, u"first"_s}));
        const snapshot::GitState clean = snapshot::gitState(source);
        QVERIFY(clean.repository);
        QCOMPARE(clean.commit.size(), 40);
        QCOMPARE(clean.branch, u"main"_s);
        QVERIFY(!clean.dirty);
        test::writeFileOrStop(source + u"/train.py"_s, "print(2)\n");
        const snapshot::GitState dirty = snapshot::gitState(source);
        QCOMPARE(dirty.commit, clean.commit);
        QVERIFY(dirty.dirty);
        // In the snapshot's record.
        const auto taken = snapshot::takeSnapshot(dir.filePath(u"objects"_s), source, snapshot::SourceExcludes());
        QCOMPARE(snapshot::Snapshot::fromJson(taken->toJson()), *taken);
        QVERIFY(taken->git.dirty);
    }
};

FERRY_TEST_GUILESS_MAIN(TestSnapshot)
#include "tst_snapshot.moc"
