// Secrets reaching a run (support/keyring.h: a real gnome-keyring): `ferry run --secret-env`
// gives the script its environment variable, read from the keychain by the supervisor; the
// canary sweep then finds the value nowhere Ferry writes (run store, run folder, spec, log,
// settings) nor in any process's command line while the run goes.
#include "support/files.h"
#include "support/keyring.h"
#include "support/testenv.h"

#include "secrets/secretstore.h"
#include "targets/targetfactory.h"
#include "tracking/runlauncher.h"

#include <QCryptographicHash>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSettings>
#include <QTemporaryDir>

using namespace Qt::StringLiterals;
using namespace ferry;

namespace {

// Prints the hash of its token, then waits --sleep seconds, or until the file --release names
// exists (the test says when it has looked at the running script).
const QByteArray kTokenScript =
    "import hashlib, json, os, sys, time\n"
    "value = os.environ['HF_TOKEN']\n"
    "print(json.dumps({'token_sha256': hashlib.sha256(value.encode()).hexdigest()}), flush=True)\n"
    "release = sys.argv[sys.argv.index('--release') + 1] if '--release' in sys.argv else None\n"
    "end = time.time() + float(sys.argv[sys.argv.index('--sleep') + 1])\n"
    "while time.time() < end and not (release and os.path.exists(release)):\n"
    "    time.sleep(0.05)\n";

} // namespace

class TestSecretRun : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_ws;
    const QString m_canary = u"canary-run-8c41d2a7-secret"_s;

    struct Result {
        int exitCode = -1;
        QString out;
        QString err;
    };
    Result ferry(const QStringList &arguments) const
    {
        QProcess process;
        process.setWorkingDirectory(m_ws.path());
        process.start(ferry::test::ferryBinary(), arguments);
        process.waitForFinished(120000);
        return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
                QString::fromUtf8(process.readAllStandardOutput()), QString::fromUtf8(process.readAllStandardError())};
    }

    QStringList filesWithCanary(const QString &root) const { return ferry::test::filesHolding(root, m_canary); }

