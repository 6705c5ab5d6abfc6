// The core of the editor's versions view and of secret variables (issue 7): the diff of two
// versions, versioned saves, and variables whose value is a keychain secret's name.
#include "support/env.h"
#include "support/testmain.h"

#include "common/textfile.h"
#include "env/environmentdiff.h"
#include "env/environmentfile.h"
#include "env/environmentversions.h"
#include "env/formats.h"
#include "env/imagegenerator.h"
#include "env/spechash.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace ferry::env;
using ferry::test::dataPath;
using ferry::test::describe;

namespace {

Environment read(const QString &path)
{
    const EnvironmentRead r = readEnvironment(path);
    if (hasErrors(r.diagnostics))
        qFatal("%s", qPrintable(describe(r.diagnostics)));
    return r.environment;
}

QString line(const EnvironmentChange &c)
{
    return u"%1 %2 %3: [%4] -> [%5]"_s.arg(changeKindName(c.kind), c.section, c.key, c.before, c.after);
}

QStringList lines(const QList<EnvironmentChange> &changes)
{
    QStringList out;
    for (const EnvironmentChange &c : changes)
        out << line(c);
    return out;
}

Environment minimal(const QString &name)
{
    Environment env;
    env.name = name;
    env.docker.baseImage = u"python:3.11-slim"_s;
    env.python.version = u"3.11"_s;
    return env;
}

} // namespace

