#include "kernels/celloutputs.h"

#include <QDateTime>

using namespace Qt::StringLiterals;

namespace ferry::kernels {

std::optional<QJsonObject> CellOutputs::outputOf(const JupyterMessage &message, std::optional<int> executionCount)
{
    const QString type = message.type();
    const QJsonObject &c = message.content;
    if (type == u"stream")
        return QJsonObject{{u"output_type"_s, u"stream"_s},
                           {u"name"_s, c.value(u"name"_s).toString()},
                           {u"text"_s, c.value(u"text"_s).toString()}};
    if (type == u"display_data" || type == u"update_display_data")
        return QJsonObject{{u"output_type"_s, u"display_data"_s},
                           {u"data"_s, c.value(u"data"_s).toObject()},
                           {u"metadata"_s, c.value(u"metadata"_s).toObject()}};
    if (type == u"execute_result") {
        const QJsonValue count = c.contains(u"execution_count"_s) ? c.value(u"execution_count"_s)
                                 : executionCount                 ? QJsonValue(*executionCount)
                                                                  : QJsonValue();
        return QJsonObject{{u"output_type"_s, u"execute_result"_s},
                           {u"execution_count"_s, count},
                           {u"data"_s, c.value(u"data"_s).toObject()},
                           {u"metadata"_s, c.value(u"metadata"_s).toObject()}};
    }
    if (type == u"error")
        return QJsonObject{{u"output_type"_s, u"error"_s},
                           {u"ename"_s, c.value(u"ename"_s).toString()},
                           {u"evalue"_s, c.value(u"evalue"_s).toString()},
                           {u"traceback"_s, c.value(u"traceback"_s).toArray()}};
    return std::nullopt;
}

void CellOutputs::append(const QJsonObject &output, const QString &displayId)
{
    if (m_clearOnNext) {
        clear();
        m_clearOnNext = false;
    }
    if (output.value(u"output_type"_s).toString() == u"stream") {
        const QString name = output.value(u"name"_s).toString();
        if (!m_stream || m_outputs.last().toObject().value(u"name"_s).toString() != name) {
            (void)outputs(); // the stream before, written out
            m_outputs.append(QJsonObject{{u"output_type"_s, u"stream"_s}, {u"name"_s, name}});
            m_stream.emplace(m_streamLimits);
        }
        m_stream->append(output.value(u"text"_s).toString());
        m_streamChanged = true;
        return;
    }
    (void)outputs();
    m_stream.reset();
    if (!displayId.isEmpty())
        m_displays[displayId] << int(m_outputs.size());
    m_outputs.append(output);
}

void CellOutputs::clear()
{
    m_outputs = QJsonArray();
    m_displays.clear();
    m_stream.reset();
    m_streamChanged = false;
}

const QJsonArray &CellOutputs::outputs() const
{
    if (m_streamChanged) {
        // A new object, not the last one changed: a JSON object keeps the bytes of a value it
        // replaced, and this one is replaced at every read while a cell prints.
        const QString name = m_outputs.last().toObject().value(u"name"_s).toString();
        m_outputs.replace(
            m_outputs.size() - 1,
            QJsonObject{{u"output_type"_s, u"stream"_s}, {u"name"_s, name}, {u"text"_s, m_stream->text()}});
        m_streamChanged = false;
    }
    return m_outputs;
}

bool CellOutputs::update(const JupyterMessage &message)
{
    if (message.type() != u"update_display_data")
        return false;
    const QString displayId = message.content.value(u"transient"_s).toObject().value(u"display_id"_s).toString();
    const auto found = m_displays.constFind(displayId);
    if (displayId.isEmpty() || found == m_displays.constEnd())
        return false;
    const auto output = outputOf(message, m_executionCount);
    for (const int index : *found)
        if (index < m_outputs.size())
            m_outputs.replace(index, *output);
    return true;
}

bool CellOutputs::take(Channel channel, const JupyterMessage &message)
{
    if (message.parentId() != m_requestId)
        return false;
    if (channel == Channel::Shell) {
        if (message.type() == u"execute_reply") {
            m_reply = message.content;
            if (message.content.value(u"execution_count"_s).isDouble())
                m_executionCount = message.content.value(u"execution_count"_s).toInt();
        }
        return true;
    }
    if (channel != Channel::IOPub)
        return true;
    const QString type = message.type();
    if (type == u"error")
        m_errorSeen = true;
    if (type == u"status") {
        if (message.content.value(u"execution_state"_s).toString() == u"idle" && !m_idle) {
            m_idle = true;
            m_idleAtMs = QDateTime::currentMSecsSinceEpoch();
        }
    } else if (type == u"execute_input") {
        if (message.content.value(u"execution_count"_s).isDouble())
            m_executionCount = message.content.value(u"execution_count"_s).toInt();
    } else if (type == u"clear_output") {
        if (message.content.value(u"wait"_s).toBool()) {
            m_clearOnNext = true;
        } else {
            clear();
            m_clearOnNext = false;
        }
    } else if (type == u"update_display_data") {
        update(message);
    } else if (!m_keepOutputs && type != u"error") {
        // not kept
    } else if (auto output = outputOf(message, m_executionCount)) {
        append(*output, message.content.value(u"transient"_s).toObject().value(u"display_id"_s).toString());
    }
    return true;
}

QString CellOutputs::status() const
{
    if (m_reply)
        return m_reply->value(u"status"_s).toString();
    if (m_idle)
        return m_errorSeen ? u"error"_s : u"ok"_s;
    return {};
}

std::optional<QJsonObject> CellOutputs::error() const
{
    for (const QJsonValue &output : outputs())
        if (output.toObject().value(u"output_type"_s).toString() == u"error")
            return output.toObject();
    return std::nullopt;
}

} // namespace ferry::kernels
