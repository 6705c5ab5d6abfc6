#include "kernels/kernelclient.h"

#include "kernels/journal.h"

#include <QFile>
#include <QMetaObject>
#include <QUuid>

#include <zmq.hpp>
#include <zmq_addon.hpp>

#include <atomic>
#include <chrono>
#include <csignal>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <pthread.h>
#include <sys/inotify.h>
#include <unistd.h>

using namespace Qt::StringLiterals;

namespace ferry::kernels {

namespace {

using Clock = std::chrono::steady_clock;

// At most this much undelivered iopub is held: past it the journal waits (it is on disk), so
// a slow owner (a busy window) never makes the client's memory grow with the kernel's output.
constexpr qsizetype kMaxHeldMessages = 1000;
constexpr qint64 kMaxHeldBytes = 8 << 20; // one larger message still passes, alone

qint64 sizeOf(const QList<QByteArray> &frames)
{
    qint64 total = 0;
    for (const QByteArray &f : frames)
        total += f.size();
    return total;
}

} // namespace

// The I/O thread's half: the sockets, the journal, and the queues between the two threads.
class KernelClientIo {
public:
    struct Event {
        enum Kind { Message, Heartbeat, JournalFailed, SocketsFailed } kind = Message;
        Channel channel = Channel::Shell;
        JupyterMessage message;
        qint64 journalOffset = -1;
        qint64 bytes = 0;
        bool beating = true;
        Error error;
    };

    KernelClientIo(KernelClient *owner, const ConnectionInfo &connection, const KernelClient::Options &options,
                   const QByteArray &routingId)
        : m_owner(owner), m_connection(connection), m_options(options), m_routingId(routingId)
    {
    }

    ~KernelClientIo() { stop(); }

    Expected<void> start();
    void stop() noexcept;
    void post(Channel channel, QList<QByteArray> frames);
    std::vector<Event> takeEvents();

    std::atomic<quint64> dropped{0};

private:
    void run();
    void loop();
    void wakeOwner();
    void push(Event event);
    bool holdingTooMuch();
    void readSocket(zmq::socket_t &socket, Channel channel);
    void flushOutbox();
    void readJournal();
    void beat(Clock::time_point now);
    void beatOnce(Clock::time_point now);
    zmq::socket_t makeHeartbeat();

    KernelClient *m_owner;
    ConnectionInfo m_connection;
    KernelClient::Options m_options;
    QByteArray m_routingId;

    zmq::context_t m_context;
    zmq::socket_t m_shell, m_control, m_stdin, m_hb, m_iopub;
    zmq::socket_t m_wakeOwnerSide, m_wakeIoSide;
    std::mutex m_wakeMutex; // the owner side of the wake pair, used from the owner's thread(s)
    std::thread m_thread;
    std::atomic<bool> m_stopping{false};

    std::mutex m_mutex; // guards what follows
    std::deque<std::pair<Channel, QList<QByteArray>>> m_outbox;
    std::vector<Event> m_inbox;
    qint64 m_heldBytes = 0;
    bool m_ownerCalled = false;

    // The journal (I/O thread only).
    int m_journalFd = -1;
    int m_inotifyFd = -1;
    qint64 m_fileOffset = 0;
    JournalReader m_reader;
    QByteArray m_chunk; // the read buffer, made once
    bool m_journalDone = false;

