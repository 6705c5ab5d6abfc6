#include "cli/kerneloutput.h"

#include "common/safefile.h"
#include "kernels/journal.h"
#include "metrics/terminaltext.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonObject>

using namespace Qt::StringLiterals;

namespace ferry::cli {

namespace {

// What a terminal may be shown of kernel text: escapes dropped, '\r' kept (a progress bar).
QString shown(const QString &text)
{
    return run::terminalLines(text.toUtf8(), true);
}

} // namespace

void KernelOutputPrinter::printData(const QJsonObject &data, const QString &messageId)
{
    static const struct {
        const char16_t *mime;
        const char16_t *extension;
    } images[] = {{u"image/png", u"png"}, {u"image/jpeg", u"jpg"}, {u"image/svg+xml", u"svg"}};
    for (const auto &image : images) {
        const QString mime = QString::fromUtf16(image.mime);
        if (!data.contains(mime))
            continue;
        const QByteArray bytes = mime == u"image/svg+xml"
                                     ? data.value(mime).toString().toUtf8()
                                     : QByteArray::fromBase64(data.value(mime).toString().toLatin1());
        QDir().mkpath(m_imageDir);
        const QString path = m_imageDir + u'/' + messageId.left(36) + u'-' + QString::number(m_images + 1) + u'.' +
                             QString::fromUtf16(image.extension);
        // A replay (`attach`) meets the images it saved before: the same message, the same file.
        const auto saved =
            entryKind(path) == EntryKind::RegularFile ? Expected<void>() : createNewFile(path, bytes, 0600);
        if (saved) {
            ++m_images;
            m_io.out << '[' << mime << ": " << path << "]\n";
        } else {
            m_io.err << "cannot save an image: " << saved.error().toString() << '\n';
        }
        m_io.out.flush();
        return;
    }
    if (data.contains(u"text/plain"_s))
        m_io.out << shown(data.value(u"text/plain"_s).toString()) << '\n';
    else if (!data.isEmpty())
        m_io.out << '[' << data.keys().join(u", "_s) << "]\n";
    m_io.out.flush();
}

void KernelOutputPrinter::print(const kernels::JupyterMessage &message, bool withInputs)
{
    const QString type = message.type();
    const QJsonObject &c = message.content;
    if (type == u"stream") {
        QTextStream &stream = c.value(u"name"_s).toString() == u"stderr" ? m_io.err : m_io.out;
        stream << shown(c.value(u"text"_s).toString());
        stream.flush();
    } else if (type == u"execute_result" || type == u"display_data" || type == u"update_display_data") {
        printData(c.value(u"data"_s).toObject(), message.id());
    } else if (type == u"error") {
        QStringList lines;
        for (const QJsonValue &line : c.value(u"traceback"_s).toArray())
            lines << line.toString();
        if (lines.isEmpty())
            lines << c.value(u"ename"_s).toString() + u": "_s + c.value(u"evalue"_s).toString();
        m_io.err << shown(lines.join(u'\n')) << '\n';
        m_io.err.flush();
    } else if (type == u"execute_input" && withInputs) {
        m_io.out << "In [" << c.value(u"execution_count"_s).toInt() << "]: " << shown(c.value(u"code"_s).toString())
                 << '\n';
        m_io.out.flush();
    } else if (const QString event = kernels::keeperEvent(message); !event.isEmpty() && withInputs) {
        m_io.err << "(kernel " << shown(event) << ")\n";
        m_io.err.flush();
    }
}

} // namespace ferry::cli
