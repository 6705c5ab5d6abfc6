// Hyperparameters read from a script's argparse calls (never by running it): names, types,
// defaults, help, choices, flags, contract defaults from SM_* variables, and odd source text.
#include "run/scriptparameters.h"
#include "support/testmain.h"

#include <QRandomGenerator>
#include <QTest>

using namespace Qt::StringLiterals;
using ferry::run::ScriptParameter;

namespace {

const ScriptParameter *find(const QList<ScriptParameter> &list, const QString &name)
{
    for (const ScriptParameter &p : list)
        if (p.name == name)
            return &p;
    return nullptr;
}

} // namespace

class TestScriptParameters : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void sagemakerStyleScript()
    {
        const auto found =
            ferry::run::discoverScriptParametersInFile(QStringLiteral(FERRY_TEST_DATA "/runs/sagemaker/train.py"));
        QVERIFY2(found, found ? "" : qPrintable(found.error().toString()));
        QStringList names;
        for (const ScriptParameter &p : *found)
            names << p.name;
        QCOMPARE(names, (QStringList{u"epochs"_s, u"learning-rate"_s, u"optimizer"_s, u"layers"_s, u"use-bias"_s,
                                     u"model-dir"_s, u"output-data-dir"_s, u"train"_s, u"validation"_s, u"hosts"_s,
                                     u"current-host"_s, u"num-gpus"_s, u"expected-run-dir"_s, u"expected-training"_s,
                                     u"expected-validation"_s}));
        const ScriptParameter *lr = find(*found, u"learning-rate"_s);
        QCOMPARE(lr->type, u"float"_s);
        QCOMPARE(lr->defaultText(), u"0.1"_s);
        QVERIFY(!lr->isContract());
        QCOMPARE(find(*found, u"optimizer"_s)->defaultText(), u"sgd"_s);
        QCOMPARE(find(*found, u"layers"_s)->type, u"json"_s);
        QCOMPARE(find(*found, u"layers"_s)->defaultText(), u"[8]"_s);
        QCOMPARE(find(*found, u"use-bias"_s)->type, u"bool"_s);
        const ScriptParameter *model = find(*found, u"model-dir"_s);
        QCOMPARE(model->environmentVariable, u"SM_MODEL_DIR"_s);
        QVERIFY(model->isContract());
        QCOMPARE(find(*found, u"train"_s)->environmentVariable, u"SM_CHANNEL_TRAINING"_s);
        QVERIFY(find(*found, u"expected-run-dir"_s)->required);
        QCOMPARE(lr->line, 18);
    }

    void everyForm()
    {
        const QString source = uR"PY(
import argparse, os
p = argparse.ArgumentParser(description="add_argument('--not-a-call')")
# p.add_argument("--commented-out", type=int)
p.add_argument(
    "-b", "--batch-size",   # the batch
    type=int,
    default=64,
    help="samples per step "
         "(per device)",
)
p.add_argument('--mode', choices=["fast", 'slow, careful'], default='fast', help='how (it, runs)')
p.add_argument("--dry-run", action="store_true", help="""do
nothing""")
p.add_argument("--no-shuffle", dest="shuffle", action="store_false")
p.add_argument("-v", type=float, default=os.environ.get("SM_HP_V", 0.5))
p.add_argument("--seed", type=int, default=os.getenv("SEED"))
p.add_argument("input")  # positional: not a hyperparameter
g = p.add_argument_group("x")
p.add_argument(r"--pattern", default=r"\d+", help=f"a regex {1+1}")
p.add_argument("--weights", type=lambda s: [float(x) for x in s.split(",")], default=(1.0, 2.0))
)PY"_s;
        const QList<ScriptParameter> found = ferry::run::discoverScriptParameters(source);
        QStringList names;
        for (const ScriptParameter &p : found)
            names << p.name;
        QCOMPARE(names, (QStringList{u"batch-size"_s, u"mode"_s, u"dry-run"_s, u"no-shuffle"_s, u"v"_s, u"seed"_s,
                                     u"pattern"_s, u"weights"_s}));
        const ScriptParameter *batch = find(found, u"batch-size"_s);
        QCOMPARE(batch->flags, (QStringList{u"-b"_s, u"--batch-size"_s}));
        QCOMPARE(batch->defaultText(), u"64"_s);
        QCOMPARE(batch->help, u"samples per step (per device)"_s);
        QCOMPARE(batch->line, 5);
        const ScriptParameter *mode = find(found, u"mode"_s);
        QCOMPARE(mode->choices, (QStringList{u"\"fast\""_s, u"'slow, careful'"_s}));
        QCOMPARE(mode->help, u"how (it, runs)"_s);
        QVERIFY(find(found, u"dry-run"_s)->isFlag);
        QCOMPARE(find(found, u"dry-run"_s)->defaultText(), u"False"_s);
        QCOMPARE(find(found, u"dry-run"_s)->help, u"do nothing"_s);
        QCOMPARE(find(found, u"no-shuffle"_s)->defaultText(), u"True"_s);
        const ScriptParameter *v = find(found, u"v"_s);
        QCOMPARE(v->environmentVariable, u"SM_HP_V"_s);
        QCOMPARE(v->defaultText(), u"0.5"_s);
        QCOMPARE(find(found, u"seed"_s)->environmentVariable, u"SEED"_s);
        QVERIFY(!find(found, u"seed"_s)->isContract());
        QCOMPARE(find(found, u"pattern"_s)->defaultText(), u"\\d+"_s);
        QCOMPARE(find(found, u"weights"_s)->type, QString());
        QCOMPARE(find(found, u"weights"_s)->defaultText(), u"(1.0, 2.0)"_s);
        QCOMPARE(find(found, u"weights"_s)->line, 21);
    }

    // Broken and random text: whatever can be read, and never a crash or a hang.
    void brokenSourceNeverCrashes()
    {
        QCOMPARE(ferry::run::discoverScriptParameters(u"p.add_argument(\"--a\", default=(1,"_s).size(), 0);
        QCOMPARE(ferry::run::discoverScriptParameters(u"p.add_argument(\"--a\")\np.add_argument('--b"_s).size(), 1);
        QCOMPARE(ferry::run::discoverScriptParameters(u"add_argument"_s).size(), 0);
        QCOMPARE(ferry::run::discoverScriptParameters(u"p.add_argument(--)"_s).size(), 0);
        QRandomGenerator rng(7);
        const QString alphabet = u"add_argument(\"'-=,)[]{}#\\\n r f"_s;
        for (int round = 0; round < 2000; ++round) {
            QString text;
            const int length = static_cast<int>(rng.bounded(200));
            for (int i = 0; i < length; ++i)
                text += alphabet.at(static_cast<qsizetype>(rng.bounded(static_cast<int>(alphabet.size()))));
            (void)ferry::run::discoverScriptParameters(text);
        }
        const auto missing = ferry::run::discoverScriptParametersInFile(u"/nonexistent/train.py"_s);
        QVERIFY(!missing);
    }
};

FERRY_TEST_GUILESS_MAIN(TestScriptParameters)
#include "tst_scriptparameters.moc"
