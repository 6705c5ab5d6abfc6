// CellOutputs: what one execute_request produced, as a notebook cell's outputs (nbformat 4).
#pragma once

#include "kernels/connectionfile.h"
#include "kernels/jupytermessage.h"
#include "kernels/streamtext.h"

#include <QHash>
#include <QJsonArray>
#include <QJsonObject>
#include <QString>

#include <optional>

namespace ferry::kernels {

// Collects the messages of one execution (those whose parent is the request): its outputs as
// nbformat 4 writes them (stream, display_data, execute_result, error; consecutive streams of
// one name merged, as Jupyter's front ends show them; clear_output honoured, with wait=True
// deferred to the next output; update_display_data replacing the output of its display_id),
// its reply, and whether it is over: the reply has come and the kernel went idle after it.
// A stream keeps its first and last lines within `streamLimits` (kernels/streamtext.h: a cell
// that prints a million lines holds ten thousand, and says how many it left out), and costs the
// same for each chunk however long it grew.
class CellOutputs {
public:
    // `keepOutputs` false: only the reply, the state and an error are kept (a cell that prints
    // a million lines costs no memory; its output stays in the journal).
    explicit CellOutputs(QString requestId, bool keepOutputs = true, StreamLimits streamLimits = {})
        : m_requestId(std::move(requestId)), m_keepOutputs(keepOutputs), m_streamLimits(streamLimits)
    {
    }

    // Takes `message` when it belongs to this execution (true), else leaves it (false).
    bool take(Channel channel, const JupyterMessage &message);
    // An update_display_data for another cell's display may still concern one of ours.
    bool update(const JupyterMessage &message);

    bool replied() const { return m_reply.has_value(); }
    bool idle() const { return m_idle; }
    bool done() const { return replied() && m_idle; }
    // Over as far as anyone can know: done, or idle for `graceMs` without a reply (a reply lost
    // with a cut connection: the outputs, from the journal, are whole; status() then says "ok", or
    // "error" when an error output came).
    bool settled(qint64 nowMs, qint64 graceMs) const { return done() || (m_idle && nowMs - m_idleAtMs >= graceMs); }
    bool replyLost() const { return m_idle && !replied(); }
    const QString &requestId() const { return m_requestId; }

    const QJsonArray &outputs() const;
    // execute_reply's execution_count (also the execute_input's), when known.
    std::optional<int> executionCount() const { return m_executionCount; }
    // "ok", "error", "aborted" (the reply's; without one, once idle: "error" when an error output
    // came, else "ok"); empty before either.
    QString status() const;
    const std::optional<QJsonObject> &reply() const { return m_reply; }
    // The error output, when the cell raised (its ename, evalue, traceback).
    std::optional<QJsonObject> error() const;

    // An iopub message as an nbformat 4 output (nullopt for messages that are no output).
    static std::optional<QJsonObject> outputOf(const JupyterMessage &message, std::optional<int> executionCount);

private:
    void append(const QJsonObject &output, const QString &displayId);
    void clear();

    QString m_requestId;
    bool m_keepOutputs = true;
    StreamLimits m_streamLimits;
    mutable QJsonArray m_outputs;
    // The last output's text while it is a stream that may grow; written into m_outputs when
    // they are read (m_streamChanged).
    std::optional<StreamText> m_stream;
    mutable bool m_streamChanged = false;
    QHash<QString, QList<int>> m_displays; // display_id -> output indexes
    std::optional<QJsonObject> m_reply;
    std::optional<int> m_executionCount;
    bool m_idle = false;
    qint64 m_idleAtMs = 0;
    bool m_errorSeen = false;
    bool m_clearOnNext = false;
};

} // namespace ferry::kernels
