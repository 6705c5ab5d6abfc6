// SSH keys whose passphrase is a keychain secret (issue 9), against the real sshd of the `sshd`
// fixture and a real gnome-keyring (support/keyring.h). The host `ferrypass` is the test sshd
// without the fixture's unprotected key: the only way in is a new key with a passphrase, which
// ssh asks of the ferry binary (SSH_ASKPASS helper mode) and which that reads from the keychain.
// No secret: refused with a message naming the secret. A wrong one: refused. The right one: in,
// by the run's options and by the host's key in the settings, and a whole `ferry run` (rsync
// included) over that login.
#include "support/keyring.h"
#include "support/process.h"
#include "support/remote.h"
#include "support/testenv.h"
#include "targets/sshshell.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSettings>
#include <QTemporaryDir>

using namespace Qt::StringLiterals;
using namespace ferry::targets;

namespace {

const QString kHostAlias = u"ferrypass"_s;
const QString kSecret = u"FERRYPASS_KEY_PASSPHRASE"_s;
const QString kPassphrase = u"a passphrase: with 'quotes' & $(no expansion)"_s;

using ferry::test::ProgramOutput;

ProgramOutput runWithInput(const QString &program, const QStringList &arguments, const QByteArray &input = {},
                           const QString &cwd = {})
{
    return ferry::test::runCommand(program, arguments, cwd, input);
}

ProgramOutput ferryCli(const QStringList &arguments, const QByteArray &input = {}, const QString &cwd = {})
{
    return runWithInput(ferry::test::ferryBinary(), arguments, input, cwd);
}

} // namespace

