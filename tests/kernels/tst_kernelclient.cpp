// KernelClient (core/kernels/kernelclient.h) against a real ipykernel (Debian's python3-ipykernel)
// on ipc sockets: requests and replies on every channel, state kept between cells, outputs as
// nbformat writes them (CellOutputs), an interrupt of a long sleep, the heartbeat of a stopped
// kernel, and a reply with a bad signature, which is dropped and counted, never delivered.
#include "kernels/celloutputs.h"
#include "kernels/connectionfile.h"
#include "kernels/kernelclient.h"

#include "support/testmain.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <zmq.hpp>
#include <zmq_addon.hpp>

#include <csignal>
#include <memory>

using namespace Qt::StringLiterals;
using namespace ferry::kernels;

namespace {

// Every message the client delivers, kept, so a test can wait for what it needs.
struct Received {
    QList<std::pair<Channel, JupyterMessage>> messages;

    std::optional<JupyterMessage> reply(const QString &requestId) const
    {
        for (const auto &[channel, message] : messages)
            if ((channel == Channel::Shell || channel == Channel::Control) && message.parentId() == requestId)
                return message;
        return std::nullopt;
    }
    CellOutputs cell(const QString &requestId) const
    {
        CellOutputs cell(requestId);
        for (const auto &[channel, message] : messages)
            cell.take(channel, message);
        return cell;
    }
};

KernelClient::Options socketOptions(int heartbeatMs = 1000)
{
    KernelClient::Options options;
    options.iopub = KernelClient::IopubSource::Socket;
    options.heartbeatIntervalMs = heartbeatMs;
    return options;
}

} // namespace

