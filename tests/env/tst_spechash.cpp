// The canonical hash: reordering or reformatting never changes it, any change to what goes
// into the image always does, and what only affects running (name, variables, ...) never does.
#include "env/environmentfile.h"
#include "env/spechash.h"
#include "support/testmain.h"

#include <QRandomGenerator>
#include <QRegularExpression>
#include <QTest>

#include <algorithm>

using namespace Qt::StringLiterals;
using namespace ferry::env;

namespace {

MatchSpec spec(const QString &text)
{
    const auto parsed = parseMatchSpec(text);
    if (!parsed)
        qFatal("bad MatchSpec in test: %s: %s", qPrintable(text), qPrintable(parsed.error().message));
    return *parsed;
}

PipRequirement pip(const QString &text)
{
    const auto parsed = parsePipLine(text);
    if (!parsed)
        qFatal("bad requirement in test: %s: %s", qPrintable(text), qPrintable(parsed.error().message));
    return *parsed;
}

const QStringList kPackages{u"numpy"_s,      u"scipy"_s,        u"pandas"_s, u"torch"_s,  u"requests"_s, u"pyyaml"_s,
                            u"matplotlib"_s, u"scikit-learn"_s, u"tqdm"_s,   u"pillow"_s, u"jinja2"_s,   u"click"_s};

// A random but valid environment; every dependency has a distinct name.
Environment randomEnvironment(QRandomGenerator &rng)
{
    Environment env;
    env.name = u"env%1"_s.arg(rng.bounded(1000));
    env.version = QString::number(rng.bounded(1, 20));
    env.docker.baseImage = rng.bounded(2) ? u"python:3.11-slim"_s : u"mambaorg/micromamba:1.5"_s;
    env.docker.systemPackages = QStringList{u"git"_s, u"curl"_s, u"libgl1"_s}.mid(0, rng.bounded(4));
    env.python.version = u"3.%1"_s.arg(rng.bounded(8, 13));
    env.python.channels = rng.bounded(2) ? QStringList{u"conda-forge"_s, u"defaults"_s} : QStringList{u"defaults"_s};
    QStringList names = kPackages;
    std::shuffle(names.begin(), names.end(), rng);
    const int condaCount = rng.bounded(0, 5);
    const int pipCount = rng.bounded(0, 5);
    for (int i = 0; i < condaCount; ++i)
        env.python.condaDependencies << spec(u"%1>=1.%2"_s.arg(names.at(i)).arg(rng.bounded(30)));
    for (int i = 0; i < pipCount; ++i)
        env.python.pipRequirements << pip(
            u"%1==2.%2.%3"_s.arg(names.at(condaCount + i)).arg(rng.bounded(30)).arg(rng.bounded(9)));
    return env;
}

} // namespace

class TestSpecHash : public QObject {
    Q_OBJECT
    static constexpr int kRounds = 200;

private Q_SLOTS:
    void tagIsReadableAndDeterministic()
    {
        Environment env;
        env.name = u"mnist"_s;
        env.version = u"3"_s;
        env.docker.baseImage = u"python:3.11-slim"_s;
        const QString tag = imageTag(env);
        QVERIFY2(QRegularExpression(u"^mnist-3-[0-9a-f]{8}$"_s).match(tag).hasMatch(), qPrintable(tag));
        QCOMPARE(tag.right(8), specHash(env).left(8));
        QCOMPARE(specHash(env).size(), 64);
        QCOMPARE(imageReference(env), u"ferry:"_s + tag);
        QCOMPARE(imageTag(env), tag); // no randomness, no clock
    }

    void reorderingNeverChangesTheHash()
    {
        QRandomGenerator rng(42);
        for (int round = 0; round < kRounds; ++round) {
            const Environment env = randomEnvironment(rng);
            Environment shuffled = env;
            std::shuffle(shuffled.python.condaDependencies.begin(), shuffled.python.condaDependencies.end(), rng);
            std::shuffle(shuffled.python.pipRequirements.begin(), shuffled.python.pipRequirements.end(), rng);
            std::shuffle(shuffled.docker.systemPackages.begin(), shuffled.docker.systemPackages.end(), rng);
            QCOMPARE(specHash(shuffled), specHash(env));
        }
    }

