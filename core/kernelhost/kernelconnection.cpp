#include "kernelhost/kernelconnection.h"

#include "kernelhost/kernelhost.h"
#include "kernelhost/kernellink.h"
#include "kernels/journal.h"
#include "run/rundirectory.h"

#include <QCoreApplication>
#include <QDateTime>

#include <QElapsedTimer>
#include <QEventLoop>
#include <QTimer>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace ferry::kernels {

namespace {
// How long a cell idle without its execute_reply waits for it before its outputs count as all.
constexpr qint64 kLostReplyGraceMs = 3000;
// How often kernel_info is asked again while the kernel does not answer, and how many times
// after a restart.
constexpr qint64 kProbeEveryMs = 1000;
constexpr qsizetype kMaxProbes = 30;
} // namespace

KernelConnection::KernelConnection(KernelFolder folder, QString ferryBinary, std::unique_ptr<KernelLink> link,
                                   std::unique_ptr<KernelClient> client)
    : m_folder(std::move(folder)), m_ferryBinary(std::move(ferryBinary)), m_link(std::move(link)),
      m_client(std::move(client))
{
    connect(m_client.get(), &KernelClient::messageReceived, this,
            [this](Channel channel, const JupyterMessage &message) {
                if (channel == Channel::Shell || channel == Channel::Control)
                    m_replies.insert(message.parentId(), message);
                const bool ours = m_cell && m_cell->take(channel, message);
                if (channel == Channel::IOPub && m_onMessage && (ours || !m_cell))
                    m_onMessage(message);
                if (m_cell && !m_cell->replied() && keeperEvent(message) == u"restarted")
                    m_restartedMeanwhile = true;
            });
    const auto failed = [this](const Error &error) {
        if (!m_failure)
            m_failure = error;
    };
    connect(m_client.get(), &KernelClient::journalFailed, this, failed);
    connect(m_client.get(), &KernelClient::socketsFailed, this, failed);
}

KernelConnection::~KernelConnection() = default;

Expected<std::unique_ptr<KernelConnection>> KernelConnection::open(const QString &folderPath, qint64 journalOffset,
                                                                   const QString &ferryBinary)
{
    KernelFolder folder(folderPath);
    const auto spec = run::RunDirectory(folderPath).readSpec();
    if (!spec)
        return spec.error();
    const QString ferry = ferryBinary.isEmpty() ? QCoreApplication::applicationFilePath() : ferryBinary;
    auto link = openKernelLink(folder, *spec, ferry);
    if (!link)
        return link.error();
    const auto connection = folder.connectionForFerry(*link ? (*link)->ferrySocketDir() : QString());
    if (!connection)
        return connection.error();
    KernelClient::Options options;
    options.journalPath = folder.journalFile();
    if (journalOffset < 0) {
        const auto end = journalEnd(folder.journalFile());
        if (!end)
            return end.error();
        options.journalOffset = *end;
    } else {
        options.journalOffset = journalOffset;
    }
    auto client = std::make_unique<KernelClient>(*connection, options);
    if (auto started = client->start(); !started)
        return started.error();
    return std::unique_ptr<KernelConnection>(
        new KernelConnection(std::move(folder), ferry, std::move(*link), std::move(client)));
}

std::optional<KernelEnd> KernelConnection::ended() const
{
    const auto end = m_folder.readEnd();
    return end ? *end : std::nullopt;
}

std::optional<KernelEnd> KernelConnection::explainedEnd() const
{
    const auto end = ended();
    if (!end)
        return end;
    return kernels::explainedEnd(m_folder.path(), *end, m_ferryBinary);
}

void KernelConnection::keepLinked()
{
    if (m_link)
        (void)m_link->ensure();
}

bool KernelConnection::waitFor(const std::function<bool()> &done, int timeoutMs)
{
    QElapsedTimer clock;
    clock.start();
    QEventLoop loop;
    QTimer tick;
    tick.setInterval(100);
    QObject::connect(&tick, &QTimer::timeout, &loop, &QEventLoop::quit);
    QObject::connect(m_client.get(), &KernelClient::messageReceived, &loop, &QEventLoop::quit);
    tick.start();
    while (!done()) {
        keepLinked(); // a forward or the journal's copy that died (a cut connection) starts again
        if (timeoutMs >= 0 && clock.elapsed() >= timeoutMs)
            return false;
        if (m_failure || m_stopWaiting) // nothing more will come, or nobody waits for it
            return done();
        if (ended()) {
            // What the journal still holds of the end is delivered before giving up.
            loop.processEvents(QEventLoop::AllEvents, 200);
            return done();
        }
        loop.exec();
    }
    return true;
}

