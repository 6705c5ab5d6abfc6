// `ferry sweep plan` as a user runs it: the planned trials of a file, the same on every run,
// as text and JSON; a bad file's problems with their lines and exit code 1.
#include "support/cli.h"
#include "support/testmain.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace ferry::test;

namespace {

void write(const QString &path, const QString &text)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(text.toUtf8());
}

const QString kRandom = uR"(ferry-sweep: 1
script: train.py
method: random
metric: {name: val_loss, goal: minimize}
parameters:
  lr: {distribution: log_uniform, min: 1.0e-5, max: 1.0e-1}
  layers: {values: ["64,32", "128,64"]}
  batch-size: {distribution: int_uniform, min: 16, max: 256}
max_trials: 12
max_parallel: 2
seed: 7
)"_s;

} // namespace

class TestSweepCli : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void planPrintsTheTrials()
    {
        QTemporaryDir dir;
        write(dir.filePath(u"s.yml"_s), kRandom);
        const CliResult text = runFerry(dir.path(), {u"sweep"_s, u"plan"_s, u"s.yml"_s});
        QCOMPARE(text.exitCode, 0);
        const QStringList lines = text.out.trimmed().split(u'\n');
        QVERIFY2(lines[0].startsWith(u"random search of 12 trials, 2 at a time, scored by val_loss"_s),
                 qPrintable(text.out));
        QCOMPARE(lines[1], u"trial\tlr\tlayers\tbatch-size\testimate"_s);
        QCOMPARE(lines.size(), 15);
        // No train.py here, so no estimate (docs/cost.md): said, never a number.
        QVERIFY2(lines.last().startsWith(u"estimate: none ("_s) &&
                     lines.last().contains(u"the script 'train.py' is not in the workspace"_s),
                 qPrintable(lines.last()));
        const CliResult json = runFerry(dir.path(), {u"sweep"_s, u"plan"_s, u"s.yml"_s, u"--json"_s});
        QCOMPARE(json.exitCode, 0);
        const QJsonArray trials = jsonObject(json)[u"trials"_s].toArray();
        QCOMPARE(trials.size(), 12);
        for (int i = 0; i < trials.size(); ++i) {
            const QJsonObject hp = trials[i][u"hyperparameters"_s].toObject();
            const QStringList row = lines[i + 2].split(u'\t');
            QCOMPARE(row, (QStringList{QString::number(i), hp[u"lr"_s].toString(), hp[u"layers"_s].toString(),
                                       hp[u"batch-size"_s].toString(), u"-"_s}));
            const double lr = hp[u"lr"_s].toString().toDouble();
            QVERIFY(lr >= 1e-5 && lr <= 0.1);
        }
        // The same file and seed: the same trials.
        QCOMPARE(runFerry(dir.path(), {u"sweep"_s, u"plan"_s, u"s.yml"_s}).out, text.out);
        // TPE plans its random start only.
        write(dir.filePath(u"b.yml"_s), QString(kRandom).replace(u"method: random"_s, u"method: bayes"_s));
        const CliResult bayes = runFerry(dir.path(), {u"sweep"_s, u"plan"_s, u"b.yml"_s});
        QCOMPARE(bayes.exitCode, 0);
        QVERIFY2(bayes.out.contains(u"trials 10 to 11: chosen by TPE"_s), qPrintable(bayes.out));
    }

    void badFilesSayWhereAndExitOne()
    {
        QTemporaryDir dir;
        write(dir.filePath(u"g.yml"_s), QString(kRandom).replace(u"method: random"_s, u"method: grid"_s));
        const CliResult r = runFerry(dir.path(), {u"sweep"_s, u"plan"_s, u"g.yml"_s});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(u"g.yml:6:7: error: method grid needs values for every parameter; 'lr'"_s),
                 qPrintable(r.err));
        QVERIFY(r.out.isEmpty());
        const CliResult missing = runFerry(dir.path(), {u"sweep"_s, u"plan"_s, u"nope.yml"_s});
        QCOMPARE(missing.exitCode, 1);
        QVERIFY2(missing.err.contains(u"nope.yml"_s), qPrintable(missing.err));
        QCOMPARE(runFerry(dir.path(), {u"sweep"_s, u"start"_s, u"g.yml"_s}).exitCode, 1);
    }
};

FERRY_TEST_GUILESS_MAIN(TestSweepCli)
#include "tst_sweepcli.moc"