private Q_SLOTS:
    void initTestCase()
    {
        QFile script(m_ws.filePath(u"uses_token.py"_s));
        QVERIFY(script.open(QIODevice::WriteOnly));
        script.write(kTokenScript);
        script.close();
        QSettings settings; // the same settings the ferry processes use (XDG_CONFIG_HOME)
        secrets::SecretStore store(settings);
        QVERIFY(store.writeNow(u"CANARY_TOKEN"_s, m_canary));
    }

    void secretReachesTheScriptAndNothingElse()
    {
        const QString release = m_ws.filePath(u"release"_s);
        const Result started = ferry({u"run"_s, u"uses_token.py"_s, u"--secret-env"_s, u"HF_TOKEN=CANARY_TOKEN"_s,
                                      u"--hp"_s, u"sleep=120"_s, u"--hp"_s, u"release="_s + release});
        QVERIFY2(started.exitCode == 0, qPrintable(started.err));
        const QString id = started.out.trimmed();
        const QString runDir = m_ws.filePath(u".ferry/runs/"_s + id);
        const QByteArray expected = QCryptographicHash::hash(m_canary.toUtf8(), QCryptographicHash::Sha256).toHex();
        // While the script runs (it has its token, and waits for the release): no command line
        // shows the value.
        QTRY_VERIFY2_WITH_TIMEOUT(ferry::test::readFile(runDir + u"/log"_s).contains(expected),
                                  "the script did not get the secret", 60000);
        QProcess ps;
        ps.start(u"ps"_s, {u"-eo"_s, u"args"_s});
        QVERIFY(ps.waitForFinished());
        const QString processes = QString::fromUtf8(ps.readAllStandardOutput());
        QVERIFY(processes.contains(u"uses_token.py"_s));
        QVERIFY(!processes.contains(m_canary));

        QVERIFY(ferry::test::writeFile(release, {}));
        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(runDir + u"/exit.json"_s), 60000);
        const Result show = ferry({u"runs"_s, u"show"_s, id, u"--json"_s});
        QCOMPARE(QJsonDocument::fromJson(show.out.toUtf8()).object()[u"status"_s].toString(), u"succeeded"_s);
        // The run's spec keeps which secret the variable came from (what a rerun asks the
        // keychain for): its name, and not its value (the sweep below reads spec.json too).
        const auto spec =
            run::RunSpec::fromJson(QJsonDocument::fromJson(ferry::test::readFile(runDir + u"/spec.json"_s)).object());
        QVERIFY2(spec, qPrintable(spec ? QString() : spec.error().toString()));
        QCOMPARE(spec->secretVariables, (QList<std::pair<QString, QString>>{{u"HF_TOKEN"_s, u"CANARY_TOKEN"_s}}));

        // The sweep: the workspace (run store, run folder, spec, log) and the settings.
        QVERIFY2(filesWithCanary(m_ws.path()).isEmpty(), qPrintable(filesWithCanary(m_ws.path()).join(u", "_s)));
        const QString config = qEnvironmentVariable("XDG_CONFIG_HOME");
        if (!config.isEmpty())
            QVERIFY2(filesWithCanary(config).isEmpty(), qPrintable(filesWithCanary(config).join(u", "_s)));
    }

    // A script that prints its secret: what `ferry run --follow` shows has "***" instead.
    void followedOutputIsRedacted()
    {
        QTemporaryDir ws;
        QFile script(ws.filePath(u"leaks.py"_s));
        QVERIFY(script.open(QIODevice::WriteOnly));
        script.write("import os\nprint('token is ' + os.environ['HF_TOKEN'])\n");
        script.close();
        QProcess process;
        process.setWorkingDirectory(ws.path());
        process.start(ferry::test::ferryBinary(),
                      {u"run"_s, u"leaks.py"_s, u"--secret-env"_s, u"HF_TOKEN=CANARY_TOKEN"_s, u"--follow"_s});
        QVERIFY(process.waitForFinished(120000));
        const QString out = QString::fromUtf8(process.readAllStandardOutput());
        QCOMPARE(process.exitCode(), 0);
        QVERIFY2(out.contains(u"token is ***"_s), qPrintable(out));
        QVERIFY(!out.contains(m_canary));
    }

    void missingSecretFailsBeforeTheRun()
    {
        const Result r = ferry({u"run"_s, u"uses_token.py"_s, u"--secret-env"_s, u"HF_TOKEN=NOT_STORED"_s});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(u"--secret-env HF_TOKEN: no secret named 'NOT_STORED'"_s), qPrintable(r.err));
        QVERIFY(r.out.isEmpty()); // no run id: nothing started
    }

    // An environment file's secret variable whose secret is not in the keychain: nothing starts,
    // and the message names the file, the variable, the secret and how to store it.
    void missingEnvironmentSecretFailsBeforeTheRun()
    {
        QFile env(m_ws.filePath(u"needs-token.yml"_s));
        QVERIFY(env.open(QIODevice::WriteOnly));
        env.write("ferry: 1\nname: needs-token\npython:\n  interpreter: /usr/bin/python3\n  user_managed: true\n"
                  "variables:\n  HF_TOKEN: {secret: NOT_STORED_EITHER}\n");
        env.close();
        const Result r = ferry({u"run"_s, u"uses_token.py"_s, u"--env"_s, u"needs-token.yml"_s});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(u"needs-token.yml: environment variable HF_TOKEN: no secret named 'NOT_STORED_EITHER' "
                                u"in the keychain"_s),
                 qPrintable(r.err));
        QVERIFY2(r.err.contains(u"ferry secret set NOT_STORED_EITHER"_s), qPrintable(r.err));
        QVERIFY(r.out.isEmpty());
    }

    // An environment file's secret variable reaches a local run like --secret-env; the script's
    // output reaches the log on disk redacted.
    void environmentSecretReachesALocalRun()
    {
        QTemporaryDir ws;
        QFile script(ws.filePath(u"leaks.py"_s));
        QVERIFY(script.open(QIODevice::WriteOnly));
        script.write("import os\nprint('token is ' + os.environ['HF_TOKEN'])\n");
        script.close();
        QFile env(ws.filePath(u"env.yml"_s));
        QVERIFY(env.open(QIODevice::WriteOnly));
        env.write("ferry: 1\nname: tok\npython:\n  interpreter: /usr/bin/python3\n  user_managed: true\n"
                  "variables:\n  HF_TOKEN: {secret: CANARY_TOKEN}\n");
        env.close();
        QProcess process;
        process.setWorkingDirectory(ws.path());
        process.start(ferry::test::ferryBinary(), {u"run"_s, u"leaks.py"_s, u"--env"_s, u"env.yml"_s, u"--follow"_s});
        QVERIFY(process.waitForFinished(120000));
        QCOMPARE(process.exitCode(), 0);
        const QString id = QString::fromUtf8(process.readAllStandardOutput()).split(u'\n').first().trimmed();
        QFile log(ws.filePath(u".ferry/runs/"_s + id + u"/log"_s));
        QVERIFY(log.open(QIODevice::ReadOnly));
        const QByteArray bytes = log.readAll();
        QVERIFY2(bytes.contains("token is ***\n"), bytes.constData());
        QVERIFY(filesWithCanary(ws.path()).isEmpty());
    }

    // The supervisor reads the secret when the script starts; if it is gone by then, the run
    // fails with the reason, and the script never starts without it.
    void secretGoneAtStartFailsTheRun()
    {
        QTemporaryDir ws;
        QVERIFY(QDir().mkpath(ws.filePath(u".ferry/runs"_s)));
        auto store = run::RunStore::open(ws.filePath(u".ferry/runs.sqlite"_s));
        QVERIFY(store);
        auto target = targets::makeTarget(run::TargetSpec{}, ferry::test::ferryBinary());
        run::RunSpec spec;
        spec.script = u"uses_token.py"_s;
        spec.sourceDir = m_ws.path();
        spec.id = run::newRunId(spec.script);
        spec.interpreter = u"/usr/bin/python3"_s;
        spec.hyperparameters = {{u"sleep"_s, u"0"_s}};
        spec.secretVariables = {{u"HF_TOKEN"_s, u"GONE_TOKEN"_s}};
        const auto launched = run::launchRun(**store, *target, ws.filePath(u".ferry/runs"_s), spec);
        QVERIFY(!launched);
        QVERIFY2(launched.error().toString().contains(u"environment variable HF_TOKEN: no secret named 'GONE_TOKEN'"_s),
                 qPrintable(launched.error().toString()));
        (*store)->flush();
        const auto record = (*store)->run(spec.id);
        QVERIFY(record);
        QCOMPARE(record->status, run::RunStatus::Failed);
        QVERIFY(record->error.contains(u"no secret named 'GONE_TOKEN'"_s));
        QFile log(ws.filePath(u".ferry/runs/"_s + spec.id + u"/log"_s));
        QVERIFY(log.open(QIODevice::ReadOnly));
        QVERIFY(!log.readAll().contains("token_sha256")); // the script never ran
    }

    void everyScriptTargetTakesSecrets()
    {
        run::RunSpec spec;
        spec.script = u"uses_token.py"_s;
        spec.sourceDir = m_ws.path();
        spec.id = run::newRunId(spec.script);
        spec.target.kind = run::TargetKind::Container;
        spec.secretVariables = {{u"HF_TOKEN"_s, u"CANARY_TOKEN"_s}, {u"1BAD"_s, u"CANARY_TOKEN"_s}};
        QStringList messages;
        for (const Error &e : run::validateRunSpec(spec))
            messages << e.message;
        QCOMPARE(messages, QStringList{u"'1BAD' cannot name an environment variable"_s});
        for (const QString &target : {u"ssh:gpu-box"_s, u"slurm:local"_s, u"local"_s}) {
            spec.target = *run::TargetSpec::parse(target);
            messages.clear();
            for (const Error &e : run::validateRunSpec(spec))
                messages << e.message;
            QCOMPARE(messages, QStringList{u"'1BAD' cannot name an environment variable"_s});
        }
        spec.target = *run::TargetSpec::parse(u"embedded"_s);
        messages.clear();
        for (const Error &e : run::validateRunSpec(spec))
            messages << e.message;
        QVERIFY2(messages.contains(u"secret variable HF_TOKEN: the embedded trainer runs no script to give it to"_s),
                 qPrintable(messages.join(u"; "_s)));
        // Stored as names only.
        const QJsonObject json = spec.toJson();
        QVERIFY(!QJsonDocument(json).toJson().contains(m_canary.toUtf8()));
        const auto back = run::RunSpec::fromJson(json);
        QVERIFY(back);
        QCOMPARE(back->secretVariables, spec.secretVariables);
    }

    void cleanupTestCase()
    {
        QSettings settings;
        secrets::SecretStore store(settings);
        QVERIFY(store.removeNow(u"CANARY_TOKEN"_s));
    }
};

FERRY_KEYRING_TEST_MAIN(TestSecretRun)
#include "tst_secretrun.moc"
