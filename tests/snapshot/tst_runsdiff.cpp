// `ferry runs diff` through the built binary on real runs of a script in a git repository:
// an uncommitted change and another parameter between two runs show as exactly those lines and
// that parameter, nothing else; the git state of each run is its own; three runs of unchanged
// code share one snapshot and the object store does not grow.
#include "support/cli.h"
#include "support/cost.h"
#include "support/diffruns.h"
#include "support/files.h"
#include "support/git.h"
#include "support/testmain.h"

#include <QDirIterator>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <cstdio>

using namespace Qt::StringLiterals;
using namespace ferry;

namespace {

qint64 workspaceObjectCount(const QString &ws)
{
    qint64 n = 0;
    QDirIterator it(ws + u"/.ferry/objects"_s, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext())
        n += it.next().contains(u"/index/"_s) ? 0 : 1;
    return n;
}

} // namespace

class TestRunsDiff : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void anUncommittedChangeAndAParameter()
    {
        QTemporaryDir dir;
        const QString ws = dir.path();
        test::writeFileOrStop(ws + u"/train.py"_s, test::kDiffScript);
        test::writeFileOrStop(ws + u"/README.md"_s, "notes\n");
        QVERIFY(test::git(ws, {u"init"_s, u"-q"_s, u"-b"_s, u"main"_s}));
        QVERIFY(test::git(ws, {u"add"_s, u"train.py"_s, u"README.md"_s}));
        QVERIFY(test::git(ws, {u"commit"_s, u"-q"_s, u"-m"_s, u"first"_s}));
        const QString a = test::startDiffRun(ws, u"0.01"_s);
        QString script = QString::fromUtf8(test::kDiffScript);
        script.replace(u"scale = 1.0"_s, u"scale = 0.5"_s);
        test::writeFileOrStop(ws + u"/train.py"_s, script.toUtf8()); // not committed
        const QString b = test::startDiffRun(ws, u"0.1"_s);
        QVERIFY(!a.isEmpty() && !b.isEmpty() && a != b);

        const auto diff = test::runFerry(ws, {u"runs"_s, u"diff"_s, a, b});
        QVERIFY2(diff.exitCode == 0, qPrintable(diff.err));
        const QString out = diff.out;
        QVERIFY2(out.contains(u"parameters that differ:\n  lr: 0.01 → 0.1\n"_s), qPrintable(out));
        QVERIFY2(!out.contains(u"  epochs:"_s), qPrintable(out)); // the same in both
        QVERIFY2(out.contains(u"code: 1 file differs\n--- a/train.py\n+++ b/train.py\n"_s), qPrintable(out));
        QVERIFY2(out.contains(u"\n-scale = 1.0\n+scale = 0.5\n"_s), qPrintable(out));
        QCOMPARE(out.count(u"\n-"_s), 1 + 1); // "--- a/" and the one line
        QVERIFY2(out.contains(u"with uncommitted changes"_s), qPrintable(out));
        QVERIFY2(!out.contains(u"README"_s), qPrintable(out));

        const auto json = test::runFerry(ws, {u"runs"_s, u"diff"_s, a, b, u"--json"_s});
        const QJsonObject d = QJsonDocument::fromJson(json.out.toUtf8()).object();
        QCOMPARE(d[u"parameters"_s].toArray().size(), 1);
        QCOMPARE(d[u"files"_s].toArray().size(), 1);
        QCOMPARE(d[u"other"_s].toArray().size(), 0); // same script, target, environment, data
        const QJsonObject loss = d[u"metrics"_s].toArray()[0].toObject();
        QCOMPARE(loss[u"name"_s].toString(), u"loss"_s);
        QCOMPARE(loss[u"lastA"_s].toDouble(), 0.01 / 3);
        QCOMPARE(loss[u"lastB"_s].toDouble(), 0.5 * 0.1 / 3);
        // The first run's own git state: clean.
        const auto show = test::runFerry(ws, {u"runs"_s, u"show"_s, a, u"--json"_s});
        const QJsonObject spec = QJsonDocument::fromJson(show.out.toUtf8()).object()[u"spec"_s].toObject();
        QVERIFY(!spec[u"snapshot"_s][u"git"_s][u"dirty"_s].toBool());
        QCOMPARE(spec[u"snapshot"_s][u"git"_s][u"branch"_s].toString(), u"main"_s);
        // --all: every parameter.
        QVERIFY(test::runFerry(ws, {u"runs"_s, u"diff"_s, a, b, u"--all"_s}).out.contains(u"  epochs: 3\n"_s));
    }

    void unchangedCodeIsKeptOnce()
    {
        QTemporaryDir dir;
        const QString ws = dir.path();
        test::writeFileOrStop(ws + u"/train.py"_s, test::kDiffScript);
        const QString first = test::startDiffRun(ws, u"0.01"_s);
        const qint64 objects = workspaceObjectCount(ws);
        QVERIFY(objects >= 2);
        const QString second = test::startDiffRun(ws, u"0.02"_s);
        const QString third = test::startDiffRun(ws, u"0.03"_s);
        QCOMPARE(workspaceObjectCount(ws), objects);
        const auto diff = test::runFerry(ws, {u"runs"_s, u"diff"_s, second, third});
        QVERIFY2(diff.out.contains(u"code: the same files"_s), qPrintable(diff.out));
        QVERIFY(!first.isEmpty());
    }

    // The rerun runs the code the first run ran, not the source folder as it is now, from a
    // folder of the workspace's own (.ferry/reruns), and says which run it reproduces.
    void rerunRunsTheFirstVersion()
    {
        QTemporaryDir dir;
        const QString ws = dir.filePath(u"project"_s);
        QDir().mkpath(ws);
        // Where the script's file really is (a local run's working folder links it).
        const QByteArray first =
            "import argparse, os\np = argparse.ArgumentParser()\np.add_argument('--lr')\na, _ = p.parse_known_args()\n"
            "here = os.path.dirname(os.path.realpath(__file__))\n"
            "print('version 1, lr', a.lr, 'in', here)\n";
        test::writeFileOrStop(ws + u"/train.py"_s, first);
        const QString a = test::startDiffRun(ws, u"0.01"_s);
        QByteArray second = first;
        second.replace("version 1", "version 2");
        test::writeFileOrStop(ws + u"/train.py"_s, second);

        const auto rerun = test::runFerry(ws, {u"runs"_s, u"rerun"_s, a, u"--hp"_s, u"lr=0.5"_s, u"--follow"_s});
        QVERIFY2(rerun.exitCode == 0, qPrintable(rerun.err));
        QVERIFY2(rerun.out.contains(u"version 1, lr 0.5 in "_s + QDir(ws).canonicalPath() + u"/.ferry/reruns/"_s),
                 qPrintable(rerun.out));
        QVERIFY(!rerun.out.contains(u"version 2"_s));
        QVERIFY2(rerun.err.contains(u"rerun of "_s + a), qPrintable(rerun.err));
        const auto list = test::runFerry(ws, {u"runs"_s, u"list"_s, u"--json"_s});
        const QJsonObject newest = QJsonDocument::fromJson(list.out.toUtf8()).array().first().toObject();
        QCOMPARE(newest[u"spec"_s][u"rerunOf"_s].toString(), a);
        // The same code: the diff says so; the parameter differs.
        const auto diff = test::runFerry(ws, {u"runs"_s, u"diff"_s, a, newest[u"id"_s].toString()});
        QVERIFY2(diff.out.contains(u"code: the same files"_s), qPrintable(diff.out));
        QVERIFY2(diff.out.contains(u"  lr: 0.01 → 0.5"_s), qPrintable(diff.out));
        // The source folder itself was not touched.
        QCOMPARE(test::readFile(ws + u"/train.py"_s), second);
    }

    // The environment each run had, as it was then: a package added between them is named.
    void environmentsAreCompared()
    {
        QTemporaryDir dir;
        const QString ws = dir.path();
        test::writeFileOrStop(ws + u"/train.py"_s, test::kDiffScript);
        const QByteArray env = "ferry: 1\nname: tune\nversion: \"1\"\ndocker:\n  base_image: python:3.11-slim\n"
                               "python:\n  version: \"3.11\"\n  pip: [\"numpy==1.26.4\"]\n";
        test::writeFileOrStop(ws + u"/env.yml"_s, env);
        const auto first = test::runFerry(
            ws, {u"run"_s, u"train.py"_s, u"--env"_s, u"env.yml"_s, u"--hp"_s, u"lr=0.1"_s, u"--hp"_s, u"epochs=1"_s});
        QVERIFY2(first.exitCode == 0, qPrintable(first.err));
        QByteArray changed = env;
        changed.replace("[\"numpy==1.26.4\"]", "[\"numpy==1.26.4\", \"pandas==2.1.4\"]");
        test::writeFileOrStop(ws + u"/env.yml"_s, changed);
        const auto second = test::runFerry(
            ws, {u"run"_s, u"train.py"_s, u"--env"_s, u"env.yml"_s, u"--hp"_s, u"lr=0.1"_s, u"--hp"_s, u"epochs=1"_s});
        QVERIFY2(second.exitCode == 0, qPrintable(second.err));
        for (const auto &run : {first, second}) // until both have ended
            (void)test::runFerry(ws, {u"runs"_s, u"attach"_s, run.out.trimmed()});
        const auto diff = test::runFerry(ws, {u"runs"_s, u"diff"_s, first.out.trimmed(), second.out.trimmed()});
        QVERIFY2(diff.out.contains(u"environment: tune-1-"_s), qPrintable(diff.out));
        QVERIFY2(diff.out.contains(u"\n  pip pandas: added pandas==2.1.4\n"_s), qPrintable(diff.out));
        QVERIFY2(!diff.out.contains(u"pip numpy"_s), qPrintable(diff.out)); // the same in both
        QVERIFY2(diff.out.contains(u"parameters that differ: none"_s), qPrintable(diff.out));
    }

    // Review M4: two runs whose 64 KB files differ on every line (about 32 GB before, by the
    // review's count). The real `ferry runs diff` answers in bounded time and memory, with the
    // sizes of a diff too large to show; a diff of about half as many changes is shown whole.
    void everyLineDifferingIsSaidNotExhausting()
    {
        QTemporaryDir dir;
        const QString ws = dir.path();
        test::writeFileOrStop(ws + u"/train.py"_s, test::kDiffScript);
        const auto numbers = [](int count, int from, int width) {
            QByteArray text;
            for (int i = 0; i < count; ++i)
                text += QByteArray::number(from + i).rightJustified(width, '0') + '\n';
            return text;
        };
        test::writeFileOrStop(ws + u"/short.txt"_s, numbers(10922, 0, 5)); // 6 bytes a line: 65,532 bytes
        test::writeFileOrStop(ws + u"/long.txt"_s, numbers(5041, 0, 12));  // 13 bytes a line: 65,533 bytes
        const QString a = test::startDiffRun(ws, u"0.01"_s);
        test::writeFileOrStop(ws + u"/short.txt"_s, numbers(10922, 50000, 5));
        test::writeFileOrStop(ws + u"/long.txt"_s, numbers(5041, 50000, 12));
        const QString b = test::startDiffRun(ws, u"0.01"_s);
        QVERIFY(!a.isEmpty() && !b.isEmpty() && a != b);
        // /usr/bin/time writes "SECONDS KIB" as the last line of the error output.
        const auto diff = test::runProgram(u"/usr/bin/time"_s,
                                           {u"-f"_s, u"%e %M"_s, test::ferryBinary(), u"runs"_s, u"diff"_s, a, b}, ws);
        QVERIFY2(diff.exitCode == 0, qPrintable(diff.err));
        const QStringList cost = diff.err.trimmed().split(u'\n').last().split(u' ');
        const double seconds = cost.value(0).toDouble();
        const double mib = cost.value(1).toDouble() / 1024;
        std::printf("COST   : ferry runs diff: 2 x 64 KB files differing on every line, %.2f s, %.1f MiB peak\n",
                    seconds, mib);
        QVERIFY2(diff.out.contains(u"\n  short.txt: differs, too large to show (10922 and 10922 lines)\n"_s),
                 qPrintable(diff.out));
        QVERIFY2(diff.out.contains(u"--- a/long.txt\n+++ b/long.txt\n@@ -1,5041 +1,5041 @@\n-000000000000\n"_s),
                 qPrintable(diff.out.left(2000)));
        QCOMPARE(diff.out.count(u"\n-0000000"_s), 5041);
        QCOMPARE(diff.out.count(u"\n+0000000"_s), 5041);
        QVERIFY2(test::secondsWithin(seconds, 20), "about a second expected");
        QVERIFY2(test::peakWithin(qint64(mib * 1024 * 1024), 400LL * 1024 * 1024), "about 40 MiB expected");
        const QJsonObject json = test::jsonObject(test::runFerry(ws, {u"runs"_s, u"diff"_s, a, b, u"--json"_s}));
        for (const QJsonValue &file : json[u"files"_s].toArray()) {
            if (file[u"path"_s] == u"short.txt"_s) {
                QVERIFY(file[u"tooLarge"_s].toBool());
                QCOMPARE(file[u"linesB"_s].toInt(), 10922);
            } else {
                QVERIFY(!file[u"tooLarge"_s].toBool());
            }
        }
    }

    void badRequests()
    {
        QTemporaryDir dir;
        test::writeFileOrStop(dir.filePath(u"train.py"_s), test::kDiffScript);
        const QString a = test::startDiffRun(dir.path(), u"0.01"_s);
        const auto one = test::runFerry(dir.path(), {u"runs"_s, u"diff"_s, a});
        QCOMPARE(one.exitCode, 1);
        QVERIFY(one.err.contains(u"ferry runs diff A B"_s));
        const auto unknown = test::runFerry(dir.path(), {u"runs"_s, u"diff"_s, a, u"nope"_s});
        QCOMPARE(unknown.exitCode, 1);
        QVERIFY(unknown.err.contains(u"nope"_s));
    }
};

FERRY_TEST_GUILESS_MAIN(TestRunsDiff)
#include "tst_runsdiff.moc"
