// How the command line shows what a kernel sends: streams as they come, results, images as a saved
// file's name, errors with their traceback; shared by `ferry kernel` and `ferry notebook execute`.
#pragma once

#include "cli/command.h"
#include "kernels/jupytermessage.h"

#include <QString>
#include <QTextStream>

namespace ferry::cli {

class KernelOutputPrinter {
public:
    // Images go into `imageDir` (created when the first one comes).
    KernelOutputPrinter(Io &io, QString imageDir) : m_io(io), m_imageDir(std::move(imageDir)) {}

    // Prints one iopub message (`withInputs`: the code of execute_input too, as `ferry kernel attach` shows it).
    void print(const kernels::JupyterMessage &message, bool withInputs = false);
    int imagesSaved() const { return m_images; }
    // Whether standard output has gone (a closed pipe: `ferry kernel exec ID CODE | head`): what
    // follows is written nowhere. Only an error once SIGPIPE is ignored (SigpipeIgnored).
    bool outputClosed() const { return m_io.out.status() == QTextStream::WriteFailed; }

private:
    void printData(const QJsonObject &data, const QString &messageId);

    Io &m_io;
    QString m_imageDir;
    int m_images = 0;
};

} // namespace ferry::cli
