#include "cli/safeterminaloutput.h"

#include "metrics/terminaltext.h"

#include <cerrno>
#include <unistd.h>

namespace ferry::cli {

namespace {

bool writeAll(int fd, const QByteArray &bytes)
{
    for (qsizetype done = 0; done < bytes.size();) {
        const ssize_t n = ::write(fd, bytes.constData() + done, static_cast<size_t>(bytes.size() - done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        done += n;
    }
    return true;
}

void showMessage(QtMsgType type, const QMessageLogContext &context, const QString &message)
{
    (void)writeAll(STDERR_FILENO, run::terminalLines(qFormatLogMessage(type, context, message)).toUtf8() + '\n');
}

} // namespace

SafeTerminalOutput::SafeTerminalOutput(int fd) : m_fd(fd)
{
    QIODevice::open(QIODevice::WriteOnly | QIODevice::Unbuffered);
}

qint64 SafeTerminalOutput::writeData(const char *data, qint64 size)
{
    // A '\r' stays: a build's progress line redraws itself in place.
    return writeAll(m_fd, run::terminalLines(QByteArrayView(data, size), true).toUtf8()) ? size : -1;
}

void showQtMessagesSafely()
{
    qInstallMessageHandler(showMessage);
}

} // namespace ferry::cli