class TestSshPassphrase : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir{u"/tmp/ferry-pass-XXXXXX"_s};
    QString m_key;
    QByteArray m_authorizedLine;

    SshOptions options(const QString &secret) const
    {
        SshOptions o = SshOptions::defaults(); // FERRY_SSH_CONFIG, known_hosts and sockets of this test
        o.controlDir.clear();                  // every check logs in anew
        o.key = SshKeySetting{m_key, secret};
        o.askpassProgram = ferry::test::ferryBinary();
        o.connectTimeoutS = 5;
        return o;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QCoreApplication::setOrganizationName(u"Ferry"_s);
        QCoreApplication::setApplicationName(u"ferry"_s);
        // The key, protected by the passphrase, authorized on the test sshd.
        m_key = m_dir.filePath(u"id_pass"_s);
        const ProgramOutput keygen =
            runWithInput(u"ssh-keygen"_s, {u"-q"_s, u"-t"_s, u"ed25519"_s, u"-N"_s, kPassphrase, u"-C"_s,
                                           u"ferry-pass-test"_s, u"-f"_s, m_key});
        QVERIFY2(keygen.code == 0, keygen.err.constData());
        QFile pub(m_key + u".pub"_s);
        QVERIFY(pub.open(QIODevice::ReadOnly));
        m_authorizedLine = pub.readAll().trimmed() + '\n';
        QFile authorized(ferry::test::sshdDir() + u"/authorized_keys"_s);
        QVERIFY(authorized.open(QIODevice::Append));
        authorized.write(m_authorizedLine);
        authorized.close();

        // `ferrypass`: the fixture's host entry without its unprotected key.
        QFile fixture(ferry::test::sshdDir() + u"/config"_s);
        QVERIFY(fixture.open(QIODevice::ReadOnly));
        QByteArray config;
        for (const QByteArray &line : fixture.readAll().split('\n')) {
            if (line.trimmed().startsWith("IdentityFile"))
                continue;
            config += (line.startsWith("Host ") ? "Host " + kHostAlias.toUtf8() : line) + '\n';
        }
        QFile mine(m_dir.filePath(u"config"_s));
        QVERIFY(mine.open(QIODevice::WriteOnly));
        mine.write(config);
        mine.close();
        qputenv("FERRY_SSH_CONFIG", mine.fileName().toUtf8());
        const QString knownHosts = SshOptions::defaults().knownHostsFile;
        QVERIFY(QDir().mkpath(QFileInfo(knownHosts).absolutePath()));
        QFile::remove(knownHosts);
        QVERIFY(QFile::copy(ferry::test::sshdDir() + u"/known_hosts"_s, knownHosts));
        (void)ferryCli({u"secret"_s, u"delete"_s, kSecret});
    }

    // Without the key's passphrase ssh gets in nowhere, and never waits on a terminal.
    void noPassphraseNoLogin()
    {
        SshOptions batch = options({});
        const ShellResult plain = SshShell(kHostAlias, batch).run({u"true"_s}, {}, 30000);
        QVERIFY(!plain.reached);
        QVERIFY2(plain.failure.contains(u"Permission denied"_s), qPrintable(plain.failure));

        const ShellResult missing = SshShell(kHostAlias, options(kSecret)).run({u"true"_s}, {}, 30000);
        QVERIFY(!missing.reached);
        QVERIFY2(missing.failure.contains(u"unlocked by keychain secret "_s + kSecret), qPrintable(missing.failure));
        QVERIFY2(missing.failure.contains(u"ferry secret set "_s + kSecret), qPrintable(missing.failure));
    }

    void wrongPassphraseIsRefused()
    {
        QCOMPARE(ferryCli({u"secret"_s, u"set"_s, kSecret}, "not the passphrase").code, 0);
        const ShellResult wrong = SshShell(kHostAlias, options(kSecret)).run({u"true"_s}, {}, 30000);
        QVERIFY(!wrong.reached);
        QVERIFY2(wrong.failure.contains(u"unlocked by keychain secret "_s + kSecret), qPrintable(wrong.failure));
    }

    void passphraseFromTheKeychain()
    {
        QCOMPARE(ferryCli({u"secret"_s, u"set"_s, kSecret}, kPassphrase.toUtf8()).code, 0);
        const ShellResult in = SshShell(kHostAlias, options(kSecret)).run({u"echo"_s, u"in"_s}, {}, 30000);
        QVERIFY2(in.ok(), qPrintable(in.errorText()));
        QCOMPARE(in.out, QByteArray("in\n"));
    }

    // The host's key in Ferry's settings (Settings → Hosts), and a run's options over it.
    void theHostsKeyFromTheSettings()
    {
        {
            QSettings settings;
            setSshKeySetting(settings, kHostAlias, SshKeySetting{m_key, kSecret});
        }
        const SshOptions fromSettings = SshOptions::forHost(kHostAlias, {}, ferry::test::ferryBinary());
        QCOMPARE(fromSettings.key, (SshKeySetting{m_key, kSecret}));
        SshShell shell(kHostAlias, fromSettings);
        const ShellResult in = shell.run({u"echo"_s, u"settings"_s}, {}, 30000);
        QVERIFY2(in.ok(), qPrintable(in.errorText()));
        shell.closeMaster();

        const SshOptions overridden = SshOptions::forHost(kHostAlias, QJsonObject{{u"passphraseSecret"_s, u"OTHER"_s}},
                                                          ferry::test::ferryBinary());
        QCOMPARE(overridden.key, (SshKeySetting{m_key, u"OTHER"_s}));
        QSettings settings;
        setSshKeySetting(settings, kHostAlias, {});
        QVERIFY(sshKeySetting(settings, kHostAlias).isEmpty());
    }

    // A whole run over that login: upload (rsync through the same ssh), start, log, results.
    void aRunWithTheKeyFromTheCommandLine()
    {
        const QString ws = m_dir.filePath(u"ws"_s);
        QVERIFY(QDir().mkpath(ws));
        QFile script(ws + u"/hello.py"_s);
        QVERIFY(script.open(QIODevice::WriteOnly));
        script.write("print('hello over a locked key', flush=True)\n");
        script.close();
        const ProgramOutput started =
            ferryCli({u"run"_s, u"hello.py"_s, u"--target"_s, u"ssh:"_s + kHostAlias, u"--identity"_s, m_key,
                      u"--passphrase-secret"_s, kSecret, u"--remote-dir"_s, m_dir.filePath(u"remote"_s)},
                     {}, ws);
        QVERIFY2(started.code == 0, started.err.constData());
        const QString id = QString::fromUtf8(started.out).trimmed();
        QJsonObject shown;
        for (int i = 0; i < 600; ++i) {
            shown = QJsonDocument::fromJson(ferryCli({u"runs"_s, u"show"_s, id, u"--json"_s}, {}, ws).out).object();
            const QString status = shown[u"status"_s].toString();
            if (!status.isEmpty() && status != u"running"_s && status != u"created"_s)
                break;
            QTest::qWait(200);
        }
        QCOMPARE(shown[u"status"_s].toString(), u"succeeded"_s);
        QFile log(ws + u"/.ferry/runs/"_s + id + u"/log"_s);
        QVERIFY(log.open(QIODevice::ReadOnly));
        QVERIFY(log.readAll().contains("hello over a locked key\n"));
        QFile spec(ws + u"/.ferry/runs/"_s + id + u"/spec.json"_s);
        QVERIFY(spec.open(QIODevice::ReadOnly));
        const QByteArray stored = spec.readAll();
        QVERIFY(stored.contains(kSecret.toUtf8())); // the secret's name, for later follows and cancels
        QVERIFY(!stored.contains(kPassphrase.toUtf8()));
    }

    void cleanupTestCase()
    {
        (void)ferryCli({u"secret"_s, u"delete"_s, kSecret});
        QFile authorized(ferry::test::sshdDir() + u"/authorized_keys"_s);
        if (authorized.open(QIODevice::ReadOnly)) {
            QByteArray keys = authorized.readAll();
            authorized.close();
            keys.replace(m_authorizedLine, {});
            if (authorized.open(QIODevice::WriteOnly | QIODevice::Truncate))
                authorized.write(keys);
        }
        SshShell(kHostAlias, SshOptions::defaults()).closeMaster();
    }
};

FERRY_KEYRING_TEST_MAIN(TestSshPassphrase)
#include "tst_sshpassphrase.moc"