    // The heartbeat (I/O thread only).
    bool m_awaitingBeat = false;
    bool m_beating = true;
    Clock::time_point m_beatSent;
    Clock::time_point m_nextBeat;
};

Expected<void> KernelClientIo::start()
{
    try {
        const auto dealer = [&](Channel channel) {
            zmq::socket_t s(m_context, zmq::socket_type::dealer);
            s.set(zmq::sockopt::linger, 0);
            s.set(zmq::sockopt::routing_id, zmq::const_buffer(m_routingId.constData(), size_t(m_routingId.size())));
            s.connect(m_connection.endpoint(channel).toStdString());
            return s;
        };
        m_shell = dealer(Channel::Shell);
        m_control = dealer(Channel::Control);
        m_stdin = dealer(Channel::Stdin);
        m_hb = makeHeartbeat();
        if (m_options.iopub == KernelClient::IopubSource::Socket) {
            m_iopub = zmq::socket_t(m_context, zmq::socket_type::sub);
            m_iopub.set(zmq::sockopt::linger, 0);
            m_iopub.set(zmq::sockopt::rcvhwm, 0);
            m_iopub.set(zmq::sockopt::subscribe, "");
            m_iopub.connect(m_connection.endpoint(Channel::IOPub).toStdString());
        }
        const std::string wake =
            "inproc://ferry-kernel-client-" + QUuid::createUuid().toString(QUuid::Id128).toStdString();
        m_wakeIoSide = zmq::socket_t(m_context, zmq::socket_type::pair);
        m_wakeIoSide.bind(wake);
        m_wakeOwnerSide = zmq::socket_t(m_context, zmq::socket_type::pair);
        m_wakeOwnerSide.set(zmq::sockopt::linger, 0);
        m_wakeOwnerSide.connect(wake);
    } catch (const zmq::error_t &e) {
        return Error{u"cannot open the kernel's sockets: "_s + QString::fromLocal8Bit(e.what()),
                     m_connection.endpoint(Channel::Shell),
                     0,
                     0,
                     {}};
    }
    if (m_options.iopub == KernelClient::IopubSource::Journal) {
        const QByteArray path = QFile::encodeName(m_options.journalPath);
        m_journalFd = ::open(path.constData(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        if (m_journalFd < 0)
            return Error{u"cannot read the kernel's journal: "_s + errnoText(), m_options.journalPath, 0, 0, {}};
        m_inotifyFd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
        if (m_inotifyFd >= 0)
            inotify_add_watch(m_inotifyFd, path.constData(), IN_MODIFY | IN_CLOSE_WRITE | IN_ATTRIB | IN_DELETE_SELF);
        m_fileOffset = m_options.journalOffset;
        m_reader = JournalReader(m_fileOffset);
    }
    m_nextBeat = Clock::now();
    // The thread is born with every signal blocked (as ZeroMQ's own threads are): a signal is
    // handled by the owner's thread (Ctrl-C in `ferry kernel exec`), never in the middle of a
    // ZeroMQ call here, which it would fail with EINTR.
    sigset_t all;
    sigset_t before;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &before);
    m_thread = std::thread([this] { run(); });
    pthread_sigmask(SIG_SETMASK, &before, nullptr);
    return {};
}

void KernelClientIo::stop() noexcept
{
    if (m_thread.joinable()) {
        m_stopping = true;
        try {
            std::lock_guard lock(m_wakeMutex);
            m_wakeOwnerSide.send(zmq::str_buffer("x"), zmq::send_flags::dontwait);
        } catch (...) { // the thread also looks at m_stopping every 100 ms
        }
        try {
            m_thread.join();
        } catch (...) {
            m_thread.detach(); // cannot happen for a joinable thread of ours; never throw from here
        }
    }
    if (m_journalFd >= 0)
        ::close(m_journalFd);
    if (m_inotifyFd >= 0)
        ::close(m_inotifyFd);
    m_journalFd = m_inotifyFd = -1;
}

zmq::socket_t KernelClientIo::makeHeartbeat()
{
    zmq::socket_t s(m_context, zmq::socket_type::req);
    s.set(zmq::sockopt::linger, 0);
    s.connect(m_connection.endpoint(Channel::Heartbeat).toStdString());
    return s;
}

void KernelClientIo::post(Channel channel, QList<QByteArray> frames)
{
    {
        std::lock_guard lock(m_mutex);
        m_outbox.emplace_back(channel, std::move(frames));
    }
    std::lock_guard lock(m_wakeMutex);
    if (m_wakeOwnerSide)
        m_wakeOwnerSide.send(zmq::str_buffer("s"), zmq::send_flags::dontwait);
}

std::vector<KernelClientIo::Event> KernelClientIo::takeEvents()
{
    std::vector<Event> events;
    bool resume = false;
    {
        std::lock_guard lock(m_mutex);
        events.swap(m_inbox);
        resume = m_heldBytes >= kMaxHeldBytes || qsizetype(events.size()) >= kMaxHeldMessages;
        m_heldBytes = 0;
        m_ownerCalled = false;
    }
    if (resume) { // the journal may have waited for room: wake the thread to read on
        std::lock_guard lock(m_wakeMutex);
        m_wakeOwnerSide.send(zmq::str_buffer("r"), zmq::send_flags::dontwait);
    }
    return events;
}

void KernelClientIo::push(Event event)
{
    bool call = false;
    {
        std::lock_guard lock(m_mutex);
        m_heldBytes += event.bytes;
        m_inbox.push_back(std::move(event));
        call = !m_ownerCalled;
        m_ownerCalled = true;
    }
    if (call)
        wakeOwner();
}

bool KernelClientIo::holdingTooMuch()
{
    std::lock_guard lock(m_mutex);
    return m_heldBytes >= kMaxHeldBytes || qsizetype(m_inbox.size()) >= kMaxHeldMessages;
}

void KernelClientIo::wakeOwner()
{
    QMetaObject::invokeMethod(m_owner, &KernelClient::deliver, Qt::QueuedConnection);
}

void KernelClientIo::readSocket(zmq::socket_t &socket, Channel channel)
{
    for (;;) {
        std::vector<zmq::message_t> parts;
        const auto got = zmq::recv_multipart(socket, std::back_inserter(parts), zmq::recv_flags::dontwait);
        if (!got)
            return;
        QList<QByteArray> frames;
        frames.reserve(qsizetype(parts.size()));
        qint64 bytes = 0;
        for (const zmq::message_t &part : parts) {
            frames << QByteArray(static_cast<const char *>(part.data()), qsizetype(part.size()));
            bytes += qint64(part.size());
        }
        auto message = fromFrames(frames, m_connection.key);
        if (!message) {
            ++dropped;
            continue;
        }
        Event event;
        event.channel = channel;
        event.message = std::move(*message);
        event.bytes = bytes;
        push(std::move(event));
    }
}

void KernelClientIo::flushOutbox()
{
    for (;;) {
        std::pair<Channel, QList<QByteArray>> item;
        {
            std::lock_guard lock(m_mutex);
            if (m_outbox.empty())
                return;
            item = std::move(m_outbox.front());
            m_outbox.pop_front();
        }
        zmq::socket_t *socket = item.first == Channel::Control ? &m_control
                                : item.first == Channel::Stdin ? &m_stdin
                                                               : &m_shell;
        std::vector<zmq::const_buffer> parts;
        parts.reserve(size_t(item.second.size()));
        for (const QByteArray &frame : item.second)
            parts.emplace_back(frame.constData(), size_t(frame.size()));
        // A DEALER queues while the kernel's socket is not there yet; a full queue blocks briefly.
        zmq::send_multipart(*socket, parts);
    }
}

void KernelClientIo::readJournal()
{
    if (m_journalFd < 0 || m_journalDone)
        return;
    if (m_chunk.isEmpty())
        m_chunk.resize(1 << 20);
    while (!m_stopping && !holdingTooMuch()) {
        const ssize_t n = ::pread(m_journalFd, m_chunk.data(), size_t(m_chunk.size()), m_fileOffset);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            Event event;
            event.kind = Event::JournalFailed;
            event.error = Error{u"cannot read the kernel's journal: "_s + errnoText(), m_options.journalPath, 0, 0, {}};
            m_journalDone = true;
            push(std::move(event));
            return;
        }
        if (n == 0)
            return;
        m_fileOffset += n;
        m_reader.feed(QByteArrayView(m_chunk.constData(), n));
        while (auto record = m_reader.next()) {
            auto message = messageOf(*record, m_connection.key);
            if (!message) {
                ++dropped;
                continue;
            }
            Event event;
            event.channel = Channel::IOPub;
            event.message = std::move(*message);
            event.journalOffset = record->endOffset;
            event.bytes = sizeOf(record->frames);
            push(std::move(event));
        }
        if (m_reader.error()) {
            Event event;
            event.kind = Event::JournalFailed;
            event.error = Error{m_reader.error()->message, m_options.journalPath, 0, 0, {}};
            m_journalDone = true;
            push(std::move(event));
            return;
        }
    }
}

void KernelClientIo::beat(Clock::time_point now)
{
    if (m_options.heartbeatIntervalMs <= 0)
        return;
    try {
        beatOnce(now);
    } catch (const zmq::error_t &e) {
        if (e.num() == EINTR)
            return;
        // A REQ socket out of step (a reply that was not ours): a fresh one, as after a miss.
        m_hb = makeHeartbeat();
        m_awaitingBeat = false;
    }
}

void KernelClientIo::beatOnce(Clock::time_point now)
{
    if (m_awaitingBeat) {
        if (m_hb.get(zmq::sockopt::events) & ZMQ_POLLIN) {
            zmq::message_t reply; // one: a REQ socket that has its reply may only send next
            (void)m_hb.recv(reply, zmq::recv_flags::dontwait);
            m_awaitingBeat = false;
            if (!m_beating) {
                m_beating = true;
                Event event;
                event.kind = Event::Heartbeat;
                event.beating = true;
                push(std::move(event));
            }
        } else if (now - m_beatSent >= std::chrono::milliseconds(m_options.heartbeatTimeoutMs)) {
            // A REQ socket that missed its reply can send nothing more: a fresh one (jupyter_client's HBChannel).
            m_hb = makeHeartbeat();
            m_awaitingBeat = false;
            if (m_beating) {
                m_beating = false;
                Event event;
                event.kind = Event::Heartbeat;
                event.beating = false;
                push(std::move(event));
            }
        }
    }
    if (!m_awaitingBeat && now >= m_nextBeat) {
        if (m_hb.send(zmq::str_buffer("ping"), zmq::send_flags::dontwait)) {
            m_awaitingBeat = true;
            m_beatSent = now;
        }
        m_nextBeat = now + std::chrono::milliseconds(m_options.heartbeatIntervalMs);
    }
}

// The thread's body: no exception leaves it (one would end the whole program). A ZeroMQ call
// interrupted by a signal is made again at the next turn; any other error stops the thread and
// is reported (socketsFailed), as is anything else thrown.
void KernelClientIo::run()
{
    QString failure;
    for (;;) {
        try {
            loop();
            return;
        } catch (const zmq::error_t &e) {
            if (e.num() == EINTR && !m_stopping)
                continue;
            failure = u"the kernel's sockets failed: "_s + QString::fromLocal8Bit(e.what());
        } catch (const std::exception &e) {
            failure = u"the kernel's client failed: "_s + QString::fromLocal8Bit(e.what());
        }
        break;
    }
    if (m_stopping)
        return;
    Event event;
    event.kind = Event::SocketsFailed;
    event.error = Error{failure, m_connection.endpoint(Channel::Shell), 0, 0,
                        u"the kernel itself may still run: `ferry kernel show` says"_s};
    push(std::move(event));
}

void KernelClientIo::loop()
{
    readJournal();
    while (!m_stopping) {
        std::vector<zmq::pollitem_t> items = {
            {m_wakeIoSide.handle(), 0, ZMQ_POLLIN, 0}, {m_shell.handle(), 0, ZMQ_POLLIN, 0},
            {m_control.handle(), 0, ZMQ_POLLIN, 0},    {m_stdin.handle(), 0, ZMQ_POLLIN, 0},
            {m_hb.handle(), 0, ZMQ_POLLIN, 0},
        };
        const size_t extra = items.size();
        if (m_iopub)
            items.push_back({m_iopub.handle(), 0, ZMQ_POLLIN, 0});
        else if (m_inotifyFd >= 0 && !m_journalDone)
            items.push_back({nullptr, m_inotifyFd, ZMQ_POLLIN, 0});
        // Wake for the heartbeat, and re-read the journal now and then even without a change
        // notice (a file system without inotify, a notice lost).
        const long timeoutMs = 100;
        try {
            zmq::poll(items.data(), items.size(), std::chrono::milliseconds(timeoutMs));
        } catch (const zmq::error_t &) {
            continue; // EINTR
        }
        if (items[0].revents & ZMQ_POLLIN) {
            zmq::message_t m;
            while (m_wakeIoSide.recv(m, zmq::recv_flags::dontwait)) {
            }
        }
        if (m_stopping)
            break;
        flushOutbox();
        readSocket(m_shell, Channel::Shell);
        readSocket(m_control, Channel::Control);
        readSocket(m_stdin, Channel::Stdin);
        if (m_iopub && (items[extra].revents & ZMQ_POLLIN))
            readSocket(m_iopub, Channel::IOPub);
        if (!m_iopub && m_inotifyFd >= 0 && items.size() > extra && (items[extra].revents & ZMQ_POLLIN)) {
            char buffer[4096];
            while (::read(m_inotifyFd, buffer, sizeof buffer) > 0) {
            }
        }
        readJournal();
        beat(Clock::now());
    }
}

KernelClient::KernelClient(ConnectionInfo connection, Options options, QObject *parent)
    : QObject(parent), m_connection(std::move(connection)), m_options(std::move(options)),
      m_session(QUuid::createUuid().toString(QUuid::WithoutBraces)), m_journalOffset(m_options.journalOffset)
{
}

KernelClient::~KernelClient()
{
    if (m_io)
        m_io->stop();
}

Expected<void> KernelClient::start()
{
    if (m_io)
        return {};
    auto io = std::make_unique<KernelClientIo>(this, m_connection, m_options, m_session.toUtf8());
    if (auto started = io->start(); !started)
        return started.error();
    m_io = std::move(io);
    return {};
}

QString KernelClient::send(Channel channel, const QString &type, const QJsonObject &content,
                           const QJsonObject &metadata, const QList<QByteArray> &buffers)
{
    JupyterMessage message = newMessage(type, m_session, content);
    message.header.insert(u"username"_s, m_options.username);
    message.metadata = metadata;
    message.buffers = buffers;
    const QString id = message.id();
    if (m_io)
        m_io->post(channel, toFrames(message, m_connection.key));
    return id;
}

QString KernelClient::execute(const QString &code, bool silent, bool storeHistory, bool allowStdin, bool stopOnError,
                              const QJsonObject &userExpressions)
{
    return send(Channel::Shell, u"execute_request"_s,
                {{u"code"_s, code},
                 {u"silent"_s, silent},
                 {u"store_history"_s, storeHistory},
                 {u"user_expressions"_s, userExpressions},
                 {u"allow_stdin"_s, allowStdin},
                 {u"stop_on_error"_s, stopOnError}});
}

QString KernelClient::complete(const QString &code, int cursorPos)
{
    return send(Channel::Shell, u"complete_request"_s, {{u"code"_s, code}, {u"cursor_pos"_s, cursorPos}});
}

QString KernelClient::inspect(const QString &code, int cursorPos, int detailLevel)
{
    return send(Channel::Shell, u"inspect_request"_s,
                {{u"code"_s, code}, {u"cursor_pos"_s, cursorPos}, {u"detail_level"_s, detailLevel}});
}

QString KernelClient::isComplete(const QString &code)
{
    return send(Channel::Shell, u"is_complete_request"_s, {{u"code"_s, code}});
}

QString KernelClient::kernelInfo()
{
    return send(Channel::Shell, u"kernel_info_request"_s, {});
}

QString KernelClient::interrupt()
{
    return send(Channel::Control, u"interrupt_request"_s, {});
}

QString KernelClient::shutdown(bool restart)
{
    return send(Channel::Control, u"shutdown_request"_s, {{u"restart"_s, restart}});
}

QString KernelClient::inputReply(const QString &value, const QJsonObject &parent)
{
    JupyterMessage message = newMessage(u"input_reply"_s, m_session, {{u"value"_s, value}}, parent);
    message.header.insert(u"username"_s, m_options.username);
    const QString id = message.id();
    if (m_io)
        m_io->post(Channel::Stdin, toFrames(message, m_connection.key));
    return id;
}

QString KernelClient::sendComm(const QString &type, const QJsonObject &content, const QList<QByteArray> &buffers)
{
    return send(Channel::Shell, type, content, {}, buffers);
}

quint64 KernelClient::droppedMessages() const
{
    return m_io ? m_io->dropped.load() : 0;
}

void KernelClient::deliver()
{
    if (!m_io)
        return;
    // Events are handled in order; a handler may delete this client (a queued deleteLater is
    // safe, a direct delete is not).
    for (auto &event : m_io->takeEvents()) {
        switch (event.kind) {
        case KernelClientIo::Event::Message:
            if (event.journalOffset >= 0)
                m_journalOffset = event.journalOffset;
            Q_EMIT messageReceived(event.channel, event.message);
            break;
        case KernelClientIo::Event::Heartbeat:
            m_beating = event.beating;
            Q_EMIT heartbeatChanged(event.beating);
            break;
        case KernelClientIo::Event::JournalFailed:
            Q_EMIT journalFailed(event.error);
            break;
        case KernelClientIo::Event::SocketsFailed:
            Q_EMIT socketsFailed(event.error);
            break;
        }
    }
}

} // namespace ferry::kernels
