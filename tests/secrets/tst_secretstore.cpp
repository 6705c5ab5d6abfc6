// SecretStore against a real Secret Service: gnome-keyring in a private D-Bus session
// (support/keyring.h). What is stored is checked with secret-tool, the keyring's own client.
#include "support/keyring.h"

#include "secrets/secretstore.h"

#include <QFile>
#include <QProcess>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using ferry::secrets::SecretOperation;
using ferry::secrets::SecretReply;
using ferry::secrets::SecretStore;

namespace {

// What secret-tool finds under Ferry's service for NAME ("" when nothing).
QString lookup(const QString &name)
{
    return ferry::test::keychainLookup(name);
}

SecretReply waitForReply(QSignalSpy &spy, quint64 request)
{
    for (int round = 0; round < 100; ++round) {
        for (const QList<QVariant> &arguments : std::as_const(spy)) {
            const auto reply = arguments.first().value<SecretReply>();
            if (reply.request == request)
                return reply;
        }
        if (!spy.wait(30000))
            break;
    }
    return {};
}

} // namespace

class TestSecretStore : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;

    QString settingsPath() const { return m_dir.filePath(u"ferry.conf"_s); }

private Q_SLOTS:
    void asynchronousRoundTrip()
    {
        QSettings settings(settingsPath(), QSettings::IniFormat);
        SecretStore store(settings);
        QSignalSpy spy(&store, &SecretStore::finished);
        const QString value = u"tök€n with spaces\nand a second line"_s;

        const quint64 write = store.write(u"HF_TOKEN"_s, value);
        QCOMPARE(spy.count(), 0); // the call returned before the keychain answered
        const SecretReply written = waitForReply(spy, write);
        QCOMPARE(written.request, write);
        QVERIFY2(written.ok(), qPrintable(written.error ? written.error->toString() : QString()));
        QCOMPARE(written.operation, SecretOperation::Write);
        QCOMPARE(lookup(u"HF_TOKEN"_s), value); // really in the keyring
        QCOMPARE(store.names(), QStringList{u"HF_TOKEN"_s});

        const SecretReply read = waitForReply(spy, store.read(u"HF_TOKEN"_s));
        QVERIFY(read.ok());
        QCOMPARE(read.value, value);

        const SecretReply removed = waitForReply(spy, store.remove(u"HF_TOKEN"_s));
        QVERIFY(removed.ok());
        QCOMPARE(lookup(u"HF_TOKEN"_s), QString());
        QVERIFY(store.names().isEmpty());

        const SecretReply missing = waitForReply(spy, store.read(u"HF_TOKEN"_s));
        QVERIFY(!missing.ok());
        QCOMPARE(missing.error->message, u"no secret named 'HF_TOKEN' in the keychain"_s);
        QVERIFY(missing.error->hint.contains(u"ferry secret set HF_TOKEN"_s));
    }

    // Many requests at once: each ends exactly once, with its own id and value.
    void concurrentRequests()
    {
        QSettings settings(settingsPath(), QSettings::IniFormat);
        SecretStore store(settings);
        QSignalSpy spy(&store, &SecretStore::finished);
        QList<quint64> writes;
        for (int i = 0; i < 5; ++i)
            writes << store.write(u"KEY_%1"_s.arg(i), u"value-%1"_s.arg(i));
        for (const quint64 request : writes)
            QVERIFY(waitForReply(spy, request).ok());
        QList<quint64> reads;
        for (int i = 0; i < 5; ++i)
            reads << store.read(u"KEY_%1"_s.arg(i));
        for (int i = 0; i < 5; ++i)
            QCOMPARE(waitForReply(spy, reads[i]).value, u"value-%1"_s.arg(i));
        QCOMPARE(store.names().size(), 5);
        QCOMPARE(spy.count(), 10);
        for (int i = 0; i < 5; ++i)
            QVERIFY(store.removeNow(u"KEY_%1"_s.arg(i)));
    }

    void blockingForms()
    {
        QSettings settings(settingsPath(), QSettings::IniFormat);
        SecretStore store(settings);
        QVERIFY(store.writeNow(u"registry.password"_s, u"first"_s));
        QVERIFY(store.writeNow(u"registry.password"_s, u"second"_s)); // overwrites
        const auto value = store.readNow(u"registry.password"_s);
        QVERIFY(value);
        QCOMPARE(*value, u"second"_s);
        QVERIFY(store.removeNow(u"registry.password"_s));
        QVERIFY(!store.readNow(u"registry.password"_s));
    }

    // The names index holds names only: the settings file never sees a value.
    void settingsHoldNamesNotValues()
    {
        const QString canary = u"canary-7f3a9c1e-in-settings"_s;
        {
            QSettings settings(settingsPath(), QSettings::IniFormat);
            SecretStore store(settings);
            QVERIFY(store.writeNow(u"CANARY"_s, canary));
        }
        QFile file(settingsPath());
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray bytes = file.readAll();
        QVERIFY(bytes.contains("CANARY"));
        QVERIFY(!bytes.contains(canary.toUtf8()));
        QSettings settings(settingsPath(), QSettings::IniFormat);
        SecretStore store(settings);
        QVERIFY(store.removeNow(u"CANARY"_s));
    }

    void invalidNamesFailAsynchronously_data()
    {
        QTest::addColumn<QString>("name");
        QTest::newRow("empty") << QString();
        QTest::newRow("space") << u"my token"_s;
        QTest::newRow("digit first") << u"1TOKEN"_s;
        QTest::newRow("too long") << QString(129, u'a');
    }
    void invalidNamesFailAsynchronously()
    {
        QFETCH(QString, name);
        QSettings settings(settingsPath(), QSettings::IniFormat);
        SecretStore store(settings);
        QSignalSpy spy(&store, &SecretStore::finished);
        const quint64 request = store.write(name, u"v"_s);
        QCOMPARE(spy.count(), 0);
        const SecretReply reply = waitForReply(spy, request);
        QVERIFY(!reply.ok());
        QVERIFY(reply.error->hint.contains(u"letters, digits"_s));
    }

    // A keychain that does not answer in time ends the request with an error, and the store goes
    // on working afterwards.
    void timeoutEndsTheRequest()
    {
        QSettings settings(settingsPath(), QSettings::IniFormat);
        {
            SecretStore impatient(settings, SecretStore::Options{QString(ferry::secrets::kKeychainService), 0});
            const auto result = impatient.writeNow(u"SLOW"_s, u"v"_s);
            QVERIFY(!result);
            QVERIFY2(result.error().message.contains(u"did not answer within 0 s"_s),
                     qPrintable(result.error().toString()));
        }
        SecretStore store(settings);
        QVERIFY(store.writeNow(u"AFTER"_s, u"works"_s));
        QCOMPARE(*store.readNow(u"AFTER"_s), u"works"_s);
        QVERIFY(store.removeNow(u"AFTER"_s));
        store.removeNow(u"SLOW"_s); // in case the abandoned write landed after all
    }
};

FERRY_KEYRING_TEST_MAIN(TestSecretStore)
#include "tst_secretstore.moc"
