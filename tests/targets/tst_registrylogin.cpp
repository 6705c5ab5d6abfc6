// Registry credentials against a real password-protected registry (tests/services/registry.sh),
// the real Docker engine and a real gnome-keyring (support/keyring.h): an environment whose base
// image lives there builds once its password is in the keychain (ensureImage logs in), the
// password never reaches an argument or ~/.docker/config.json, and a missing secret or a wrong
// password is a clear error. An environment naming the secret for a registry the user never sent
// it to (review N1) reads nothing from the keychain and contacts nothing.
#include "support/keyring.h"
#include "support/process.h"

#include "env/formats.h"
#include "env/spechash.h"
#include "secrets/secretbinding.h"
#include "secrets/secretstore.h"
#include "targets/containerengine.h"

#include <QSettings>

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace Qt::StringLiterals;
using namespace ferry;

namespace {

struct Result {
    int code = -1;
    QString out;
};

Result runTool(const QString &program, const QStringList &arguments, const QByteArray &input = {},
               const QProcessEnvironment &env = QProcessEnvironment::systemEnvironment())
{
    const ferry::test::ProgramOutput r = ferry::test::runCommand(program, arguments, {}, input, env, 300000);
    return {r.code, QString::fromUtf8(r.out + r.err)}; // what it said, on either channel
}

// A listener on 127.0.0.1 that only counts who connects (a registry of the attacker's choosing).
class Listener {
public:
    Listener()
    {
        m_fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t length = sizeof address;
        if (::bind(m_fd, reinterpret_cast<sockaddr *>(&address), length) != 0 || ::listen(m_fd, 8) != 0 ||
            ::getsockname(m_fd, reinterpret_cast<sockaddr *>(&address), &length) != 0)
            return;
        m_port = ntohs(address.sin_port);
    }
    ~Listener() { ::close(m_fd); }
    int port() const { return m_port; }
    // Whether anyone connected (a pending connection waits in the backlog).
    bool contacted() const
    {
        pollfd p{m_fd, POLLIN, 0};
        return ::poll(&p, 1, 200) > 0;
    }

private:
    int m_fd = -1;
    int m_port = 0;
};

} // namespace

class TestRegistryLogin : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_address, m_user, m_password;
    QString m_baseImage;

    env::Environment environment(const QString &name) const
    {
        env::Environment e;
        e.name = name;
        e.docker.baseImage = m_baseImage;
        e.docker.registry.address = m_address;
        e.docker.registry.username = m_user;
        e.docker.registry.passwordSecret = u"REGISTRY_PASSWORD"_s;
        e.docker.gpu = env::GpuMode::Off;
        e.python.userManaged = true;
        e.python.interpreterPath = u"python3"_s;
        return e;
    }

