// RunSecretsReader: reads a run's secret values asynchronously, so what the window shows of it can
// be redacted.
#pragma once

#include <QHash>
#include <QObject>
#include <QStringList>

namespace ferry::secrets {
class SecretStore;
struct SecretReply;
} // namespace ferry::secrets

namespace ferry::ui {

// Reads the values of a run's secrets through the window's SecretStore (asynchronous requests:
// the GUI thread never waits on the keychain), so what the window shows of the run can be
// redacted. A secret that cannot be read is left out (its run's log on disk is redacted by the
// supervisor already); without a store every run gets an empty list at once.
class RunSecretsReader : public QObject {
    Q_OBJECT
public:
    explicit RunSecretsReader(secrets::SecretStore *store, QObject *parent = nullptr);

public Q_SLOTS:
    void read(const QString &runId, const QStringList &secretNames);

Q_SIGNALS:
    void valuesRead(const QString &runId, const QStringList &values);

private:
    void replied(const secrets::SecretReply &reply);

    struct Pending {
        QString runId;
        int waiting = 0;
        QStringList values;
    };
    secrets::SecretStore *m_store;
    QHash<quint64, QString> m_requests; // request id -> run id
    QHash<QString, Pending> m_runs;
};

} // namespace ferry::ui
