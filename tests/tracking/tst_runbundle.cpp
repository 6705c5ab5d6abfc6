// `ferry runs export ID --bundle` / `ferry runs import` through the built binary, between two
// workspaces, with a real run of a script (run to its end): the imported run is the run as it was
// (record, parameters, every metric point to the bit, log, model, snapshot files), the source
// workspace can be gone, `ferry runs diff` compares it with a run of the new workspace, and
// `ferry runs rerun` runs its code there. Secret-like files are left out and said so, or kept
// when asked. So are (review 2026-12-06 N7) the environment's variable values and this machine's
// paths: the spec travels without them unless `--include-values`, and what was left out is said
// on stderr and listed in the manifest; the import takes such a bundle as any other.
#include "run/archive.h"
#include "snapshot/snapshot.h"
#include "support/cli.h"
#include "support/files.h"
#include "support/testmain.h"
#include "tracking/runbundle.h"

#include <QDir>
#include <QDirIterator>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace ferry;

namespace {

// Values that a careless text form would round: thirds, 0.1 + 0.2, a subnormal, a huge step.
const char *const kScript = R"(import argparse, json, os
p = argparse.ArgumentParser()
p.add_argument("--lr", type=float)
a = p.parse_args()
print("version A, lr", a.lr)
for step in range(1, 6):
    print(json.dumps({"step": step, "epoch": step / 3, "loss": a.lr / step / 3, "acc": 0.1 + 0.2 * step}))
print(json.dumps({"step": 12345678901, "tiny": 5e-324, "big": 1.7976931348623157e308}))
model = os.environ.get("SM_MODEL_DIR", "model")
os.makedirs(model, exist_ok=True)
with open(os.path.join(model, "weights.bin"), "w") as f:
    f.write("weights of A")
)";

QString runScript(const QString &ws, const QString &lr)
{
    const auto r = test::runFerry(ws, {u"run"_s, u"train.py"_s, u"--hp"_s, u"lr="_s + lr, u"--follow"_s});
    if (r.exitCode != 0)
        qWarning("ferry run: %s", qPrintable(r.err));
    const auto list = test::runFerry(ws, {u"runs"_s, u"list"_s, u"--json"_s});
    return test::jsonArray(list).first()[u"id"_s].toString();
}

// The source folder of run A: code in folders, and secret-like files beside it.
QMap<QString, QByteArray> sourceFiles()
{
    return {{u"train.py"_s, kScript},
            {u"src/util.py"_s, "def helper():\n    return 1\n"},
            {u"README.md"_s, "notes\n"},
            {u".env"_s, "API_KEY=sk-live-1234\n"},
            {u"keys/id_rsa"_s, "-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n"},
            {u"config/server.pem"_s, "-----BEGIN CERTIFICATE-----\n"},
            {u"config/settings.yaml"_s, "depth: 3\n"}};
}

const QStringList kSecrets{u".env"_s, u"config/server.pem"_s, u"keys/id_rsa"_s};

// The imported run's snapshot, file by file, read from the workspace's object store.
QMap<QString, QByteArray> snapshotFiles(const QString &ws, const QString &runId)
{
    const auto show = test::runFerry(ws, {u"runs"_s, u"show"_s, runId, u"--json"_s});
    const QString tree = test::jsonObject(show)[u"spec"_s][u"snapshot"_s][u"tree"_s].toString();
    const snapshot::ObjectStore store(ws + u"/.ferry/objects"_s);
    QMap<QString, QByteArray> out;
    const auto files = store.files(tree);
    if (!files)
        return out;
    for (auto it = files->cbegin(); it != files->cend(); ++it)
        out.insert(it.key(), store.get(it.value().hash).value());
    return out;
}

QJsonObject withoutSnapshot(QJsonObject spec)
{
    spec.remove(u"snapshot"_s);
    return spec;
}

} // namespace

class TestRunBundle : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString alice() const { return m_dir.filePath(u"alice/project"_s); }
    QString bob() const { return m_dir.filePath(u"bob/work"_s); }

