// How the command line shows what a kernel sends: streams as they come, results, images as a saved
// file's name, errors with their traceback; shared by `ferry kernel` and `ferry notebook execute`.
#pragma once

#include "cli/command.h"
#include "kernels/jupytermessage.h"

#include <QString>

namespace ferry::cli {

class KernelOutputPrinter {
public:
    // Images go into `imageDir` (created when the first one comes).
    KernelOutputPrinter(Io &io, QString imageDir) : m_io(io), m_imageDir(std::move(imageDir)) {}

    // Prints one iopub message (`withInputs`: the code of execute_input too, as `ferry kernel attach` shows it).
    void print(const kernels::JupyterMessage &message, bool withInputs = false);
    int imagesSaved() const { return m_images; }

private:
    void printData(const QJsonObject &data, const QString &messageId);

    Io &m_io;
    QString m_imageDir;
    int m_images = 0;
};

} // namespace ferry::cli
