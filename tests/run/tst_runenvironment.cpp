// run::applyEnvironment, the one way an environment file reaches a run (`ferry run --env` and
// the window's launch): the file and its image tag, its plain variables, its secret variables
// as keychain names only (one given at launch wins), and its interpreter where this machine
// has it. Before, only the command line adopted the interpreter (review 2026-12-01 §4).
#include "env/formats.h"
#include "env/spechash.h"
#include "run/runenvironment.h"
#include "support/testmain.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace ferry;

namespace {

env::Environment environmentFrom(const QTemporaryDir &dir, const QByteArray &yaml)
{
    const QString path = dir.filePath(u"env.yml"_s);
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(yaml) != yaml.size())
        return {};
    f.close();
    const env::EnvironmentRead read = env::readEnvironment(path);
    if (env::hasErrors(read.diagnostics))
        qWarning("%s", qPrintable(read.diagnostics.first().toString()));
    return read.environment;
}

} // namespace

class TestRunEnvironment : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

private Q_SLOTS:
    void appliesTagVariablesSecretNamesAndInterpreter()
    {
        const env::Environment environment =
            environmentFrom(m_dir, "ferry: 1\nname: host\npython:\n  interpreter: /usr/bin/python3\n"
                                   "  user_managed: true\nvariables:\n  GREETING: hello\n"
                                   "  HF_TOKEN: {secret: hf-token}\n  WANDB_KEY: {secret: wandb}\n");
        QCOMPARE(environment.name, u"host"_s);
        run::RunSpec spec;
        spec.secretVariables = {{u"WANDB_KEY"_s, u"my-wandb"_s}}; // --secret-env: wins over the file's
        run::applyEnvironment(spec, environment, u"/work/environments/host.yml"_s);
        QCOMPARE(spec.environmentFile, u"/work/environments/host.yml"_s);
        QCOMPARE(spec.environmentTag, env::imageTag(environment));
        QCOMPARE(spec.variables, (QList<std::pair<QString, QString>>{{u"GREETING"_s, u"hello"_s}}));
        QCOMPARE(spec.secretVariables,
                 (QList<std::pair<QString, QString>>{{u"HF_TOKEN"_s, u"hf-token"_s}, {u"WANDB_KEY"_s, u"my-wandb"_s}}));
        QCOMPARE(spec.interpreter, u"/usr/bin/python3"_s);
    }

    void anInterpreterThisMachineLacksIsNotAdopted()
    {
        const env::Environment environment = environmentFrom(
            m_dir, "ferry: 1\nname: image\npython:\n  interpreter: /opt/nowhere/bin/python\n  user_managed: true\n");
        run::RunSpec spec;
        run::applyEnvironment(spec, environment, u"image.yml"_s);
        QCOMPARE(spec.interpreter, run::RunSpec().interpreter);
    }
};

FERRY_TEST_APPLESS_MAIN(TestRunEnvironment)
#include "tst_runenvironment.moc"