class TestKernelClient : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    ConnectionInfo m_connection;
    QProcess m_kernel;
    std::unique_ptr<KernelClient> m_client;
    Received m_received;

    // Runs `code`; returns its outputs once the kernel is idle after it.
    CellOutputs run(const QString &code, int timeoutMs = 30000)
    {
        const QString id = m_client->execute(code);
        if (!QTest::qWaitFor([&] { return m_received.cell(id).done(); }, timeoutMs))
            qWarning("the cell did not finish in %d ms: %s", timeoutMs, qPrintable(code));
        return m_received.cell(id);
    }
    JupyterMessage request(const QString &id)
    {
        if (!QTest::qWaitFor([&] { return m_received.reply(id).has_value(); }, 20000))
            return {};
        return *m_received.reply(id);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_connection = ConnectionInfo::ipc(m_dir.filePath(u"k"_s), u"python3"_s);
        QVERIFY(m_connection.write(m_dir.filePath(u"connection.json"_s)));
        m_kernel.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        m_kernel.start(u"/usr/bin/python3"_s,
                       {u"-m"_s, u"ipykernel_launcher"_s, u"-f"_s, m_dir.filePath(u"connection.json"_s)});
        QVERIFY(m_kernel.waitForStarted());
        m_client = std::make_unique<KernelClient>(m_connection, socketOptions());
        connect(m_client.get(), &KernelClient::messageReceived, this,
                [this](Channel channel, const JupyterMessage &message) {
                    m_received.messages.append({channel, message});
                });
        QVERIFY(m_client->start());
        // The slow joiner: until iopub delivers, the subscription may not be in place (kernel_info
        // until a status arrives, as jupyter_client's wait_for_ready does).
        QTRY_VERIFY_WITH_TIMEOUT(([this] {
                                     m_client->kernelInfo();
                                     QTest::qWait(100);
                                     for (const auto &[channel, message] : m_received.messages)
                                         if (channel == Channel::IOPub)
                                             return true;
                                     return false;
                                 }()),
                                 30000);
    }

    void kernelInfo()
    {
        const JupyterMessage reply = request(m_client->kernelInfo());
        QCOMPARE(reply.type(), u"kernel_info_reply"_s);
        QCOMPARE(reply.content.value(u"language_info"_s).toObject().value(u"name"_s).toString(), u"python"_s);
        QVERIFY(reply.content.value(u"protocol_version"_s).toString().startsWith(u"5."_s));
    }

    void stateBetweenCells()
    {
        QCOMPARE(run(u"x = 41"_s).outputs().size(), 0);
        const CellOutputs printed = run(u"print(x + 1)"_s);
        QCOMPARE(printed.status(), u"ok"_s);
        QCOMPARE(printed.outputs().size(), 1);
        QCOMPARE(printed.outputs()[0].toObject().value(u"text"_s).toString(), u"42\n"_s);
        const CellOutputs result = run(u"x * 2"_s);
        const QJsonObject out = result.outputs()[0].toObject();
        QCOMPARE(out.value(u"output_type"_s).toString(), u"execute_result"_s);
        QCOMPARE(out.value(u"data"_s).toObject().value(u"text/plain"_s).toString(), u"82"_s);
        QCOMPARE(out.value(u"execution_count"_s).toInt(), *result.executionCount());
    }

    void raises()
    {
        const CellOutputs cell = run(u"1 / 0"_s);
        QCOMPARE(cell.status(), u"error"_s);
        QVERIFY(cell.error());
        QCOMPARE(cell.error()->value(u"ename"_s).toString(), u"ZeroDivisionError"_s);
        QVERIFY(!cell.error()->value(u"traceback"_s).toArray().isEmpty());
    }

    void streamsMergeAndClear()
    {
        const CellOutputs cell =
            run(u"import sys\nfrom IPython.display import clear_output, display\nprint('a'); sys.stdout.flush()\n"
                "print('b'); clear_output(wait=True); print('c')\nprint('e', file=sys.stderr)"_s);
        QCOMPARE(cell.outputs().size(), 2);
        QCOMPARE(cell.outputs()[0].toObject().value(u"text"_s).toString(), u"c\n"_s);
        QCOMPARE(cell.outputs()[1].toObject().value(u"name"_s).toString(), u"stderr"_s);
        const CellOutputs updated = run(u"h = display('one', display_id=True)\nh.update('two')"_s);
        QCOMPARE(updated.outputs().size(), 1);
        QCOMPARE(updated.outputs()[0].toObject().value(u"data"_s).toObject().value(u"text/plain"_s).toString(),
                 u"'two'"_s);
    }

    void plotsPng()
    {
        const CellOutputs cell = run(u"import matplotlib.pyplot as plt\nplt.plot([1, 3, 2])\nplt.show()"_s, 60000);
        QCOMPARE(cell.status(), u"ok"_s);
        bool png = false;
        for (const QJsonValue &output : cell.outputs()) {
            const QString data = output.toObject().value(u"data"_s).toObject().value(u"image/png"_s).toString();
            png = png || QByteArray::fromBase64(data.toLatin1()).startsWith("\x89PNG");
        }
        QVERIFY2(png, "no image/png came back");
    }

    void completeInspectIsComplete()
    {
        const JupyterMessage completed = request(m_client->complete(u"import o"_s, 8));
        QVERIFY(completed.content.value(u"matches"_s).toArray().contains(u"os"_s));
        const JupyterMessage inspected = request(m_client->inspect(u"len"_s, 3));
        QVERIFY(inspected.content.value(u"found"_s).toBool());
        QCOMPARE(request(m_client->isComplete(u"for i in range(3):"_s)).content.value(u"status"_s).toString(),
                 u"incomplete"_s);
        QCOMPARE(request(m_client->isComplete(u"x = 1"_s)).content.value(u"status"_s).toString(), u"complete"_s);
        const JupyterMessage comms = request(m_client->sendComm(u"comm_info_request"_s, {}));
        QCOMPARE(comms.type(), u"comm_info_reply"_s);
    }

    void interruptsASleep()
    {
        const QString id = m_client->execute(u"import time\ntime.sleep(600)"_s);
        QTRY_VERIFY_WITH_TIMEOUT(([&] {
                                     for (const auto &[channel, message] : m_received.messages)
                                         if (message.type() == u"execute_input" && message.parentId() == id)
                                             return true;
                                     return false;
                                 }()),
                                 20000);
        QTest::qWait(300);
        QCOMPARE(request(m_client->interrupt()).type(), u"interrupt_reply"_s);
        QTRY_VERIFY_WITH_TIMEOUT(m_received.cell(id).done(), 20000);
        QCOMPARE(m_received.cell(id).error()->value(u"ename"_s).toString(), u"KeyboardInterrupt"_s);
        QCOMPARE(run(u"print(x)"_s).outputs()[0].toObject().value(u"text"_s).toString(), u"41\n"_s);
    }

    // comm messages both ways (what widgets speak): a target the kernel registers echoes what the
    // client sends on a comm it opened, with a binary buffer.
    void commsPassThrough()
    {
        run(u"def echo(comm, opened):\n"
            "    comm.send({'opened': opened['content']['data']})\n"
            "    comm.on_msg(lambda m: comm.send({'echo': m['content']['data']}, buffers=m['buffers']))\n"
            "get_ipython().kernel.comm_manager.register_target('ferry.echo', echo)"_s);
        const QString commId = u"c0ffee"_s;
        m_client->sendComm(
            u"comm_open"_s,
            {{u"comm_id"_s, commId}, {u"target_name"_s, u"ferry.echo"_s}, {u"data"_s, QJsonObject{{u"x"_s, 1}}}});
        m_client->sendComm(u"comm_msg"_s, {{u"comm_id"_s, commId}, {u"data"_s, QJsonObject{{u"y"_s, 2}}}},
                           {QByteArray("\x00\x01\x02", 3)});
        const auto comms = [&] {
            QList<JupyterMessage> found;
            for (const auto &[channel, message] : m_received.messages)
                if (channel == Channel::IOPub && message.type() == u"comm_msg" &&
                    message.content.value(u"comm_id"_s).toString() == commId)
                    found << message;
            return found;
        };
        QTRY_COMPARE_WITH_TIMEOUT(comms().size(), 2, 20000);
        QCOMPARE(comms()[0].content.value(u"data"_s).toObject().value(u"opened"_s).toObject().value(u"x"_s).toInt(), 1);
        QCOMPARE(comms()[1].content.value(u"data"_s).toObject().value(u"echo"_s).toObject().value(u"y"_s).toInt(), 2);
        QCOMPARE(comms()[1].buffers, QList<QByteArray>{QByteArray("\x00\x01\x02", 3)});
    }

    void heartbeatOfAStoppedKernel()
    {
        QSignalSpy beats(m_client.get(), &KernelClient::heartbeatChanged);
        ::kill(pid_t(m_kernel.processId()), SIGSTOP);
        QTRY_VERIFY_WITH_TIMEOUT(!m_client->heartbeating(), 10000);
        ::kill(pid_t(m_kernel.processId()), SIGCONT);
        QTRY_VERIFY_WITH_TIMEOUT(m_client->heartbeating(), 10000);
        QCOMPARE(beats.size(), 2);
    }

    // A "kernel" that signs its reply with the wrong key: the client drops it and counts it.
    void badSignatureDropped()
    {
        QTemporaryDir dir;
        ConnectionInfo fake = ConnectionInfo::ipc(dir.filePath(u"f"_s), u"fake"_s);
        zmq::context_t context;
        zmq::socket_t shell(context, zmq::socket_type::router);
        shell.bind(fake.endpoint(Channel::Shell).toStdString());
        KernelClient client(fake, socketOptions(0));
        Received received;
        connect(&client, &KernelClient::messageReceived, this, [&](Channel channel, const JupyterMessage &message) {
            received.messages.append({channel, message});
        });
        QVERIFY(client.start());
        const QString id = client.kernelInfo();
        std::vector<zmq::message_t> request;
        QVERIFY(zmq::recv_multipart(shell, std::back_inserter(request)));
        const QByteArray identity(static_cast<const char *>(request[0].data()), qsizetype(request[0].size()));
        JupyterMessage reply = newMessage(u"kernel_info_reply"_s, u"k"_s, {{u"status"_s, u"ok"_s}});
        reply.parentHeader = QJsonObject{{u"msg_id"_s, id}};
        reply.identities = {identity};
        for (const QByteArray &key : {QByteArray("not the key"), fake.key}) {
            QList<QByteArray> frames = toFrames(reply, key);
            std::vector<zmq::const_buffer> parts;
            for (const QByteArray &f : frames)
                parts.emplace_back(f.constData(), size_t(f.size()));
            zmq::send_multipart(shell, parts);
        }
        QTRY_COMPARE_WITH_TIMEOUT(received.messages.size(), 1, 10000);
        QCOMPARE(client.droppedMessages(), quint64(1));
    }

    void shutdown()
    {
        QCOMPARE(request(m_client->shutdown()).type(), u"shutdown_reply"_s);
        QVERIFY(m_kernel.waitForFinished(20000));
        QCOMPARE(m_kernel.exitCode(), 0);
        QCOMPARE(m_client->droppedMessages(), quint64(0));
    }

    void cleanupTestCase()
    {
        m_client.reset();
        if (m_kernel.state() != QProcess::NotRunning) {
            m_kernel.kill();
            m_kernel.waitForFinished();
        }
    }
};

FERRY_TEST_GUILESS_MAIN(TestKernelClient)
#include "tst_kernelclient.moc"
