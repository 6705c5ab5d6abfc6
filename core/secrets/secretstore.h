// SecretStore: Ferry's secrets in the system keychain, read and written asynchronously through
// QtKeychain.
#pragma once

#include "common/error.h"

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>

#include <functional>
#include <optional>

class QSettings;
class QTimer;

namespace QKeychain {
class Job;
}

namespace ferry::secrets {

// The keychain service every Ferry secret is stored under (secret-tool shows items with
// `server` = this and `user` = the secret's name, schema org.qt.keychain).
inline constexpr QLatin1StringView kKeychainService{"dev.ferry.Ferry"};

enum class SecretOperation { Read, Write, Remove };

// The outcome of one keychain request, as a plain value (safe across threads and queued
// connections). `value` is set only for a successful Read.
struct SecretReply {
    quint64 request = 0;
    SecretOperation operation = SecretOperation::Read;
    QString name;
    QString value;
    std::optional<Error> error;

    bool ok() const { return !error.has_value(); }
};

// Secrets (registry passwords, tokens, SSH passphrases) in the OS keychain through QtKeychain
// (Secret Service on Linux, Keychain on macOS, Credential Store on Windows). Never a plaintext
// fallback: without a working keychain every request fails with an Error that says what is
// missing and how to fix it.
//
// Requests are asynchronous and never block the calling thread: each returns a request id at
// once and ends with exactly one finished() signal carrying that id, also when the keychain does
// not answer in time. The keychain cannot list items, so the store keeps the names (never the
// values) in the settings it is given, under secrets/names.
class SecretStore : public QObject {
    Q_OBJECT
public:
    struct Options {
        QString service = QString(kKeychainService);
        int timeoutMs = 20000; // a keyring waiting for its unlock prompt must not hang the caller
    };

    explicit SecretStore(QSettings &settings, QObject *parent = nullptr);
    SecretStore(QSettings &settings, Options options, QObject *parent = nullptr);
    ~SecretStore() override;

    quint64 read(const QString &name);
    quint64 write(const QString &name, const QString &value);
    quint64 remove(const QString &name);

    // The names stored through Ferry, sorted.
    QStringList names() const;

    // Blocking forms for the command line and tests: wait in a local event loop for the
    // reply (at most the timeout). Never call them on a GUI thread.
    Expected<QString> readNow(const QString &name);
    Expected<void> writeNow(const QString &name, const QString &value);
    Expected<void> removeNow(const QString &name);

    // A name is 1-128 characters of A-Z a-z 0-9 _ . - starting with a letter or '_' (so it
    // can also name an environment variable when it has no '.' or '-').
    static Expected<void> checkName(const QString &name);

Q_SIGNALS:
    void finished(const ferry::secrets::SecretReply &reply);

private:
    struct Pending {
        QPointer<QKeychain::Job> job;
        QTimer *timer = nullptr;
        SecretReply reply;
    };

    quint64 start(SecretOperation operation, const QString &name, const QString &value);
    void jobFinished(quint64 request);
    void timedOut(quint64 request);
    void finish(quint64 request, const SecretReply &reply);
    void remember(const QString &name, bool present);
    SecretReply wait(const std::function<quint64()> &startRequest);

    QSettings &m_settings;
    Options m_options;
    quint64 m_nextRequest = 0;
    QHash<quint64, Pending> m_pending;
};

// One secret's value, read now with a keychain connection of the calling thread's own (for
// work that runs off the GUI thread: image builds, the supervisor). Blocks up to the timeout;
// never call it on a GUI thread.
Expected<QString> readSecretNow(const QString &name);

} // namespace ferry::secrets

Q_DECLARE_METATYPE(ferry::secrets::SecretReply)
