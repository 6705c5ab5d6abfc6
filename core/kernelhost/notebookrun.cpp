#include "kernelhost/notebookrun.h"

#include <QJsonArray>

using namespace Qt::StringLiterals;

namespace ferry::kernels {

QString cellSource(const QJsonObject &cell)
{
    const QJsonValue source = cell.value(u"source"_s);
    if (source.isString())
        return source.toString();
    QString text;
    for (const QJsonValue &line : source.toArray())
        text += line.toString();
    return text;
}

Expected<NotebookRunResult> runNotebook(const QJsonObject &notebook, KernelConnection &kernel,
                                        const NotebookRunOptions &options,
                                        const std::function<void(int cell, int cells)> &progress)
{
    NotebookRunResult result;
    QJsonArray cells = notebook.value(u"cells"_s).toArray();
    for (qsizetype i = 0; i < cells.size(); ++i) {
        QJsonObject cell = cells[i].toObject();
        if (cell.value(u"cell_type"_s).toString() != u"code")
            continue;
        if (progress)
            progress(int(i), int(cells.size()));
        const QString name = u"cell %1"_s.arg(i + 1) +
                             (cell.contains(u"id"_s) ? u" (id %1)"_s.arg(cell.value(u"id"_s).toString()) : QString());
        const auto ran = kernel.execute(cellSource(cell), {}, options.cellTimeoutMs, !options.allowErrors);
        if (!ran) {
            result.notebook = notebook;
            result.notebook.insert(u"cells"_s, cells);
            if (kernel.timedOut() && !kernel.ended()) {
                result.stoppedAt = name + u": "_s + ran.error().message;
                return result;
            }
            return withContext(name, ran.error());
        }
        ++result.cellsRun;
        cell.insert(u"outputs"_s, ran->outputs());
        cell.insert(u"execution_count"_s, ran->executionCount() ? QJsonValue(*ran->executionCount()) : QJsonValue());
        cells.replace(i, cell);
        if (ran->status() != u"ok") {
            ++result.errors;
            if (!options.allowErrors) {
                const auto error = ran->error();
                result.stoppedAt =
                    name + u" raised "_s +
                    (error ? error->value(u"ename"_s).toString() + u": "_s + error->value(u"evalue"_s).toString()
                           : ran->status());
                break;
            }
        }
    }
    result.notebook = notebook;
    result.notebook.insert(u"cells"_s, cells);
    return result;
}

} // namespace ferry::kernels
