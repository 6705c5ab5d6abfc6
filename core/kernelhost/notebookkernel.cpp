#include "kernelhost/notebookkernel.h"

#include "common/safefile.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QPointer>
#include <QThread>

using namespace Qt::StringLiterals;

namespace ferry::kernels {

namespace {

constexpr int kTickMs = 100;
constexpr int kReadyAskMs = 1000; // kernel_info again, until the kernel answers
constexpr qint64 kMostRequestsFile = 16 * 1024 * 1024;

} // namespace

NotebookKernel::NotebookKernel(QString kernelsDir, QString ferryBinary, QObject *parent)
    : QObject(parent), m_kernelsDir(std::move(kernelsDir)),
      m_ferryBinary(ferryBinary.isEmpty() ? QCoreApplication::applicationFilePath() : std::move(ferryBinary))
{
    m_tick.setInterval(kTickMs);
    connect(&m_tick, &QTimer::timeout, this, &NotebookKernel::tick);
}

NotebookKernel::~NotebookKernel()
{
    *m_alive = false;
}

void NotebookKernel::setState(State state, const QString &detail)
{
    if (state == m_state && detail == m_detail)
        return;
    m_state = state;
    m_detail = detail;
    Q_EMIT stateChanged(state, stateText());
}

QString NotebookKernel::stateText() const
{
    switch (m_state) {
    case State::None:
        return tr("no kernel");
    case State::Starting:
        return m_detail.isEmpty() ? tr("starting") : tr("starting: %1").arg(m_detail);
    case State::Idle:
        return tr("idle");
    case State::Busy:
        return tr("busy");
    case State::Restarting:
        return tr("restarting");
    case State::Dead:
        return tr("dead: %1").arg(m_detail);
    }
    return {};
}

void NotebookKernel::start(const KernelRequest &request)
{
    if (m_state == State::Starting)
        return;
    m_connection.reset();
    m_cells.clear();
    m_running.clear();
    setState(State::Starting);
    KernelRequest req = request;
    // What the start says, as it goes, comes back on this thread.
    QPointer<NotebookKernel> self(this);
    req.progress = [self](const QString &text) {
        QMetaObject::invokeMethod(
            QCoreApplication::instance(),
            [self, text] {
                if (self) {
                    self->setState(State::Starting, text);
                    Q_EMIT self->progress(text);
                }
            },
            Qt::QueuedConnection);
    };
    const QString kernelsDir = m_kernelsDir;
    const QString ferry = m_ferryBinary;
    QThread *thread = QThread::create([self, req, kernelsDir, ferry] {
        auto folder = startKernel(kernelsDir, req, ferry, 120000);
        QMetaObject::invokeMethod(
            QCoreApplication::instance(),
            [self, folder] {
                if (self)
                    self->started(folder);
            },
            Qt::QueuedConnection);
    });
    connect(thread, &QThread::finished, thread, &QObject::deleteLater);
    thread->start();
}

void NotebookKernel::started(const Expected<KernelFolder> &folder)
{
    if (!folder) {
        setState(State::Dead, folder.error().message);
        failAll(u"aborted"_s);
        return;
    }
    if (!m_notebook.isEmpty())
        (void)createNewFile(folder->path() + u"/notebook"_s, m_notebook.toUtf8(), 0600);
    connectTo(folder->path(), 0);
}

QString NotebookKernel::runningKernelFor(const QString &kernelsDir, const QString &notebookPath)
{
    const QDir dir(kernelsDir);
    QStringList names = dir.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
    std::reverse(names.begin(), names.end()); // ids start with their time: the newest first
    for (const QString &name : std::as_const(names)) {
        const QString folder = dir.filePath(name);
        if (notebookOf(folder) != notebookPath)
            continue;
        const KernelFolder kernel(folder);
        const auto end = kernel.readEnd();
        const auto keeper = kernel.readKeeper();
        if (end && !*end && keeper && *keeper)
            return folder;
    }
    return {};
}

QString NotebookKernel::notebookOf(const QString &folder)
{
    const auto owner = readRegularFile(folder + u"/notebook"_s, 64 * 1024);
    if (!owner || !*owner)
        return {};
    return QString::fromUtf8(**owner);
}

void NotebookKernel::attach(const QString &folder)
{
    m_cells.clear();
    m_running.clear();
    setState(State::Starting, tr("attaching"));
    m_folder = folder;
    readRequests();
    connectTo(folder, 0);
}

void NotebookKernel::connectTo(const QString &folder, qint64 journalOffset)
{
    m_folder = folder;
    auto connection = KernelConnection::open(folder, journalOffset, m_ferryBinary);
    if (!connection) {
        setState(State::Dead, connection.error().message);
        failAll(u"aborted"_s);
        return;
    }
    m_connection = std::move(*connection);
    Q_EMIT folderChanged(folder);
    connect(&m_connection->client(), &KernelClient::messageReceived, this, &NotebookKernel::onMessage);
    if (const auto keeper = m_connection->folder().readKeeper(); keeper && *keeper)
        m_restartsSeen = (*keeper)->restarts;
    m_readyRequest = m_connection->client().kernelInfo();
    m_ticks = 0;
    m_tick.start();
}

bool NotebookKernel::execute(const QString &cellId, const QString &code)
{
    if (m_state == State::None || m_state == State::Dead)
        return false;
    if (m_state == State::Starting || m_state == State::Restarting || !m_readyRequest.isEmpty())
        m_queue.append({cellId, code});
    else
        send(cellId, code);
    return true;
}

QStringList NotebookKernel::pendingCells() const
{
    QStringList cells;
    for (const QString &request : m_running)
        cells << m_cells.value(request);
    for (const auto &[cell, code] : m_queue)
        cells << cell;
    return cells;
}

void NotebookKernel::send(const QString &cellId, const QString &code)
{
    const QString request = m_connection->client().execute(code, false, true, false, true);
    m_cells.insert(request, cellId);
    m_running << request;
    m_sent.insert(request);
    rememberRequest(request, cellId);
}

QString NotebookKernel::requestsFile() const
{
    return m_folder + u"/notebook-requests"_s;
}

// Which cell each request was for, beside the kernel's journal: a notebook opened again finds
// the cells of what ran while it was closed.
void NotebookKernel::rememberRequest(const QString &requestId, const QString &cellId)
{
    QFile file(requestsFile());
    if (file.open(QIODevice::Append))
        file.write((requestId + u' ' + cellId + u'\n').toUtf8());
    file.setPermissions(QFile::ReadOwner | QFile::WriteOwner);
}

void NotebookKernel::readRequests()
{
    const auto bytes = readRegularFile(requestsFile(), kMostRequestsFile);
    if (!bytes || !*bytes)
        return;
    for (const QByteArray &line : (*bytes)->split('\n')) {
        const QList<QByteArray> parts = line.split(' ');
        if (parts.size() == 2)
            m_cells.insert(QString::fromUtf8(parts[0]), QString::fromUtf8(parts[1]));
    }
}

void NotebookKernel::onMessage(Channel channel, const JupyterMessage &message)
{
    const QString type = message.type();
    const QString parent = message.parentId();
    if (channel == Channel::Shell) {
        if (parent == m_readyRequest && type == u"kernel_info_reply"_s) {
            m_readyRequest.clear();
            setState(State::Idle);
            const auto queued = std::exchange(m_queue, {});
            for (const auto &[cell, code] : queued)
                send(cell, code);
            return;
        }
        if (type == u"execute_reply"_s) {
            const QString cell = m_cells.value(parent);
            if (cell.isEmpty()) {
                Q_EMIT replyReceived(parent, message); // evaluate()'s
                return;
            }
            const Reply reply{message.content.value(u"status"_s).toString(),
                              message.content.value(u"execution_count"_s).toInt(-1)};
            // The reply comes straight from the kernel, its iopub through the journal, often later:
            // the cell ends once both came (its execute_input, its outputs, its idle).
            if (m_sent.contains(parent) && m_running.contains(parent) && !m_idle.remove(parent)) {
                m_replies.insert(parent, reply);
                return;
            }
            finish(parent, reply);
            if (m_running.isEmpty() && m_state == State::Busy && m_readyRequest.isEmpty())
                setState(State::Idle);
            return;
        }
        Q_EMIT replyReceived(parent, message);
        return;
    }
    if (channel != Channel::IOPub)
        return;
    if (type == u"status"_s) {
        const QString state = message.content.value(u"execution_state"_s).toString();
        // An execution another client sent (one replayed from the journal after a reattach): its
        // reply went to that client; idle after it is its end.
        if (state == u"idle"_s && m_cells.contains(parent) && !m_sent.contains(parent)) {
            const int count = m_counts.take(parent);
            Q_EMIT cellFinished(m_cells.value(parent), m_errors.remove(parent) ? u"error"_s : u"ok"_s, count);
        }
        if (state == u"idle"_s && m_sent.contains(parent) && m_running.contains(parent)) {
            if (m_replies.contains(parent))
                finish(parent, m_replies.take(parent));
            else
                m_idle.insert(parent); // its reply is still on the way
        }
        if (m_readyRequest.isEmpty() && (m_state == State::Idle || m_state == State::Busy)) {
            if (state == u"busy"_s)
                setState(State::Busy);
            else if (state == u"idle"_s && m_running.isEmpty())
                setState(State::Idle);
        }
        return;
    }
    const QString cell = m_cells.value(parent);
    if (cell.isEmpty())
        return;
    if (type == u"execute_input"_s) {
        const int count = message.content.value(u"execution_count"_s).toInt(-1);
        if (!m_sent.contains(parent))
            m_counts.insert(parent, count);
        Q_EMIT cellStarted(cell, count);
        return;
    }
    if (type == u"error"_s && !m_sent.contains(parent))
        m_errors.insert(parent);
    Q_EMIT cellMessage(cell, message);
}

void NotebookKernel::tick()
{
    if (!m_connection)
        return;
    m_connection->keepLinked();
    ++m_ticks;
    if (!m_readyRequest.isEmpty() && m_ticks % (kReadyAskMs / kTickMs) == 0)
        m_readyRequest = m_connection->client().kernelInfo();
    if (m_ticks % 10 != 0) // the records, once a second
        return;
    if (const auto end = m_connection->ended()) {
        m_tick.stop();
        setState(State::Dead, endText(*end));
        failAll(u"aborted"_s);
        return;
    }
    // A restart counted by the keeper: ours (Restarting), or one asked elsewhere (`ferry kernel
    // restart`, another window) whose lost requests would otherwise wait for replies that never
    // come: the cells still pending end "aborted", as after our own restart.
    if (const auto keeper = m_connection->folder().readKeeper(); keeper && *keeper) {
        if ((*keeper)->restarts > m_restartsSeen) {
            m_restartsSeen = (*keeper)->restarts;
            if (m_state != State::Restarting) {
                failAll(u"aborted"_s);
                setState(State::Restarting);
                Q_EMIT progress(tr("the kernel was restarted elsewhere: its variables are gone"));
            }
            m_readyRequest = m_connection->client().kernelInfo();
            m_ticks = 0;
        }
    }
}

void NotebookKernel::finish(const QString &request, const Reply &reply)
{
    m_running.removeAll(request);
    Q_EMIT cellFinished(m_cells.value(request), reply.status, reply.executionCount);
}

void NotebookKernel::failAll(const QString &status)
{
    m_replies.clear();
    m_idle.clear();
    const QStringList running = std::exchange(m_running, {});
    for (const QString &request : running)
        Q_EMIT cellFinished(m_cells.value(request), status, -1);
    const auto queued = std::exchange(m_queue, {});
    for (const auto &[cell, code] : queued)
        Q_EMIT cellFinished(cell, status, -1);
}

void NotebookKernel::interrupt()
{
    if (!m_connection)
        return;
    // The protocol's interrupt; the queue would run next: it is dropped, as Jupyter does.
    m_connection->client().interrupt();
    const auto queued = std::exchange(m_queue, {});
    for (const auto &[cell, code] : queued)
        Q_EMIT cellFinished(cell, u"aborted"_s, -1);
}

void NotebookKernel::restart()
{
    if (!m_connection || m_state == State::Dead)
        return;
    failAll(u"aborted"_s);
    setState(State::Restarting);
    m_connection->client().shutdown(true);
    m_readyRequest = u"restarting"_s; // no reply matches: ready once the keeper counted the restart
}

void NotebookKernel::stop()
{
    failAll(u"aborted"_s);
    m_tick.stop();
    const QString folder = this->folder();
    m_connection.reset();
    if (folder.isEmpty()) {
        setState(State::None);
        return;
    }
    setState(State::Dead, tr("stopped"));
    const QString ferry = m_ferryBinary;
    QThread *thread = QThread::create([folder, ferry] { (void)stopKernel(folder, ferry); });
    connect(thread, &QThread::finished, thread, &QObject::deleteLater);
    thread->start();
}

QString NotebookKernel::complete(const QString &code, int cursorPos)
{
    return m_connection && m_readyRequest.isEmpty() ? m_connection->client().complete(code, cursorPos) : QString();
}

QString NotebookKernel::inspect(const QString &code, int cursorPos)
{
    return m_connection && m_readyRequest.isEmpty() ? m_connection->client().inspect(code, cursorPos, 0) : QString();
}

QString NotebookKernel::evaluate(const QJsonObject &userExpressions)
{
    if (!m_connection || !m_readyRequest.isEmpty() || m_state == State::Dead)
        return {};
    return m_connection->client().execute(QString(), true, false, false, false, userExpressions);
}

} // namespace ferry::kernels
