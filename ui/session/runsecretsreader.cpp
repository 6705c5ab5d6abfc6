#include "ui/session/runsecretsreader.h"

#include "secrets/secretstore.h"

namespace ferry::ui {

RunSecretsReader::RunSecretsReader(secrets::SecretStore *store, QObject *parent) : QObject(parent), m_store(store)
{
    if (m_store)
        connect(m_store, &secrets::SecretStore::finished, this, &RunSecretsReader::replied);
}

void RunSecretsReader::read(const QString &runId, const QStringList &secretNames)
{
    if (!m_store || secretNames.isEmpty()) {
        Q_EMIT valuesRead(runId, {});
        return;
    }
    Pending &pending = m_runs[runId];
    pending.runId = runId;
    for (const QString &name : secretNames) {
        ++pending.waiting;
        m_requests.insert(m_store->read(name), runId);
    }
}

void RunSecretsReader::replied(const secrets::SecretReply &reply)
{
    const QString runId = m_requests.take(reply.request);
    const auto it = m_runs.find(runId);
    if (runId.isEmpty() || it == m_runs.end())
        return; // someone else's request
    if (reply.ok() && !reply.value.isEmpty())
        it->values << reply.value;
    if (--it->waiting > 0)
        return;
    const QStringList values = it->values;
    m_runs.erase(it);
    Q_EMIT valuesRead(runId, values);
}

} // namespace ferry::ui
