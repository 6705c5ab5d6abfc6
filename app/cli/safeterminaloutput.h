// The command line's standard error as a device that lets no escape sequence or other control
// character reach the terminal.
#pragma once

// The command line's standard error, safe to print to a terminal (SafeTerminalOutput, below).
#include <QIODevice>

namespace ferry::cli {

// What the command line writes to standard error, shown as run::terminalLines shows it: an
// Error's message may echo what came from elsewhere (an archive's entry names, a run's error, a
// host's answer), so no escape sequence, BEL or other control character of it reaches the
// terminal; newlines, tabs and carriage returns (a progress line) do (review L3). Unbuffered: the
// QTextStream over it buffers.
class SafeTerminalOutput final : public QIODevice {
public:
    explicit SafeTerminalOutput(int fd);
    bool isSequential() const override { return true; }

protected:
    qint64 readData(char *, qint64) override { return -1; }
    qint64 writeData(const char *data, qint64 size) override;

private:
    int m_fd;
};

// Qt's warnings (qWarning) through the same rule, to standard error.
void showQtMessagesSafely();

} // namespace ferry::cli