Expected<QJsonObject> KernelConnection::waitReady(int timeoutMs)
{
    QElapsedTimer clock;
    clock.start();
    // Asked again each second (a request may go down with a connection that is being cut); the
    // first answer to any of them is the kernel's.
    QStringList requests;
    const auto answer = [&] {
        return std::find_if(requests.cbegin(), requests.cend(),
                            [&](const QString &r) { return m_replies.contains(r); });
    };
    while (clock.elapsed() < timeoutMs) {
        requests << m_client->kernelInfo();
        if (waitFor([&] { return answer() != requests.cend(); }, 1000))
            return m_replies.value(*answer()).content;
        if (const auto end = ended())
            return Error{endSentence(*end) + u", before it answered"_s +
                             (end->logLines.isEmpty() ? QString() : u":\n"_s + end->logLines.join(u'\n')),
                         m_folder.path(),
                         0,
                         0,
                         {}};
    }
    return Error{
        u"the kernel did not answer kernel_info within %1 s (its keeper runs; the kernel hung while starting)"_s.arg(
            timeoutMs / 1000),
        m_folder.kernelLogFile(), 0, 0, u"its log (kernel.log) says what it did"_s};
}

Expected<CellOutputs> KernelConnection::execute(const QString &code, const MessageHandler &onMessage, int timeoutMs,
                                                bool stopOnError, bool keepOutputs)
{
    CellOutputs cell(m_client->execute(code, false, true, false, stopOnError), keepOutputs);
    m_timedOut = false;
    m_stopWaiting = false;
    m_restartedMeanwhile = false;
    m_cell = &cell;
    m_onMessage = onMessage;
    // A reply lost with a cut connection (the journal still has every output) does not hang the
    // cell: idle for a while without one is the end.
    const auto settled = [&] { return cell.settled(QDateTime::currentMSecsSinceEpoch(), kLostReplyGraceMs); };
    // The kernel restarted while the cell had no reply: kernel_info, sent after that, answered
    // while the cell still has none, says its request went to the kernel that has gone (a shell
    // request is answered only after those sent before it). Asked again each second, a few times:
    // one sent while the connection to the old kernel is still being cut (through a forward or a
    // bridge) goes down with it; once the new connection is made none is lost, and one waits
    // behind a long cell that did reach the new kernel.
    QStringList probes;
    QElapsedTimer lastProbe;
    const auto lostToRestart = [&] {
        if (!m_restartedMeanwhile || cell.replied())
            return false;
        if (std::any_of(probes.cbegin(), probes.cend(), [&](const QString &p) { return m_replies.contains(p); }))
            return true;
        if (probes.isEmpty() || (lastProbe.elapsed() >= kProbeEveryMs && probes.size() < kMaxProbes)) {
            probes << m_client->kernelInfo();
            lastProbe.start();
        }
        return false;
    };
    bool lost = false;
    const bool finished = waitFor([&] { return settled() || (lost = lostToRestart()); }, timeoutMs);
    if (lost) {
        m_cell = nullptr;
        m_onMessage = nullptr;
        const bool started = cell.executionCount().has_value();
        return Error{started ? u"the kernel restarted while the cell ran: the cell did not finish"_s
                             : u"the kernel restarted before the cell ran: the cell did not run"_s,
                     m_folder.path(), 0, 0,
                     u"the restarted kernel starts afresh: run again what the cell needs, then the cell"_s};
    }
    if (!finished && (m_failure || m_stopWaiting)) {
        m_cell = nullptr;
        m_onMessage = nullptr;
        if (m_failure)
            return *m_failure;
        return Error{u"stopped waiting for the cell: it goes on in the kernel"_s, m_folder.path(), 0, 0,
                     u"`ferry kernel attach %1` shows what it prints"_s.arg(m_folder.id())};
    }
    if (!finished && !ended() && timeoutMs >= 0) {
        m_timedOut = true;
        m_client->interrupt();
        waitFor(settled, 10000);
        m_cell = nullptr;
        m_onMessage = nullptr;
        return Error{u"the cell did not finish within %1 s: it was interrupted%2"_s.arg(timeoutMs / 1000)
                         .arg(cell.settled(QDateTime::currentMSecsSinceEpoch(), kLostReplyGraceMs)
                                  ? QString()
                                  : u" and did not stop"_s),
                     {},
                     0,
                     0,
                     {}};
    }
    m_cell = nullptr;
    m_onMessage = nullptr;
    if (!finished) {
        const auto end = explainedEnd();
        return Error{(end ? endSentence(*end) : u"the kernel ended"_s) + u", while the cell ran"_s, m_folder.path(), 0,
                     0, u"`ferry kernel show %1` shows its last lines"_s.arg(m_folder.id())};
    }
    return cell;
}

void KernelConnection::follow(const MessageHandler &onMessage, const std::function<bool()> &stop)
{
    m_cell = nullptr;
    m_stopWaiting = false;
    m_onMessage = onMessage;
    waitFor([&] { return stop(); }, -1);
    // The end was seen: the rest of the journal (its records are written before kernel-exit.json);
    // nothing more when the client failed or nobody reads.
    if (m_failure || m_stopWaiting) {
        m_onMessage = nullptr;
        return;
    }
    if (const auto end = journalEnd(m_folder.journalFile())) {
        QElapsedTimer clock;
        clock.start();
        QEventLoop loop;
        while (m_client->journalOffset() < *end && clock.elapsed() < 60000) {
            keepLinked();
            loop.processEvents(QEventLoop::AllEvents | QEventLoop::WaitForMoreEvents, 50);
        }
    }
    m_onMessage = nullptr;
}

} // namespace ferry::kernels