    void reformattingNeverChangesTheHash_data()
    {
        QTest::addColumn<QStringList>("a");
        QTest::addColumn<QStringList>("b");
        QTest::addColumn<bool>("pipList");
        QTest::newRow("conda spaces") << QStringList{u"numpy>=1.17"_s} << QStringList{u"numpy >=1.17"_s} << false;
        QTest::newRow("conda fuzzy") << QStringList{u"numpy=1.17"_s} << QStringList{u"numpy 1.17.*"_s} << false;
        QTest::newRow("conda brackets") << QStringList{u"numpy=1.17"_s} << QStringList{u"numpy[version='1.17.*']"_s}
                                        << false;
        QTest::newRow("conda range order")
            << QStringList{u"numpy>=1.17,<2"_s} << QStringList{u"numpy<2,>=1.17"_s} << false;
        QTest::newRow("pip case") << QStringList{u"Requests>=2"_s} << QStringList{u"requests>=2"_s} << true;
        QTest::newRow("pip separators") << QStringList{u"requests_oauthlib==1.3"_s}
                                        << QStringList{u"requests.OAuthlib==1.3"_s} << true;
        QTest::newRow("pip spaces") << QStringList{u"requests >= 2.0 , < 3"_s} << QStringList{u"requests<3,>=2.0"_s}
                                    << true;
        QTest::newRow("pip extras order")
            << QStringList{u"uvicorn[standard,dev]"_s} << QStringList{u"uvicorn[dev, standard]"_s} << true;
        QTest::newRow("pip marker quotes")
            << QStringList{u"x; python_version>='3.8'"_s} << QStringList{u"x ; python_version >= \"3.8\""_s} << true;
    }
    void reformattingNeverChangesTheHash()
    {
        QFETCH(QStringList, a);
        QFETCH(QStringList, b);
        QFETCH(bool, pipList);
        Environment first;
        first.name = u"e"_s;
        Environment second = first;
        for (const QString &text : a)
            pipList ? void(first.python.pipRequirements << pip(text))
                    : void(first.python.condaDependencies << spec(text));
        for (const QString &text : b)
            pipList ? void(second.python.pipRequirements << pip(text))
                    : void(second.python.condaDependencies << spec(text));
        QCOMPARE(specHash(second), specHash(first));
    }

    void runTimeSettingsStayOutOfTheHash()
    {
        QRandomGenerator rng(7);
        for (int round = 0; round < kRounds; ++round) {
            const Environment env = randomEnvironment(rng);
            Environment other = env;
            other.name = u"renamed"_s;
            other.version = u"99"_s;
            other.description = u"something else"_s;
            other.variables.append({u"SEED"_s, QString::number(round)});
            other.docker.runArguments << u"--ipc=host"_s;
            other.docker.shmSize = u"8g"_s;
            other.docker.gpu = GpuMode::On;
            QCOMPARE(specHash(other), specHash(env));
            QVERIFY(imageTag(other) != imageTag(env)); // but the tag names them
        }
    }

    void everyImageChangeChangesTheHash()
    {
        QRandomGenerator rng(1234);
        for (int round = 0; round < kRounds; ++round) {
            const Environment env = randomEnvironment(rng);
            const QString hash = specHash(env);
            QList<Environment> changed;
            Environment e = env;
            e.docker.baseImage += u"-bookworm"_s;
            changed << e;
            e = env;
            e.python.version += u".1"_s;
            changed << e;
            e = env;
            e.python.channels << u"bioconda"_s;
            changed << e;
            if (env.python.channels.size() > 1) {
                e = env;
                std::reverse(e.python.channels.begin(), e.python.channels.end()); // priority changed
                changed << e;
            }
            e = env;
            e.docker.systemPackages << u"ffmpeg"_s;
            changed << e;
            e = env;
            e.docker.dockerfileSteps = u"RUN true"_s;
            changed << e;
            e = env;
            e.python.pipOptions.extraIndexUrls << u"https://example.org/simple"_s;
            changed << e;
            e = env;
            e.python.devTools << u"black"_s;
            changed << e;
            for (qsizetype i = 0; i < env.python.condaDependencies.size(); ++i) {
                e = env;
                e.python.condaDependencies[i] = spec(env.python.condaDependencies[i].name + u">=9.9"_s);
                changed << e;
                e = env;
                e.python.condaDependencies.removeAt(i);
                changed << e;
            }
            for (qsizetype i = 0; i < env.python.pipRequirements.size(); ++i) {
                e = env;
                e.python.pipRequirements[i] = pip(env.python.pipRequirements[i].requirement.name + u"==9.9"_s);
                changed << e;
                e = env;
                e.python.pipRequirements[i] = pip(env.python.pipRequirements[i].requirement.name + u"[extra]"_s +
                                                  env.python.pipRequirements[i].requirement.specifier);
                changed << e;
                e = env;
                e.python.pipRequirements.removeAt(i);
                changed << e;
            }
            e = env;
            e.python.pipRequirements << pip(u"brand-new-package"_s);
            changed << e;
            for (const Environment &c : std::as_const(changed))
                QVERIFY2(specHash(c) != hash, qPrintable(canonicalImageSpec(c)));
        }
    }

    void fileReformattingKeepsTheHash()
    {
        const QString compact = u"ferry: 1\nname: a\npython:\n  conda: [numpy>=1.17, scipy]\n  pip: [requests>=2]\n"_s;
        const QString spread =
            u"\xfeff# a comment\r\nferry: 1\r\nname: a\r\n\r\npython:\r\n  pip:\r\n    - 'requests >= 2'\r\n"
            u"  conda:\r\n    - scipy\r\n    - \"numpy >=1.17\"\r\n"_s;
        const EnvironmentRead a = parseEnvironmentYaml(compact, u"a.yml"_s);
        const EnvironmentRead b = parseEnvironmentYaml(spread.mid(1), u"b.yml"_s);
        QVERIFY(!hasErrors(a.diagnostics));
        QVERIFY(!hasErrors(b.diagnostics));
        QCOMPARE(specHash(b.environment), specHash(a.environment));
    }
};

FERRY_TEST_APPLESS_MAIN(TestSpecHash)
#include "tst_spechash.moc"