private Q_SLOTS:
    void initTestCase()
    {
        qputenv("XDG_CONFIG_HOME", m_dir.filePath(u"config"_s).toUtf8()); // the names index goes here
        QCoreApplication::setOrganizationName(u"FerryTest"_s);
        QCoreApplication::setApplicationName(u"tst_registrylogin"_s);
        const QString services = QStringLiteral(FERRY_SOURCE_DIR) + u"/tests/services/"_s;
        if (qEnvironmentVariableIsEmpty("DOCKER_HOST")) {
            const Result engine = runTool(u"bash"_s, {services + u"docker.sh"_s, u"status"_s});
            QVERIFY2(engine.code == 0, "no Docker engine: run the docker_service_start test first");
            qputenv("DOCKER_HOST", engine.out.trimmed().split(u'\n').last().toUtf8());
        }
        const Result registry = runTool(u"bash"_s, {services + u"registry.sh"_s, u"start"_s});
        QVERIFY2(registry.code == 0, qPrintable(registry.out));
        const QStringList parts = registry.out.trimmed().split(u'\n').last().split(u' ');
        QCOMPARE(parts.size(), 3);
        m_address = parts[0];
        m_user = parts[1];
        m_password = parts[2];
        // The base image, pushed there with a login of its own (not the code under test).
        m_baseImage = m_address + u"/ferry-base:bookworm"_s;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(u"DOCKER_CONFIG"_s, m_dir.filePath(u"pusher"_s));
        QVERIFY(runTool(u"docker"_s, {u"login"_s, m_address, u"-u"_s, m_user, u"--password-stdin"_s},
                        m_password.toUtf8(), env)
                    .code == 0);
        QVERIFY(runTool(u"docker"_s, {u"tag"_s, u"ferry-base:bookworm"_s, m_baseImage}).code == 0);
        const Result pushed = runTool(u"docker"_s, {u"push"_s, m_baseImage}, {}, env);
        QVERIFY2(pushed.code == 0, qPrintable(pushed.out));
        QVERIFY(runTool(u"docker"_s, {u"rmi"_s, m_baseImage}).code == 0); // builds must pull it
        // The user sent REGISTRY_PASSWORD to this registry (as the editor or `ferry secret bind` does).
        QSettings settings;
        secrets::bindSecret(settings, u"REGISTRY_PASSWORD"_s, secrets::registryDestination(m_address));
    }

    // N1: an environment from elsewhere names the user's secret and a registry of its choosing.
    // Nothing is read from the keychain (a secret that is not there would be named as missing by
    // a read) and nothing connects to that registry (a listener counts connections).
    void aSecretGoesOnlyToTheRegistryItWasSentTo()
    {
        const Listener attacker;
        QVERIFY(attacker.port() > 0);
        const QString address = u"127.0.0.1:%1"_s.arg(attacker.port());
        for (const QString &secret : {u"REGISTRY_PASSWORD"_s, u"NOT_IN_THE_KEYCHAIN"_s}) {
            env::Environment e = environment(u"registry-unbound-%1"_s.arg(QCoreApplication::applicationPid()));
            e.docker.baseImage = address + u"/ferry-base:bookworm"_s;
            e.docker.registry.address = address;
            e.docker.registry.passwordSecret = secret;
            const auto built = targets::ContainerEngine::open()->ensureImage(
                e, m_dir.filePath(u"env.yml"_s), m_dir.filePath(u"ctx4"_s), targets::ImageStage::Runtime, {}, 300000);
            QVERIFY(!built);
            QVERIFY2(built.error().message.contains(u"where you have not sent it: nothing was read"_s),
                     qPrintable(built.error().toString()));
            QVERIFY2(built.error().hint.contains(u"ferry secret bind %1 --registry %2"_s.arg(secret, address)),
                     qPrintable(built.error().hint));
            QVERIFY(!attacker.contacted());
        }
        QSettings settings;
        QCOMPARE(secrets::boundDestinations(settings, u"REGISTRY_PASSWORD"_s),
                 QStringList{secrets::registryDestination(m_address)});
    }

    void registryAddressFromTheEnvironment_data()
    {
        QTest::addColumn<QString>("address");
        QTest::addColumn<QString>("image");
        QTest::addColumn<QString>("expected");
        QTest::newRow("explicit") << u"myacr.azurecr.io"_s << u"python:3.11"_s << u"myacr.azurecr.io"_s;
        QTest::newRow("from the image") << QString() << u"myacr.azurecr.io/base/py:1"_s << u"myacr.azurecr.io"_s;
        QTest::newRow("host and port") << QString() << u"127.0.0.1:5000/x"_s << u"127.0.0.1:5000"_s;
        QTest::newRow("localhost") << QString() << u"localhost/x:1"_s << u"localhost"_s;
        QTest::newRow("hub user image") << QString() << u"pytorch/pytorch:2.1.0"_s << QString();
        QTest::newRow("hub library image") << QString() << u"python:3.11-slim"_s << QString();
    }
    void registryAddressFromTheEnvironment()
    {
        QFETCH(QString, address);
        QFETCH(QString, image);
        QFETCH(QString, expected);
        env::DockerSection docker;
        docker.registry.address = address;
        docker.baseImage = image;
        QCOMPARE(targets::registryAddress(docker), expected);
    }

    void withoutCredentialsThePullIsRefused()
    {
        env::Environment e = environment(u"registry-none-%1"_s.arg(QCoreApplication::applicationPid()));
        e.docker.registry = {};
        const auto built = targets::ContainerEngine::open()->ensureImage(
            e, m_dir.filePath(u"env.yml"_s), m_dir.filePath(u"ctx1"_s), targets::ImageStage::Runtime, {}, 300000);
        QVERIFY(!built);
        QVERIFY2(built.error().message.contains(u"no basic auth credentials"_s) ||
                     built.error().message.contains(u"unauthorized"_s),
                 qPrintable(built.error().message));
    }

    void aMissingSecretIsNamed()
    {
        const env::Environment e = environment(u"registry-missing-%1"_s.arg(QCoreApplication::applicationPid()));
        const auto built = targets::ContainerEngine::open()->ensureImage(
            e, m_dir.filePath(u"env.yml"_s), m_dir.filePath(u"ctx3"_s), targets::ImageStage::Runtime, {}, 300000);
        QVERIFY(!built);
        QVERIFY2(built.error().message.startsWith(
                     u"the password of registry %1 (keychain secret REGISTRY_PASSWORD): "_s.arg(m_address)),
                 qPrintable(built.error().toString()));
    }

    void aWrongPasswordIsAClearError()
    {
        auto engine = *targets::ContainerEngine::open();
        const auto login = engine.login(m_address, m_user, u"not-the-password"_s);
        QVERIFY(!login);
        QVERIFY2(login.error().message.startsWith(u"cannot log in to %1 as %2"_s.arg(m_address, m_user)),
                 qPrintable(login.error().message));
        QVERIFY(!login.error().message.contains(u"not-the-password"_s));
    }

    void loginThenBuildPullsTheBaseImage()
    {
        const QString home = QDir::homePath() + u"/.docker/config.json"_s;
        QFile before(home);
        const QByteArray homeConfig = before.open(QIODevice::ReadOnly) ? before.readAll() : QByteArray();
        const env::Environment e = environment(u"registry-login-%1"_s.arg(QCoreApplication::applicationPid()));
        {
            QSettings settings;
            secrets::SecretStore store(settings);
            QVERIFY(store.writeNow(u"REGISTRY_PASSWORD"_s, m_password));
        }
        const QStringList configsBefore = QDir::temp().entryList({u"ferry-engine-*"_s}, QDir::Dirs);
        QByteArray log;
        const auto engine = *targets::ContainerEngine::open();
        const auto built = engine.ensureImage(
            e, m_dir.filePath(u"env.yml"_s), m_dir.filePath(u"ctx2"_s), targets::ImageStage::Runtime,
            [&log](const QByteArray &lines) { log += lines; }, 300000);
        QVERIFY2(built, qPrintable(built ? QString() : built.error().toString()));
        QVERIFY(built->built);
        QVERIFY(engine.imageExists(env::imageReference(e)));
        QVERIFY2(log.contains(QByteArray("logging in to " + m_address.toUtf8() + " as ferry-test")), log.constData());
        QVERIFY(!log.contains(m_password.toUtf8()));
        // The login's private configuration went with the build; the user's is untouched.
        QCOMPARE(QDir::temp().entryList({u"ferry-engine-*"_s}, QDir::Dirs), configsBefore);
        QFile after(home);
        QCOMPARE(after.open(QIODevice::ReadOnly) ? after.readAll() : QByteArray(), homeConfig);
        runTool(u"docker"_s, {u"rmi"_s, u"-f"_s, env::imageReference(e), m_baseImage});
    }
};

FERRY_KEYRING_TEST_MAIN(TestRegistryLogin)
#include "tst_registrylogin.moc"