private Q_SLOTS:
    void aRunTravelsToAnotherWorkspaceAsItWas()
    {
        const QMap<QString, QByteArray> files = sourceFiles();
        for (auto it = files.cbegin(); it != files.cend(); ++it)
            test::writeFileOrStop(alice() + u'/' + it.key(), it.value());
        const QString a = runScript(alice(), u"0.01"_s);
        QVERIFY(!a.isEmpty());
        const auto showA = test::runFerry(alice(), {u"runs"_s, u"show"_s, a, u"--json"_s});
        const QJsonObject before = test::jsonObject(showA);
        QCOMPARE(before[u"status"_s].toString(), u"succeeded"_s);
        const QString csvA = test::runFerry(alice(), {u"runs"_s, u"metrics"_s, a, u"--csv"_s}).out;
        QVERIFY2(csvA.count(u'\n') > 10 && csvA.contains(u"5e-324"_s), qPrintable(csvA));
        const QByteArray logA = test::readFile(alice() + u"/.ferry/runs/"_s + a + u"/log"_s);
        const QByteArray modelA = test::readFile(alice() + u"/.ferry/runs/"_s + a + u"/model.tar.gz"_s);
        QVERIFY(logA.contains("version A") && !modelA.isEmpty());

        // Its tags and note travel with it.
        QCOMPARE(test::runFerry(alice(), {u"runs"_s, u"tag"_s, a, u"baseline"_s, u"paper/fig3"_s}).exitCode, 0);
        QCOMPARE(test::runFerry(alice(), {u"runs"_s, u"note"_s, a, u"lr from the paper"_s}).exitCode, 0);
        const QJsonObject tagged = test::jsonObject(test::runFerry(alice(), {u"runs"_s, u"show"_s, a, u"--json"_s}));

        const QString bundle = m_dir.filePath(u"run.tar.gz"_s);
        const auto exported = test::runFerry(alice(), {u"runs"_s, u"export"_s, a, u"--bundle"_s, bundle});
        QVERIFY2(exported.exitCode == 0, qPrintable(exported.err));
        // The secret-like files are named on stderr, and only they.
        QVERIFY2(exported.err.contains(u"left out of the bundle as secret-like"_s), qPrintable(exported.err));
        for (const QString &secret : kSecrets)
            QVERIFY2(exported.err.contains(secret), qPrintable(exported.err));
        QVERIFY2(!exported.err.contains(u"settings.yaml"_s), qPrintable(exported.err));
        const QString withSecrets = m_dir.filePath(u"with-secrets.tar.gz"_s);
        // Of the spec, this machine's path to the source folder (its name is kept).
        QVERIFY2(exported.err.contains(u"left out of the bundle as this machine's (--include-values keeps "
                                       u"them): sourceDir"_s),
                 qPrintable(exported.err));
        const auto kept = test::runFerry(alice(), {u"runs"_s, u"export"_s, a, u"--bundle"_s, withSecrets,
                                                   u"--include-secrets"_s, u"--include-values"_s});
        QVERIFY2(kept.exitCode == 0 && !kept.err.contains(u"left out"_s), qPrintable(kept.err));

        // Bob's workspace has a run of its own, of other code; Alice's is gone altogether.
        QByteArray other = kScript;
        other.replace("version A", "version B");
        test::writeFileOrStop(bob() + u"/train.py"_s, other);
        const QString b = runScript(bob(), u"0.02"_s);
        QVERIFY(!b.isEmpty());
        QVERIFY(QDir(m_dir.filePath(u"alice"_s)).removeRecursively());

        const auto imported = test::runFerry(m_dir.path(), {u"runs"_s, u"import"_s, bundle, u"--workspace"_s, bob()});
        QVERIFY2(imported.exitCode == 0, qPrintable(imported.err));
        QCOMPARE(imported.out.trimmed(), a);
        QVERIFY2(imported.err.contains(u".env"_s), qPrintable(imported.err)); // the note of what is not there

        // As it was: the record, the parameters, the artifacts, the spec (but the code's tree,
        // which lacks the secrets), every point to the bit, the log and the model.
        const QJsonObject after = test::jsonObject(test::runFerry(bob(), {u"runs"_s, u"show"_s, a, u"--json"_s}));
        for (const char *key : {"status", "exitCode", "target", "startedMs", "finishedMs", "createdMs", "name",
                                "params", "artifacts", "lastMetrics", "error"})
            QCOMPARE(after[QLatin1String(key)], before[QLatin1String(key)]);
        QCOMPARE(after[u"tags"_s].toArray(), (QJsonArray{u"baseline"_s, u"paper/fig3"_s}));
        QCOMPARE(after[u"note"_s].toString(), u"lr from the paper"_s);
        QCOMPARE(after[u"tags"_s], tagged[u"tags"_s]);
        // The spec as data (tracking/foreignrun.h): what a rerun may reuse kept, Alice's source
        // folder and interpreter kept aside as the original's, never applied.
        const QJsonObject specBefore = before[u"spec"_s].toObject(), specAfter = after[u"spec"_s].toObject();
        for (const char *key : {"id", "script", "arguments", "hyperparameters", "environmentSpec", "ferryVersion"})
            QCOMPARE(specAfter[QLatin1String(key)], specBefore[QLatin1String(key)]);
        QCOMPARE(specAfter[u"sourceDir"_s].toString(), QString());
        const QJsonObject importedAs = specAfter[u"imported"_s].toObject();
        QCOMPARE(importedAs[u"bundle"_s].toString(), QFileInfo(bundle).fileName());
        // The source folder travels by its name only (review N7), and is kept aside here.
        QCOMPARE(importedAs[u"original"_s][u"sourceDir"_s].toString(), u"project"_s);
        QCOMPARE(withoutSnapshot(specAfter)[u"target"_s][u"options"_s].toObject(), QJsonObject());
        QCOMPARE(test::runFerry(bob(), {u"runs"_s, u"metrics"_s, a, u"--csv"_s}).out, csvA);
        QCOMPARE(test::readFile(bob() + u"/.ferry/runs/"_s + a + u"/log"_s), logA);
        QCOMPARE(test::readFile(bob() + u"/.ferry/runs/"_s + a + u"/model.tar.gz"_s), modelA);
        QMap<QString, QByteArray> expected = sourceFiles();
        for (const QString &secret : kSecrets)
            expected.remove(secret);
        QCOMPARE(snapshotFiles(bob(), a), expected);

        // Compared with Bob's own run: the one changed line and the parameter.
        const auto diff = test::runFerry(bob(), {u"runs"_s, u"diff"_s, a, b});
        QVERIFY2(diff.exitCode == 0, qPrintable(diff.err));
        QVERIFY2(diff.out.contains(u"  lr: 0.01 → 0.02\n"_s), qPrintable(diff.out));
        QVERIFY2(diff.out.contains(u"\n-print(\"version A, lr\", a.lr)\n+print(\"version B, lr\", a.lr)\n"_s),
                 qPrintable(diff.out));

        // Run again in Bob's workspace from the imported code: said first, started once Bob
        // accepts it (--accept-foreign), and then the first version's output.
        const auto asked = test::runFerry(bob(), {u"runs"_s, u"rerun"_s, a, u"--follow"_s});
        QCOMPARE(asked.exitCode, 1);
        QVERIFY2(asked.err.contains(u"came from elsewhere"_s) && asked.err.contains(u"script: train.py"_s) &&
                     asked.err.contains(u"--accept-foreign"_s),
                 qPrintable(asked.err));
        QCOMPARE(QDir(bob() + u"/.ferry/reruns"_s).entryList(QDir::Dirs | QDir::NoDotAndDotDot), QStringList());
        const auto rerun = test::runFerry(bob(), {u"runs"_s, u"rerun"_s, a, u"--follow"_s, u"--accept-foreign"_s});
        QVERIFY2(rerun.exitCode == 0, qPrintable(rerun.err));
        QVERIFY2(rerun.out.contains(u"version A, lr 0.01"_s), qPrintable(rerun.out));
        QVERIFY2(rerun.err.contains(bob()), qPrintable(rerun.err)); // its code written in the workspace

        // The same bundle again: the run is there already; nothing changes.
        const auto again = test::runFerry(bob(), {u"runs"_s, u"import"_s, bundle});
        QCOMPARE(again.exitCode, 1);
        QVERIFY2(again.err.contains(u"is in this workspace already"_s), qPrintable(again.err));
        QCOMPARE(test::runFerry(bob(), {u"runs"_s, u"metrics"_s, a, u"--csv"_s}).out, csvA);

        // With --include-secrets, the secret-like files travel too.
        const QString carol = m_dir.filePath(u"carol"_s);
        QVERIFY(QDir().mkpath(carol));
        const auto withAll = test::runFerry(carol, {u"runs"_s, u"import"_s, withSecrets});
        QVERIFY2(withAll.exitCode == 0 && !withAll.err.contains(u"note:"_s), qPrintable(withAll.err));
        QCOMPARE(snapshotFiles(carol, a), sourceFiles());
        QCOMPARE(test::runFerry(carol, {u"runs"_s, u"metrics"_s, a, u"--csv"_s}).out, csvA);
    }

    // N7: a run of an environment whose variables hold a token and a path, with a data channel:
    // the bundle carries the variables' names without their values, no path of this machine, and
    // says so; imported, the run is there with what the bundle had. `--include-values` keeps all.
    void valuesAndLocalPathsStayHomeUnlessAsked()
    {
        QTemporaryDir dir;
        const QString home = dir.filePath(u"alice-home"_s);
        const QString ws = home + u"/project"_s;
        test::writeFileOrStop(ws + u"/train.py"_s, "import os\nprint('token set:', bool(os.environ['API_TOKEN']))\n");
        test::writeFileOrStop(ws + u"/environments/local.yml"_s,
                              "ferry: 1\nname: n7-local\npython:\n  interpreter: /usr/bin/python3\n"
                              "  user_managed: true\nvariables:\n  API_TOKEN: tok-5f3a9c1e77\n"
                              "  DATA_ROOT: " +
                                  home.toUtf8() + "/datasets\n");
        test::writeFileOrStop(home + u"/datasets/train.csv"_s, "a,b\n1,2\n");
        const auto ran = test::runFerry(ws, {u"run"_s, u"train.py"_s, u"--env"_s, u"environments/local.yml"_s,
                                             u"--data"_s, u"training="_s + home + u"/datasets"_s, u"--follow"_s});
        QVERIFY2(ran.exitCode == 0 && ran.out.contains(u"token set: True"_s), qPrintable(ran.err + ran.out));
        const QString id =
            test::jsonArray(test::runFerry(ws, {u"runs"_s, u"list"_s, u"--json"_s})).first()[u"id"_s].toString();

        const QString bundle = dir.filePath(u"run.tar.gz"_s);
        const auto exported = test::runFerry(ws, {u"runs"_s, u"export"_s, id, u"--bundle"_s, bundle});
        QVERIFY2(exported.exitCode == 0, qPrintable(exported.err));
        const QStringList leftOut{u"variables.API_TOKEN"_s,
                                  u"variables.DATA_ROOT"_s,
                                  u"environmentSpec.variables.API_TOKEN"_s,
                                  u"environmentSpec.variables.DATA_ROOT"_s,
                                  u"environmentSpec.python.interpreter"_s,
                                  u"sourceDir"_s,
                                  u"environmentFile"_s,
                                  u"channels.training"_s,
                                  u"data.training.path"_s,
                                  u"interpreter"_s,
                                  u"snapshot:environments/local.yml"_s};
        QVERIFY2(exported.err.contains(u"left out of the bundle as this machine's (--include-values keeps them): "_s +
                                       leftOut.join(u", "_s)),
                 qPrintable(exported.err));
        const QByteArray specText = *run::readArchiveFile(bundle, u"spec.json"_s);
        const QJsonObject manifest =
            QJsonDocument::fromJson(*run::readArchiveFile(bundle, u"ferry-bundle.json"_s)).object();
        QCOMPARE(manifest[u"valuesLeftOut"_s].toArray(), QJsonArray::fromStringList(leftOut));
        QCOMPARE(manifest[u"valuesIncluded"_s].toBool(), false);
        QVERIFY2(!specText.contains(home.toUtf8()) && !specText.contains("alice-home"), specText.constData());
        // Nowhere in the bundle: the token.
        const auto entries = run::archiveEntries(bundle);
        QVERIFY(entries);
        for (const QString &entry : *entries)
            QVERIFY2(!run::readArchiveFile(bundle, entry)->contains("tok-5f3a9c1e77"), qPrintable(entry));
        const QJsonObject spec = QJsonDocument::fromJson(specText).object();
        QCOMPARE(spec[u"sourceDir"_s].toString(), u"project"_s);
        QCOMPARE(spec[u"variables"_s].toArray(),
                 (QJsonArray{QJsonObject{{u"name"_s, u"API_TOKEN"_s}, {u"value"_s, QString()}},
                             QJsonObject{{u"name"_s, u"DATA_ROOT"_s}, {u"value"_s, QString()}}}));
        QVERIFY2(spec[u"environmentSpec"_s].toString().contains(u"API_TOKEN: \"\""_s) ||
                     spec[u"environmentSpec"_s].toString().contains(u"API_TOKEN: ''"_s),
                 qPrintable(spec[u"environmentSpec"_s].toString()));
        QCOMPARE(spec[u"data"_s][0][u"channel"_s].toString(), u"training"_s);
        QVERIFY(spec[u"data"_s][0][u"fingerprint"_s].toString().startsWith(u"fp1:"_s));

        // Asked for, everything travels.
        const QString all = dir.filePath(u"all.tar.gz"_s);
        const auto withValues =
            test::runFerry(ws, {u"runs"_s, u"export"_s, id, u"--bundle"_s, all, u"--include-values"_s});
        QVERIFY2(withValues.exitCode == 0 && !withValues.err.contains(u"as this machine's"_s),
                 qPrintable(withValues.err));
        const QByteArray allSpec = *run::readArchiveFile(all, u"spec.json"_s);
        QVERIFY(allSpec.contains("tok-5f3a9c1e77") && allSpec.contains(home.toUtf8()));
        const QJsonObject allManifest =
            QJsonDocument::fromJson(*run::readArchiveFile(all, u"ferry-bundle.json"_s)).object();
        QCOMPARE(allManifest[u"valuesLeftOut"_s].toArray(), QJsonArray());
        QCOMPARE(allManifest[u"valuesIncluded"_s].toBool(), true);

        // Imported elsewhere, the run is there with what the bundle had.
        QVERIFY(QDir(home).removeRecursively());
        const QString bob = dir.filePath(u"bob"_s);
        QVERIFY(QDir().mkpath(bob));
        const auto imported = test::runFerry(bob, {u"runs"_s, u"import"_s, bundle});
        QVERIFY2(imported.exitCode == 0, qPrintable(imported.err));
        const QJsonObject shown = test::jsonObject(test::runFerry(bob, {u"runs"_s, u"show"_s, id, u"--json"_s}));
        QCOMPARE(shown[u"status"_s].toString(), u"succeeded"_s);
        // Its variables kept aside as the original's (tracking/foreignrun.h), their values not there.
        QCOMPARE(shown[u"spec"_s][u"imported"_s][u"original"_s][u"variables"_s].toArray(),
                 spec[u"variables"_s].toArray());
        QCOMPARE(shown[u"spec"_s][u"variables"_s].toArray(), QJsonArray());
        QCOMPARE(shown[u"spec"_s][u"channels"_s].toArray(), QJsonArray());
    }

    // The same rule on what only a unit test can name: an SSH key's and an engine's paths.
    void specForBundleLeavesOutKeysAndEngines()
    {
        run::RunSpec spec;
        spec.id = u"r1"_s;
        spec.script = u"train.py"_s;
        spec.sourceDir = u"/home/alice/project/"_s;
        spec.interpreter = u"python3"_s;
        spec.target.kind = run::TargetKind::Ssh;
        spec.target.host = u"gpu1"_s;
        spec.target.options = {{u"identityFile"_s, u"/home/alice/.ssh/id_gpu"_s},
                               {u"engine"_s, u"/opt/docker/bin/docker"_s},
                               {u"gpus"_s, 2}};
        QStringList leftOut;
        const run::RunSpec bundled = run::specForBundle(spec, leftOut);
        QCOMPARE(leftOut, (QStringList{u"sourceDir"_s, u"target.options.identityFile"_s, u"target.options.engine"_s}));
        QCOMPARE(bundled.sourceDir, u"project"_s);
        QCOMPARE(bundled.interpreter, u"python3"_s);
        QCOMPARE(bundled.target.options, (QJsonObject{{u"gpus"_s, 2}}));
        spec.target.options = {{u"engine"_s, u"podman"_s}}; // a name says nothing of this machine
        leftOut.clear();
        QCOMPARE(run::specForBundle(spec, leftOut).target.options, spec.target.options);
    }

    void onlyAnEndedRunIsBundledAndBadRequestsAreSaid()
    {
        QTemporaryDir dir;
        const auto none = test::runFerry(dir.path(), {u"runs"_s, u"import"_s});
        QCOMPARE(none.exitCode, 1);
        QVERIFY2(none.err.contains(u"name the bundle"_s), qPrintable(none.err));
        const auto missing = test::runFerry(dir.path(), {u"runs"_s, u"import"_s, dir.filePath(u"nope.tar.gz"_s)});
        QCOMPARE(missing.exitCode, 1);
        QVERIFY2(missing.err.contains(u"no such file"_s), qPrintable(missing.err));
        test::writeFileOrStop(dir.filePath(u"train.py"_s), "print('hi')\n");
        const QString id = runScript(dir.path(), u"0.1"_s);
        const auto both = test::runFerry(
            dir.path(), {u"runs"_s, u"export"_s, id, u"--bundle"_s, u"x.tar.gz"_s, u"--to"_s, u"azureml"_s});
        QCOMPARE(both.exitCode, 1);
        QVERIFY2(both.err.contains(u"--bundle or --to, not both"_s), qPrintable(both.err));
        QVERIFY(!QFileInfo::exists(dir.filePath(u"x.tar.gz"_s)));
    }
};

FERRY_TEST_GUILESS_MAIN(TestRunBundle)
#include "tst_runbundle.moc"
