// The sweep file (docs/sweep-format.md): the issue's example read field by field, written back
// to the same spec, and every mistake reported at its line with what to do.
#include "support/testmain.h"
#include "sweep/sweepfile.h"

#include <QJsonObject>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace ferry::sweep;

namespace {

const QString kExample = uR"(ferry-sweep: 1
script: train.py
target: slurm:local
hyperparameters: {epochs: "5"}
data: {training: data/train}
method: random
metric: {name: val_loss, goal: minimize}
parameters:
  lr: {distribution: log_uniform, min: 1.0e-5, max: 1.0e-1}
  layers: {values: ["64,32", "128,64", "256,128"]}
  dropout: {distribution: uniform, min: 0.0, max: 0.5}
  batch-size: {distribution: int_uniform, min: 16, max: 256}
max_trials: 40
max_parallel: 4
early_stopping: {type: median, min_steps: 200}
seed: 7
)"_s;

QString errorsOf(const QString &text)
{
    QStringList lines;
    for (const ferry::Diagnostic &d : parseSweepYaml(text, u"s.yml"_s).diagnostics)
        lines << d.toString().section(u'\n', 0, 0);
    return lines.join(u'\n');
}

} // namespace

class TestSweepFile : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void theIssuesExampleReads()
    {
        const SweepRead read = parseSweepYaml(kExample, u"sweeps/s.yml"_s);
        QVERIFY2(read.diagnostics.isEmpty(), qPrintable(errorsOf(kExample)));
        const SweepSpec &s = read.spec;
        QCOMPARE(s.script, u"train.py"_s);
        QCOMPARE(s.target, u"slurm:local"_s);
        QCOMPARE(s.fixed.size(), 1);
        QCOMPARE(s.fixed[0].value, u"5"_s);
        QCOMPARE(s.data[0].path, u"data/train"_s);
        QCOMPARE(s.method, Method::Random);
        QCOMPARE(s.metric, u"val_loss"_s);
        QCOMPARE(s.goal, Goal::Minimize);
        QCOMPARE(s.parameters.size(), 4);
        QCOMPARE(s.parameters[0].name, u"lr"_s);
        QCOMPARE(s.parameters[0].distribution, Distribution::LogUniform);
        QCOMPARE(s.parameters[0].min, 1e-5);
        QCOMPARE(s.parameters[0].line, 9);
        QCOMPARE(s.parameters[1].values, (QStringList{u"64,32"_s, u"128,64"_s, u"256,128"_s}));
        QCOMPARE(s.parameters[3].distribution, Distribution::IntUniform);
        QCOMPARE(s.parameters[3].max, 256.0);
        QCOMPARE(s.maxTrials, 40);
        QCOMPARE(s.maxParallel, 4);
        QCOMPARE(s.earlyStopping.rule, StoppingRule::Median);
        QCOMPARE(s.earlyStopping.minSteps, 200);
        QCOMPARE(s.seed, quint64(7));
        QCOMPARE(s.plannedTrials(), 40);
    }

    void writtenBackToTheSameSpec()
    {
        SweepSpec spec = parseSweepYaml(kExample, u"s.yml"_s).spec;
        spec.summary = Summary::Best;
        spec.earlyStopping = EarlyStopping{StoppingRule::Asha, 100, 4, 0.1};
        spec.parameters[1].values << u"yes"_s << u"0x10"_s << u"a: b"_s; // YAML 1.1 traps stay text
        spec.budget = ferry::sweep::SweepBudget{12.5, 5400};             // max_cost 12.5, max_time 1:30:00
        spec.targetOptions = QJsonObject{{u"gpus"_s, 1},
                                         {u"partition"_s, u"gpu"_s},
                                         {u"time"_s, u"01:00:00"_s},
                                         {u"requeue"_s, true},
                                         {u"remoteDir"_s, u"/scratch/runs"_s}};
        const QString text = toSweepYaml(spec);
        const SweepRead back = parseSweepYaml(text, u"s.yml"_s);
        QVERIFY2(back.diagnostics.isEmpty(), qPrintable(errorsOf(text)));
        SweepSpec got = back.spec;
        for (int i = 0; i < got.parameters.size(); ++i)
            got.parameters[i].line = spec.parameters[i].line; // where they are differs
        QCOMPARE(got, spec);
    }

    void targetOptionsAreTheRunsOptions()
    {
        const SweepRead read =
            parseSweepYaml(u"ferry-sweep: 1\nscript: t.py\ntarget: slurm:local\nmethod: grid\nmetric: loss\n"
                           u"parameters: {lr: [0.1]}\ntarget_options: {gpus: 1, mem: 4G, remote-dir: /tmp/r}\n"_s,
                           u"s.yml"_s);
        QVERIFY2(read.diagnostics.isEmpty(),
                 qPrintable(read.diagnostics.isEmpty() ? QString() : read.diagnostics[0].toString()));
        QCOMPARE(read.spec.targetOptions,
                 (QJsonObject{{u"gpus"_s, 1}, {u"mem"_s, u"4G"_s}, {u"remoteDir"_s, u"/tmp/r"_s}}));
        QCOMPARE(errorsOf(u"ferry-sweep: 1\nscript: t.py\nmethod: grid\nmetric: loss\nparameters: {lr: [0.1]}\n"
                          u"target_options:\n  gpu: 1\n  requeue: maybe\n"_s),
                 u"s.yml:7:3: error: 'gpu' is not a target option\n"
                 u"s.yml:8:12: error: requeue is true or false, not 'maybe'"_s);
    }

    // A trial across nodes (issue 20): the run's own options, on a Slurm target only, each count
    // checked at its line; written back under the flags' names.
    void trialsAcrossNodesOnSlurm()
    {
        const QString head = u"ferry-sweep: 1\nscript: t.py\nmethod: grid\nmetric: loss\nparameters: {lr: [0.1]}\n"_s;
        const SweepRead read = parseSweepYaml(
            head + u"target: slurm:local\ntarget_options: {nodes: 2, tasksPerNode: 1, gpus-per-node: 1}\n"_s,
            u"s.yml"_s);
        QVERIFY2(read.diagnostics.isEmpty(),
                 qPrintable(read.diagnostics.isEmpty() ? QString() : read.diagnostics[0].toString()));
        QCOMPARE(read.spec.targetOptions,
                 (QJsonObject{{u"nodes"_s, 2}, {u"tasksPerNode"_s, 1}, {u"gpusPerNode"_s, 1}}));
        const QString written = toSweepYaml(read.spec);
        QVERIFY2(written.contains(u"tasks-per-node: 1"_s), qPrintable(written));
        QCOMPARE(parseSweepYaml(written, u"w.yml"_s).spec.targetOptions, read.spec.targetOptions);

        QCOMPARE(errorsOf(head + u"target: slurm:local\ntarget_options:\n  nodes: 0\n  tasks-per-node: 2\n"_s),
                 u"s.yml:8:10: error: --nodes takes a count from 1 to 10000, not '0'"_s);
        QCOMPARE(errorsOf(head + u"target: slurm:local\ntarget_options: {gpus-per-node: 65}\n"_s),
                 u"s.yml:7:33: error: --gpus-per-node takes a count from 0 to 64"_s);
        QCOMPARE(errorsOf(head + u"target: ssh:box\ntarget_options:\n  mem: 4G\n  nodes: 2\n"_s),
                 u"s.yml:9:3: error: a run across nodes or tasks (--nodes, --tasks-per-node, --gpus-per-node) runs "
                 u"on a Slurm target, not ssh:box"_s);
        QCOMPARE(errorsOf(head + u"target_options: {tasks-per-node: 4}\n"_s), // the default target: local
                 u"s.yml:6:18: error: a run across nodes or tasks (--nodes, --tasks-per-node, --gpus-per-node) "
                 u"runs on a Slurm target, not local"_s);
    }

    void gridPlansEveryCombination()
    {
        const QString grid = uR"(ferry-sweep: 1
script: t.py
method: grid
metric: loss
parameters:
  a: [1, 2, 3]
  b: {values: [x, y]}
)"_s;
        const SweepRead read = parseSweepYaml(grid, u"s.yml"_s);
        QVERIFY2(read.diagnostics.isEmpty(), qPrintable(errorsOf(grid)));
        QCOMPARE(read.spec.gridSize(), 6);
        QCOMPARE(read.spec.plannedTrials(), 6);
        QCOMPARE(read.spec.metric, u"loss"_s);
    }

    // The environment is named as a run names it (`env:`, like `ferry run --env`) or in full.
    void environmentByEitherName()
    {
        const QString head = u"ferry-sweep: 1\nscript: t.py\nmetric: loss\nmethod: grid\nparameters: {a: [1]}\n"_s;
        for (const QString &key : {u"env"_s, u"environment"_s}) {
            const SweepRead read = parseSweepYaml(head + key + u": envs/torch.yml\n"_s, u"s.yml"_s);
            QVERIFY2(read.diagnostics.isEmpty(), qPrintable(errorsOf(head + key + u": envs/torch.yml\n"_s)));
            QCOMPARE(read.spec.environment, u"envs/torch.yml"_s);
        }
        QVERIFY(errorsOf(head + u"env: a.yml\nenvironment: b.yml\n"_s)
                    .contains(u"s.yml:6:6: error: both 'env' and 'environment' name the trials' environment"_s));
    }

    // A typo is named with the key meant; a key far from every known one is not.
    void nearMissesAreNamed()
    {
        const QString head = u"ferry-sweep: 1\nscript: t.py\nmethod: grid\nparameters: {a: [1]}\n"_s;
        QVERIFY(errorsOf(head + u"metric: {name: loss, gaol: maximize}\n"_s)
                    .contains(u"unknown key 'gaol' of the metric is ignored; did you mean 'goal'?"_s));
        QVERIFY(errorsOf(head + u"metric: loss\nearly_stopping: {type: median, min_step: 5}\n"_s)
                    .contains(u"unknown key 'min_step' of early_stopping is ignored; did you mean 'min_steps'?"_s));
        // A name mistyped, as W&B and Optuna spell some of them: the meant one, and no error
        // that follows only from the unknown method.
        const QString method =
            errorsOf(u"ferry-sweep: 1\nscript: t.py\nmetric: loss\nmethod: grdi\nparameters: {a: [1]}\n"_s);
        QCOMPARE(method, u"s.yml:4:9: error: unknown method 'grdi'; did you mean 'grid'?"_s);
        QVERIFY(errorsOf(u"ferry-sweep: 1\nscript: t.py\nmetric: loss\nmethod: random\nmax_trials: 2\n"
                         u"parameters: {lr: {distribution: loguniform, min: 0.001, max: 1}}\n"_s)
                    .contains(u"unknown distribution 'loguniform'; did you mean 'log_uniform'?"_s));
        QVERIFY(errorsOf(head + u"metric: {name: loss, goal: minimise}\n"_s)
                    .contains(u"unknown goal 'minimise'; did you mean 'minimize'?"_s));
        const QString far = errorsOf(head + u"metric: loss\nflavour: vanilla\n"_s);
        QVERIFY2(far.contains(u"unknown key 'flavour' is ignored"_s) && !far.contains(u"did you mean"_s),
                 qPrintable(far));
    }

    void mistakesAreReportedAtTheirLine_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("expected");
        const QString head = u"ferry-sweep: 1\nscript: t.py\nmetric: loss\n"_s;
        QTest::newRow("grid with a distribution")
            << head + u"method: grid\nparameters:\n  a: [1, 2]\n  lr: {distribution: uniform, min: 0, max: 1}\n"_s
            << u"s.yml:7:7: error: method grid needs values for every parameter; 'lr' has a distribution"_s;
        QTest::newRow("random without max_trials") << head + u"method: random\nparameters:\n  a: [1, 2]\n"_s
                                                   << u"s.yml:1:1: error: method random needs max_trials"_s;
        QTest::newRow("unknown method") << head + u"method: hyperband\nmax_trials: 3\nparameters:\n  a: [1]\n"_s
                                        << u"s.yml:4:9: error: unknown method 'hyperband'"_s;
        QTest::newRow("bounds the wrong way")
            << head +
                   u"method: bayes\nmax_trials: 3\nparameters:\n  lr: {distribution: log_uniform, min: 1, max: 0.1}\n"_s
            << u"s.yml:7:48: error: parameter 'lr': max (0.1) must be above min (1)"_s;
        QTest::newRow("log of zero")
            << head +
                   u"method: bayes\nmax_trials: 3\nparameters:\n  lr: {distribution: log_uniform, min: 0, max: 1}\n"_s
            << u"s.yml:7:40: error: parameter 'lr' is drawn in the logarithm: min must be above 0"_s;
        QTest::newRow("integer with a fraction")
            << head +
                   u"method: bayes\nmax_trials: 3\nparameters:\n  n: {distribution: int_uniform, min: 1.5, max: 4}\n"_s
            << u"s.yml:7:39: error: 'min' of integer parameter 'n' must be a whole number"_s;
        QTest::newRow("a list as a value")
            << head + u"method: grid\nparameters:\n  layers: [[64, 32], \"128,64\"]\n"_s
            << u"s.yml:6:12: error: a value of parameter 'layers' must be a number or text"_s;
        QTest::newRow("a budget of nothing")
            << head + u"method: grid\nparameters:\n  a: [1]\nbudget:\n  max_cost: 0\n"_s
            << u"s.yml:8:13: error: max_cost must be an amount above 0 (USD)"_s;
        QTest::newRow("a budget's time in minutes past 59")
            << head + u"method: grid\nparameters:\n  a: [1]\nbudget:\n  max_time: 1:75:00\n"_s
            << u"s.yml:8:13: error: max_time must be a time above 0"_s;
        QTest::newRow("an empty budget") << head + u"method: grid\nparameters:\n  a: [1]\nbudget:\n  cost: 5\n"_s
                                         << u"s.yml:8:3: error: budget needs max_cost or max_time"_s;
        QTest::newRow("searched and fixed")
            << head + u"hyperparameters: {lr: 0.1}\nmethod: grid\nparameters:\n  lr: [1]\n"_s
            << u"s.yml:7:3: error: 'lr' is both a fixed hyperparameter and searched"_s;
        QTest::newRow("no metric") << u"ferry-sweep: 1\nscript: t.py\nmethod: grid\nparameters: {a: [1]}\n"_s
                                   << u"s.yml:1:1: error: a sweep needs the metric that scores its trials"_s;
        QTest::newRow("not a sweep") << u"ferry: 1\nname: env\n"_s
                                     << u"s.yml:1:1: error: not a sweep file: no 'ferry-sweep' version"_s;
        QTest::newRow("newer format")
            << u"ferry-sweep: 2\n"_s + head.mid(15) + u"method: grid\nparameters: {a: [1]}\n"_s
            << u"s.yml:1:14: error: written by a newer Ferry (format 2; this one reads up to 1)"_s;
        QTest::newRow("bad option name") << head + u"method: grid\nparameters:\n  \"--lr\": [1]\n"_s
                                         << u"s.yml:6:3: error: '--lr' cannot be an option name"_s;
        QTest::newRow("parallel of zero")
            << head + u"method: grid\nmax_parallel: 0\nparameters: {a: [1]}\n"_s
            << u"s.yml:5:15: error: 'max_parallel' must be a whole number from 1 to 1024"_s;
        QTest::newRow("unknown stopping")
            << head + u"method: grid\nparameters: {a: [1]}\nearly_stopping: {type: patience}\n"_s
            << u"s.yml:6:24: error: unknown early stopping 'patience'"_s;
        QTest::newRow("unknown key") << head + u"method: grid\nmax_trails: 3\nparameters: {a: [1]}\n"_s
                                     << u"s.yml:5:1: warning: unknown key 'max_trails' is ignored; did you mean "
                                        u"'max_trials'?"_s;
        QTest::newRow("unknown parameter key")
            << head + u"method: random\nmax_trials: 3\nparameters: {a: {distribution: uniform, min: 0, mx: 1}}\n"_s
            << u"s.yml:6:49: error: unknown key 'mx' of parameter 'a'; did you mean 'max'?"_s;

        QTest::newRow("syntax") << u"ferry-sweep: 1\nparameters: [\n"_s << u"s.yml:3:1: error: "_s;
    }
    void mistakesAreReportedAtTheirLine()
    {
        QFETCH(QString, text);
        QFETCH(QString, expected);
        const QString errors = errorsOf(text);
        QVERIFY2(errors.contains(expected), qPrintable(u"expected\n  "_s + expected + u"\ngot\n"_s + errors));
    }

    // A crafted file: a grid of 10^60 combinations through aliases, and a values list of aliases
    // of a huge list; both refused without expanding anything.
    void craftedFilesAreRefused()
    {
        QString bomb = u"ferry-sweep: 1\nscript: t.py\nmetric: loss\nmethod: grid\nparameters:\n"_s;
        QString values = u"[0"_s;
        for (int i = 1; i < 1000; ++i)
            values += u", "_s + QString::number(i);
        values += u']';
        for (int p = 0; p < 20; ++p)
            bomb += u"  p%1: %2\n"_s.arg(p).arg(p == 0 ? u"&v "_s + values : u"*v"_s);
        QVERIFY(errorsOf(bomb).contains(u"the grid has more than 1000000 combinations"_s));
        QString nested = u"ferry-sweep: 1\nscript: t.py\nmetric: loss\nmethod: grid\nlist: &l ["_s;
        for (int i = 0; i < 5000; ++i)
            nested += u"x, "_s;
        nested += u"x]\nparameters:\n  a: [*l, *l, *l, *l, *l, *l, *l, *l]\n"_s;
        QVERIFY(errorsOf(nested).contains(u"a value of parameter 'a' must be a number or text"_s));
        QString many = u"ferry-sweep: 1\nscript: t.py\nmetric: loss\nmethod: grid\nparameters:\n"_s;
        for (int p = 0; p < 100; ++p)
            many += u"  p%1: [1]\n"_s.arg(p);
        QVERIFY(errorsOf(many).contains(u"100 parameters: at most 64"_s));
    }
};

FERRY_TEST_GUILESS_MAIN(TestSweepFile)
#include "tst_sweepfile.moc"
