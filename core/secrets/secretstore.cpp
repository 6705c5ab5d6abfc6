#include "secrets/secretstore.h"

#include "common/setting.h"
#include "secrets/keychainerror.h"

#include <QEventLoop>
#include <QMetaObject>
#include <QRegularExpression>
#include <QSettings>
#include <QTimer>

#include <qt6keychain/keychain.h>

using namespace Qt::StringLiterals;

namespace ferry::secrets {

namespace {

// Names only, never values.
const Setting<QStringList> kSecretNames{"secrets/names"};

} // namespace

SecretStore::SecretStore(QSettings &settings, QObject *parent) : SecretStore(settings, Options{}, parent) {}

SecretStore::SecretStore(QSettings &settings, Options options, QObject *parent)
    : QObject(parent), m_settings(settings), m_options(std::move(options))
{
    qRegisterMetaType<SecretReply>();
}

SecretStore::~SecretStore()
{
    // A job still waiting for the keychain cannot be cancelled: let it delete itself when it ends.
    for (Pending &pending : m_pending) {
        if (pending.job) {
            pending.job->disconnect(this);
            pending.job->setAutoDelete(true);
        }
    }
}

Expected<void> SecretStore::checkName(const QString &name)
{
    static const QRegularExpression valid(u"^[A-Za-z_][A-Za-z0-9_.-]{0,127}$"_s);
    if (valid.match(name).hasMatch())
        return {};
    Error error;
    error.message = name.isEmpty() ? u"a secret needs a name"_s : u"'%1' is not a secret name"_s.arg(name);
    error.hint = u"use 1-128 letters, digits, '_', '.' or '-', starting with a letter or '_' (e.g. HF_TOKEN)"_s;
    return error;
}

quint64 SecretStore::read(const QString &name)
{
    return start(SecretOperation::Read, name, {});
}

quint64 SecretStore::write(const QString &name, const QString &value)
{
    return start(SecretOperation::Write, name, value);
}

quint64 SecretStore::remove(const QString &name)
{
    return start(SecretOperation::Remove, name, {});
}

QStringList SecretStore::names() const
{
    QStringList names = kSecretNames.get(m_settings);
    names.sort();
    return names;
}

quint64 SecretStore::start(SecretOperation operation, const QString &name, const QString &value)
{
    const quint64 request = ++m_nextRequest;
    SecretReply reply;
    reply.request = request;
    reply.operation = operation;
    reply.name = name;
    if (const auto named = checkName(name); !named) {
        reply.error = named.error();
        // Still asynchronous: the caller connects after the call returns.
        QMetaObject::invokeMethod(
            this, [this, reply] { Q_EMIT finished(reply); }, Qt::QueuedConnection);
        return request;
    }

    QKeychain::Job *job = nullptr;
    switch (operation) {
    case SecretOperation::Read:
        job = new QKeychain::ReadPasswordJob(m_options.service);
        break;
    case SecretOperation::Write: {
        auto *writeJob = new QKeychain::WritePasswordJob(m_options.service);
        writeJob->setTextData(value);
        job = writeJob;
        break;
    }
    case SecretOperation::Remove:
        job = new QKeychain::DeletePasswordJob(m_options.service);
        break;
    }
    job->setKey(name);
    job->setAutoDelete(false);
    job->setInsecureFallback(false); // never a plaintext copy in QSettings

    auto *timer = new QTimer(this);
    timer->setSingleShot(true);
    connect(timer, &QTimer::timeout, this, [this, request] { timedOut(request); });
    connect(job, &QKeychain::Job::finished, this, [this, request] { jobFinished(request); });
    m_pending.insert(request, Pending{job, timer, std::move(reply)});
    timer->start(m_options.timeoutMs);
    job->start();
    return request;
}

void SecretStore::jobFinished(quint64 request)
{
    auto it = m_pending.find(request);
    if (it == m_pending.end())
        return;
    SecretReply reply = it->reply;
    QKeychain::Job *job = it->job.data();
    if (job) {
        if (job->error() != QKeychain::NoError) {
            reply.error = keychainError(reply.operation, reply.name, job->error(), job->errorString());
            if (job->error() == QKeychain::EntryNotFound)
                remember(reply.name, false);
        } else {
            if (reply.operation == SecretOperation::Read)
                reply.value = static_cast<QKeychain::ReadPasswordJob *>(job)->textData();
            remember(reply.name, reply.operation != SecretOperation::Remove);
        }
        job->deleteLater();
    }
    finish(request, reply);
}

void SecretStore::timedOut(quint64 request)
{
    auto it = m_pending.find(request);
    if (it == m_pending.end())
        return;
    SecretReply reply = it->reply;
    if (it->job) {
        it->job->disconnect(this);
        it->job->setAutoDelete(true); // it deletes itself if the keychain ever answers
        it->job = nullptr;
    }
    reply.error = keychainTimeout(reply.operation, reply.name, m_options.timeoutMs);
    finish(request, reply);
}

void SecretStore::finish(quint64 request, const SecretReply &reply)
{
    const auto it = m_pending.find(request);
    if (it != m_pending.end()) {
        it->timer->deleteLater();
        m_pending.erase(it);
    }
    Q_EMIT finished(reply);
}

void SecretStore::remember(const QString &name, bool present)
{
    QStringList names = kSecretNames.get(m_settings);
    if (present == names.contains(name))
        return;
    if (present)
        names.append(name);
    else
        names.removeAll(name);
    names.sort();
    if (names.isEmpty())
        kSecretNames.reset(m_settings);
    else
        kSecretNames.set(m_settings, names);
    m_settings.sync();
}

SecretReply SecretStore::wait(const std::function<quint64()> &startRequest)
{
    // Connected before the request starts, so even a reply sent at once is seen. The lambda's
    // context is `loop`, declared after what it captures: the connection ends before they do.
    QHash<quint64, SecretReply> replies;
    std::optional<quint64> request;
    QEventLoop loop;
    const auto connection = connect(this, &SecretStore::finished, &loop, [&](const SecretReply &reply) {
        replies.insert(reply.request, reply);     // clazy:exclude=lambda-in-connect
        if (request && reply.request == *request) // clazy:exclude=lambda-in-connect
            loop.quit();
    });
    request = startRequest();
    if (!replies.contains(*request))
        loop.exec(); // ends: every request finishes, at the latest when its timer fires
    disconnect(connection);
    return replies.value(*request);
}

Expected<QString> SecretStore::readNow(const QString &name)
{
    SecretReply reply = wait([&] { return read(name); });
    if (reply.error)
        return *reply.error;
    return reply.value;
}

Expected<void> SecretStore::writeNow(const QString &name, const QString &value)
{
    const SecretReply reply = wait([&] { return write(name, value); });
    if (reply.error)
        return *reply.error;
    return {};
}

Expected<void> SecretStore::removeNow(const QString &name)
{
    const SecretReply reply = wait([&] { return remove(name); });
    if (reply.error)
        return *reply.error;
    return {};
}

Expected<QString> readSecretNow(const QString &name)
{
    QSettings settings; // the application's: the names index stays right
    SecretStore store(settings);
    return store.readNow(name);
}

} // namespace ferry::secrets