class TestEnvironmentDiff : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void knownPair()
    {
        const Environment before = read(dataPath(u"versions/before.yml"_s));
        const Environment after = read(dataPath(u"versions/after.yml"_s));
        const QStringList expected{
            u"changed environment version: [3] -> [4]"_s,
            u"changed docker shm size: [2g] -> [8g]"_s,
            u"changed python channels: [pytorch conda-forge] -> [conda-forge pytorch]"_s,
            u"changed conda pytorch: [pytorch=2.1] -> [pytorch=2.2]"_s,
            u"added conda scipy: [] -> [scipy]"_s,
            u"added pip lightning: [] -> [lightning>=2]"_s,
            u"removed pip wandb: [wandb] -> []"_s,
            u"added variables HF_TOKEN: [] -> [secret: hf-token]"_s,
            u"removed variables OMP_NUM_THREADS: [4] -> []"_s,
        };
        QCOMPARE(lines(diffEnvironments(before, after)), expected);
        // The other way round: added and removed swap.
        const QStringList back = lines(diffEnvironments(after, before));
        QVERIFY(back.contains(u"removed conda scipy: [scipy] -> []"_s));
        QVERIFY(back.contains(u"added pip wandb: [] -> [wandb]"_s));
    }

    void reorderAndRespellingAreNoChange()
    {
        Environment a = read(dataPath(u"versions/before.yml"_s));
        Environment b = a;
        std::reverse(b.python.condaDependencies.begin(), b.python.condaDependencies.end());
        std::reverse(b.python.pipRequirements.begin(), b.python.pipRequirements.end());
        b.python.condaDependencies[0] = *parseMatchSpec(u"pillow  "_s);
        QVERIFY(diffEnvironments(a, b).isEmpty());
        QVERIFY(diffEnvironments(a, a).isEmpty());
    }

    void nextVersion_data()
    {
        QTest::addColumn<QStringList>("taken");
        QTest::addColumn<QString>("next");
        QTest::newRow("none") << QStringList{} << u"1"_s;
        QTest::newRow("one") << QStringList{u"1"_s} << u"2"_s;
        QTest::newRow("numbers, not text") << QStringList{u"9"_s, u"10"_s, u"2"_s} << u"11"_s;
        QTest::newRow("dotted") << QStringList{u"2024.9"_s} << u"2024.10"_s;
        QTest::newRow("word") << QStringList{u"beta"_s} << u"beta.2"_s;
    }
    void nextVersion()
    {
        QFETCH(QStringList, taken);
        QFETCH(QString, next);
        QCOMPARE(ferry::env::nextVersion(taken), next);
    }

    void saveCreatesNextVersion()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath(u"environments/demo.yml"_s);
        QDir().mkpath(dir.filePath(u"environments"_s));
        Environment v1 = minimal(u"demo"_s);
        auto saved = saveVersioned(file, v1);
        QVERIFY2(saved, saved ? "" : qPrintable(saved.error().toString()));
        QCOMPARE(saved->written.version, u"1"_s);
        QVERIFY(saved->storedVersion.isEmpty());
        const QString v1Text = *ferry::readTextFile(file);

        // A description is no new version.
        Environment described = v1;
        described.description = u"only words"_s;
        saved = saveVersioned(file, described);
        QVERIFY(saved);
        QCOMPARE(saved->written.version, u"1"_s);
        QVERIFY(storedVersions(file).isEmpty());
        const QString describedText = *ferry::readTextFile(file);

        // A new dependency under the same name and version: version 2, version 1 kept as it was.
        Environment v2 = described;
        v2.python.pipRequirements << *parsePipLine(u"requests>=2"_s);
        saved = saveVersioned(file, v2);
        QVERIFY(saved);
        QCOMPARE(saved->written.version, u"2"_s);
        QCOMPARE(saved->storedVersion, u"1"_s);
        QCOMPARE(read(file).version, u"2"_s);
        QCOMPARE(read(file).python.pipRequirements.size(), 1);
        QList<StoredVersion> stored = storedVersions(file);
        QCOMPARE(stored.size(), 1);
        QCOMPARE(stored.first().version, u"1"_s);
        QCOMPARE(*ferry::readTextFile(stored.first().path), describedText);
        QVERIFY(v1Text != describedText);

        // Saving the same again changes nothing.
        saved = saveVersioned(file, saved->written);
        QVERIFY(saved);
        QCOMPARE(saved->written.version, u"2"_s);
        QCOMPARE(storedVersions(file).size(), 1);

        // Back to version 1's spec under its old number: version 1 is taken, so it becomes 3.
        saved = saveVersioned(file, described);
        QVERIFY(saved);
        QCOMPARE(saved->written.version, u"3"_s);
        stored = storedVersions(file);
        QCOMPARE(stored.size(), 2);
        QCOMPARE(stored.at(1).version, u"2"_s);

        // Another environment's file is overwritten, not versioned.
        saved = saveVersioned(file, minimal(u"other"_s));
        QVERIFY(saved);
        QCOMPARE(saved->written.version, u"1"_s);
        QCOMPARE(storedVersions(file).size(), 2);
    }

    void secretVariablesRoundTrip()
    {
        const Environment env = read(dataPath(u"versions/after.yml"_s));
        QCOMPARE(env.secretVariables, QStringList{u"HF_TOKEN"_s});
        QVERIFY(env.variables.contains(std::pair{u"HF_TOKEN"_s, u"hf-token"_s}));
        const QString text = writeEnvironmentYaml(env);
        QVERIFY2(text.contains(u"HF_TOKEN: {secret: hf-token}"_s), qPrintable(text));
        QVERIFY2(text.contains(u"WANDB_MODE: offline"_s), qPrintable(text));
        const EnvironmentRead again = parseEnvironmentYaml(text, u"again.yml"_s);
        QVERIFY2(!hasErrors(again.diagnostics), qPrintable(describe(again.diagnostics)));
        QCOMPARE(again.environment, env);
    }

    void secretVariablesNeverLeakAsValues()
    {
        Environment env = read(dataPath(u"versions/after.yml"_s));
        Environment plain = env;
        plain.secretVariables.clear();
        // Variables are never baked into the image: marking one secret leaves the hash alone.
        QCOMPARE(specHash(env), specHash(plain));
        QVERIFY(env != plain);

        const Export conda = exportEnvironment(env, Format::Conda, {});
        QVERIFY2(!conda.files.first().text.contains(u"hf-token"_s), qPrintable(conda.files.first().text));
        QVERIFY(conda.files.first().text.contains(u"WANDB_MODE"_s));
        QVERIFY2(describe(conda.diagnostics).contains(u"HF_TOKEN is a keychain secret"_s),
                 qPrintable(describe(conda.diagnostics)));
        const Export azure = exportEnvironment(env, Format::AzureMlV1, {});
        QVERIFY(!azure.files.first().text.contains(u"hf-token"_s));
        const QString devcontainer = generateDevcontainerJson(env);
        QVERIFY2(!devcontainer.contains(u"HF_TOKEN"_s), qPrintable(devcontainer));
        QVERIFY(devcontainer.contains(u"WANDB_MODE"_s));
        // What a run is given from the file: never the secret's name as its value.
        const Environment plainOnly = env.withoutSecretVariables();
        QCOMPARE(plainOnly.variables.size(), env.variables.size() - 1);
        for (const auto &[name, value] : plainOnly.variables)
            QVERIFY(name != u"HF_TOKEN"_s && value != u"hf-token"_s);
        QVERIFY(plainOnly.secretVariables.isEmpty());
        // Ferry's own file keeps the reference.
        QVERIFY(exportEnvironment(env, Format::Ferry, {}).files.first().text.contains(u"{secret: hf-token}"_s));
    }

    void secretVariableErrors()
    {
        const EnvironmentRead bad = readEnvironment(dataPath(u"versions/secret-bad.yml"_s));
        QVERIFY(hasErrors(bad.diagnostics));
        const Diagnostic &d = bad.diagnostics.first();
        QCOMPARE(d.where.line, 4);
        QVERIFY2(d.where.message.contains(u"{secret: NAME}"_s), qPrintable(d.toString()));

        Environment env = minimal(u"x"_s);
        env.variables.append({u"TOKEN"_s, u""_s});
        env.secretVariables << u"TOKEN"_s;
        Diagnostics diagnostics;
        validateEnvironment(env, u"x.yml"_s, diagnostics);
        QVERIFY2(describe(diagnostics).contains(u"secret variable 'TOKEN' names no keychain secret"_s),
                 qPrintable(describe(diagnostics)));
    }

    void mergeKeepsSecrecy()
    {
        Environment into = minimal(u"a"_s);
        into.variables.append({u"TOKEN"_s, u"plain"_s});
        Environment more = minimal(u"b"_s);
        more.variables.append({u"TOKEN"_s, u"my-token"_s});
        more.secretVariables << u"TOKEN"_s;
        Diagnostics diagnostics;
        mergeEnvironment(into, more, u"more.yml"_s, diagnostics);
        QCOMPARE(into.variables.size(), 1);
        QCOMPARE(into.variables.first().second, u"my-token"_s);
        QCOMPARE(into.secretVariables, QStringList{u"TOKEN"_s});
        QCOMPARE(into.name, u"a"_s);
    }
};

FERRY_TEST_APPLESS_MAIN(TestEnvironmentDiff)
#include "tst_environmentdiff.moc"
