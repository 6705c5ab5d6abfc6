#include "notebook/notebook.h"

#include <QFile>
#include <QFileInfo>

#include <nlohmann/json.hpp>

using namespace Qt::StringLiterals;
using json = nlohmann::json;

namespace ferry::notebook {

namespace {

// Notebooks carry their outputs (images as base64): allow far more than a text file.
constexpr qint64 kMaxNotebookBytes = 512LL * 1024 * 1024;

QString fromStd(const std::string &text)
{
    return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

Error errorAt(const QString &path, const QString &message, const QString &hint = {})
{
    Error error;
    error.path = path;
    error.message = message;
    error.hint = hint;
    return error;
}

// 1-based line and column of a byte offset.
std::pair<int, int> lineAndColumn(const QByteArray &bytes, std::size_t offset)
{
    int line = 1;
    int column = 1;
    const auto end = std::min<qsizetype>(static_cast<qsizetype>(offset), bytes.size());
    for (qsizetype i = 0; i < end; ++i) {
        if (bytes[i] == '\n') {
            ++line;
            column = 1;
        } else {
            ++column;
        }
    }
    return {line, column};
}

QString cellName(std::size_t index)
{
    return u"cell %1"_s.arg(index + 1);
}

// `source` is a string or a list of strings (Jupyter writes lines with their '\n').
std::optional<QString> sourceText(const json &source)
{
    if (source.is_string())
        return fromStd(source.get<std::string>());
    if (!source.is_array())
        return std::nullopt;
    QString text;
    for (const json &line : source) {
        if (!line.is_string())
            return std::nullopt;
        text += fromStd(line.get<std::string>());
    }
    return text;
}

QString languageOf(const json &metadata)
{
    if (!metadata.is_object())
        return {};
    const auto kernel = metadata.find("kernelspec");
    if (kernel != metadata.end() && kernel->is_object()) {
        const auto language = kernel->find("language");
        if (language != kernel->end() && language->is_string())
            return fromStd(language->get<std::string>());
    }
    const auto info = metadata.find("language_info");
    if (info != metadata.end() && info->is_object()) {
        const auto name = info->find("name");
        if (name != info->end() && name->is_string())
            return fromStd(name->get<std::string>());
    }
    return {};
}

Expected<NotebookCell> readCell(const json &cell, std::size_t index, const QString &path)
{
    if (!cell.is_object())
        return errorAt(path, u"%1 is not a JSON object"_s.arg(cellName(index)));
    NotebookCell result;
    result.index = static_cast<int>(index);
    const auto type = cell.find("cell_type");
    if (type == cell.end() || !type->is_string())
        return errorAt(path, u"%1 has no 'cell_type'"_s.arg(cellName(index)),
                       u"every cell needs \"cell_type\": \"code\", \"markdown\" or \"raw\""_s);
    const std::string kind = type->get<std::string>();
    if (kind == "code")
        result.kind = CellKind::Code;
    else if (kind == "markdown")
        result.kind = CellKind::Markdown;
    else if (kind == "raw")
        result.kind = CellKind::Raw;
    else
        return errorAt(path, u"%1 has the unknown cell_type '%2'"_s.arg(cellName(index), fromStd(kind)),
                       u"nbformat 4 knows code, markdown and raw cells"_s);
    const auto source = cell.find("source");
    if (source == cell.end())
        return errorAt(path, u"%1 has no 'source'"_s.arg(cellName(index)));
    const auto text = sourceText(*source);
    if (!text)
        return errorAt(path, u"%1: 'source' must be a string or a list of strings"_s.arg(cellName(index)));
    result.source = *text;
    const auto metadata = cell.find("metadata");
    if (metadata != cell.end() && metadata->is_object()) {
        const auto tags = metadata->find("tags");
        if (tags != metadata->end() && tags->is_array()) {
            for (const json &tag : *tags) {
                if (tag.is_string())
                    result.tags << fromStd(tag.get<std::string>());
            }
        }
    }
    return result;
}

} // namespace

Expected<Notebook> parseNotebook(const QByteArray &bytes, const QString &path)
{
    json document;
    try {
        document = json::parse(bytes.constData(), bytes.constData() + bytes.size());
    } catch (const json::parse_error &e) {
        Error error =
            errorAt(path, u"not a Jupyter notebook: the JSON is broken (%1)"_s.arg(QString::fromUtf8(e.what())),
                    u"open and save it in Jupyter, or fix the JSON at this place"_s);
        std::tie(error.line, error.column) = lineAndColumn(bytes, e.byte > 0 ? e.byte - 1 : 0);
        return error;
    } catch (const json::exception &e) {
        // e.g. a number too large for a double (found by fuzz_notebook)
        return errorAt(path,
                       u"not a Jupyter notebook: the JSON cannot be read (%1)"_s.arg(QString::fromUtf8(e.what())));
    }
    if (!document.is_object())
        return errorAt(path, u"not a Jupyter notebook: the file is JSON but not an object"_s);
    const auto major = document.find("nbformat");
    if (major == document.end() || !major->is_number_integer())
        return errorAt(path, u"not a Jupyter notebook: no 'nbformat' version number"_s,
                       u"Ferry converts .ipynb files written by Jupyter (nbformat 4)"_s);
    Notebook notebook;
    notebook.path = path;
    notebook.major = major->get<int>();
    const auto minor = document.find("nbformat_minor");
    if (minor != document.end() && minor->is_number_integer())
        notebook.minor = minor->get<int>();
    if (notebook.major != 4)
        return errorAt(path,
                       u"nbformat %1 notebooks are not supported; Ferry reads nbformat 4 (any minor version)"_s.arg(
                           notebook.major),
                       u"upgrade it first: jupyter nbconvert --to notebook --nbformat 4 --output NEW.ipynb '%1'"_s.arg(
                           QFileInfo(path).fileName()));
    const auto metadata = document.find("metadata");
    if (metadata != document.end())
        notebook.language = languageOf(*metadata);
    const auto cells = document.find("cells");
    if (cells == document.end() || !cells->is_array())
        return errorAt(path, u"not an nbformat 4 notebook: no 'cells' list"_s);
    for (std::size_t i = 0; i < cells->size(); ++i) {
        auto cell = readCell((*cells)[i], i, path);
        if (!cell)
            return cell.error();
        notebook.cells.append(std::move(*cell));
    }
    return notebook;
}

Expected<Notebook> readNotebook(const QString &path)
{
    QFile file(path);
    const QFileInfo info(path);
    if (!info.exists())
        return errorAt(path, u"no such notebook"_s);
    if (info.isDir())
        return errorAt(path, u"is a folder, not a notebook"_s);
    if (info.size() > kMaxNotebookBytes)
        return errorAt(path, u"the notebook is larger than %1 MiB"_s.arg(kMaxNotebookBytes / (1024 * 1024)),
                       u"clear its outputs in Jupyter (Edit > Clear All Outputs) and save it"_s);
    if (!file.open(QIODevice::ReadOnly))
        return errorAt(path, u"cannot read the notebook: %1"_s.arg(file.errorString()));
    return parseNotebook(file.readAll(), path);
}

} // namespace ferry::notebook
