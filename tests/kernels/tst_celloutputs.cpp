// One execution's outputs as nbformat writes them (core/kernels/celloutputs.h), from synthetic
// messages: the messages of other requests left alone, consecutive streams of one name merged,
// clear_output with wait deferred to the next output, update_display_data replacing its display,
// the status; and a cell whose execute_reply was lost (a cut connection) settling once idle.
#include "kernels/celloutputs.h"

#include "support/testmain.h"

#include <QDateTime>
#include <QJsonArray>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace ferry::kernels;

namespace {

JupyterMessage iopub(const QString &type, const QJsonObject &content, const QString &parent = u"req"_s)
{
    return newMessage(type, u"kernel"_s, content, QJsonObject{{u"msg_id"_s, parent}});
}
JupyterMessage stream(const QString &name, const QString &text)
{
    return iopub(u"stream"_s, {{u"name"_s, name}, {u"text"_s, text}});
}
JupyterMessage idle()
{
    return iopub(u"status"_s, {{u"execution_state"_s, u"idle"_s}});
}

} // namespace

class TestCellOutputs : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void outputsAsNbformatWritesThem()
    {
        CellOutputs cell(u"req"_s);
        QVERIFY(!cell.take(Channel::IOPub,
                           iopub(u"stream"_s, {{u"name"_s, u"stdout"_s}, {u"text"_s, u"other\n"_s}}, u"x"_s)));
        QVERIFY(
            cell.take(Channel::IOPub, iopub(u"execute_input"_s, {{u"code"_s, u"..."_s}, {u"execution_count"_s, 7}})));
        cell.take(Channel::IOPub, stream(u"stdout"_s, u"a\n"_s));
        cell.take(Channel::IOPub, stream(u"stdout"_s, u"b\n"_s));
        cell.take(Channel::IOPub, stream(u"stderr"_s, u"e\n"_s));
        cell.take(Channel::IOPub,
                  iopub(u"display_data"_s, {{u"data"_s, QJsonObject{{u"text/plain"_s, u"one"_s}}},
                                            {u"metadata"_s, QJsonObject()},
                                            {u"transient"_s, QJsonObject{{u"display_id"_s, u"d1"_s}}}}));
        cell.take(Channel::IOPub,
                  iopub(u"update_display_data"_s, {{u"data"_s, QJsonObject{{u"text/plain"_s, u"two"_s}}},
                                                   {u"metadata"_s, QJsonObject()},
                                                   {u"transient"_s, QJsonObject{{u"display_id"_s, u"d1"_s}}}}));
        cell.take(Channel::IOPub, iopub(u"execute_result"_s, {{u"data"_s, QJsonObject{{u"text/plain"_s, u"42"_s}}},
                                                              {u"metadata"_s, QJsonObject()}}));
        QCOMPARE(cell.outputs().size(), 4);
        QCOMPARE(cell.outputs()[0].toObject().value(u"text"_s).toString(), u"a\nb\n"_s);
        QCOMPARE(cell.outputs()[1].toObject().value(u"name"_s).toString(), u"stderr"_s);
        QCOMPARE(cell.outputs()[2].toObject().value(u"data"_s).toObject().value(u"text/plain"_s).toString(), u"two"_s);
        QCOMPARE(cell.outputs()[3].toObject().value(u"execution_count"_s).toInt(), 7);
        QVERIFY(!cell.done());
        cell.take(Channel::Shell,
                  newMessage(u"execute_reply"_s, u"kernel"_s, {{u"status"_s, u"ok"_s}, {u"execution_count"_s, 7}},
                             QJsonObject{{u"msg_id"_s, u"req"_s}}));
        cell.take(Channel::IOPub, idle());
        QVERIFY(cell.done());
        QCOMPARE(cell.status(), u"ok"_s);
        QCOMPARE(*cell.executionCount(), 7);
    }

    void clearOutputWaitsForTheNext()
    {
        CellOutputs cell(u"req"_s);
        cell.take(Channel::IOPub, stream(u"stdout"_s, u"step 1\n"_s));
        cell.take(Channel::IOPub, iopub(u"clear_output"_s, {{u"wait"_s, true}}));
        QCOMPARE(cell.outputs().size(), 1);
        cell.take(Channel::IOPub, stream(u"stdout"_s, u"step 2\n"_s));
        QCOMPARE(cell.outputs().size(), 1);
        QCOMPARE(cell.outputs()[0].toObject().value(u"text"_s).toString(), u"step 2\n"_s);
        cell.take(Channel::IOPub, iopub(u"clear_output"_s, {{u"wait"_s, false}}));
        QVERIFY(cell.outputs().isEmpty());
    }

    void keepingNothingButTheError()
    {
        CellOutputs cell(u"req"_s, false);
        cell.take(Channel::IOPub, stream(u"stdout"_s, u"a million lines\n"_s));
        cell.take(Channel::IOPub, iopub(u"error"_s, {{u"ename"_s, u"ValueError"_s},
                                                     {u"evalue"_s, u"bad"_s},
                                                     {u"traceback"_s, QJsonArray{u"..."_s}}}));
        QCOMPARE(cell.outputs().size(), 1);
        QCOMPARE(cell.error()->value(u"ename"_s).toString(), u"ValueError"_s);
    }

    // The reply lost on a cut connection: idle for the grace without one, the cell is over, its
    // status from its outputs.
    void aLostReplySettlesOnceIdle()
    {
        CellOutputs cell(u"req"_s);
        cell.take(Channel::IOPub, stream(u"stdout"_s, u"done\n"_s));
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        QVERIFY(!cell.settled(now, 3000));
        QVERIFY(cell.status().isEmpty());
        cell.take(Channel::IOPub, idle());
        QVERIFY(!cell.done());
        QVERIFY(!cell.settled(QDateTime::currentMSecsSinceEpoch(), 3000));
        QVERIFY(cell.settled(QDateTime::currentMSecsSinceEpoch() + 3000, 3000));
        QVERIFY(cell.replyLost());
        QCOMPARE(cell.status(), u"ok"_s);
        CellOutputs raised(u"req"_s);
        raised.take(Channel::IOPub,
                    iopub(u"error"_s, {{u"ename"_s, u"E"_s}, {u"evalue"_s, u""_s}, {u"traceback"_s, QJsonArray()}}));
        raised.take(Channel::IOPub, idle());
        QCOMPARE(raised.status(), u"error"_s);
    }
};

FERRY_TEST_GUILESS_MAIN(TestCellOutputs)
#include "tst_celloutputs.moc"
