// One Ferry window per user: a second `ferry PATH...` hands its paths to the running one.
#pragma once

#include "common/error.h"

#include <QLocalServer>
#include <QObject>
#include <QStringList>

namespace ferry::ui {

// One Ferry window per user: a second `ferry PATH...` hands its paths to the running window
// (over a local socket named for the user) and exits; the window opens them as if dropped.
class SingleInstance : public QObject {
    Q_OBJECT
public:
    // name: the socket's name; defaultName() unless a test gives its own.
    explicit SingleInstance(const QString &name = defaultName(), QObject *parent = nullptr);

    // "dev.ferry.Ferry-<user>", or $FERRY_INSTANCE_NAME when set (tests run side by side).
    static QString defaultName();
    // Where the socket of `name` lives: in the user's private runtime folder ($XDG_RUNTIME_DIR,
    // else a 0700 folder of the user's, checked by lstat; see common/privatedir.h).
    static Expected<QString> socketPath(const QString &name);
    QString socketPath() const { return m_path; } // empty when there is no private folder
    // Hands `paths` (made absolute) to the running instance; true when it confirmed them.
    // False at once when none runs (no listener, or a stale socket left by a crash).
    bool handToRunning(const QStringList &paths, int timeoutMs = 5000);
    // Becomes the running instance. A stale socket (a crashed instance) is removed first.
    bool listen();
    QString errorString() const;

Q_SIGNALS:
    // Paths another `ferry` was started with (maybe none: it asks to be shown).
    void pathsReceived(const QStringList &paths);

private:
    void accept();

    QString m_path;    // the socket's full path
    QString m_problem; // why there is none
    QLocalServer m_server;
};

} // namespace ferry::ui
