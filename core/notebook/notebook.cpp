#include "notebook/notebook.h"

#include <QFile>
#include <QFileInfo>

#include <nlohmann/json.hpp>

using namespace Qt::StringLiterals;
using json = nlohmann::json;

namespace ferry::notebook {

namespace {

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

// Containers deeper than this are no notebook's (nbformat's own schema nests about 10 deep).
constexpr int kMostDepth = 64;
// Tags kept per cell; the others are read past (a cell's tags are a word or two).
constexpr qsizetype kMostTags = 256;

// The byte offset of the container that opens deeper than `most`, or -1: brackets outside
// strings, as the parser counts them.
qsizetype tooDeepAt(const QByteArray &bytes, int most)
{
    int depth = 0;
    bool inString = false, escaped = false;
    for (qsizetype i = 0; i < bytes.size(); ++i) {
        const char c = bytes[i];
        if (inString) {
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == '"')
                inString = false;
        } else if (c == '"') {
            inString = true;
        } else if (c == '[' || c == '{') {
            if (++depth > most)
                return i;
        } else if (c == ']' || c == '}') {
            --depth;
        }
    }
    return -1;
}

// What a cell says, as its keys come (the last of a repeated key wins, as in a JSON object).
struct CellRead {
    bool object = true;
    std::optional<std::string> type; // nullopt: none, or not a string
    enum class Source { Missing, Text, Invalid } source = Source::Missing;
    QString text;
    QStringList tags;
};

Expected<NotebookCell> cellOf(const CellRead &read, std::size_t index, const QString &path)
{
    if (!read.object)
        return errorAt(path, u"%1 is not a JSON object"_s.arg(cellName(index)));
    NotebookCell result;
    result.index = static_cast<int>(index);
    if (!read.type)
        return errorAt(path, u"%1 has no 'cell_type'"_s.arg(cellName(index)),
                       u"every cell needs \"cell_type\": \"code\", \"markdown\" or \"raw\""_s);
    if (*read.type == "code")
        result.kind = CellKind::Code;
    else if (*read.type == "markdown")
        result.kind = CellKind::Markdown;
    else if (*read.type == "raw")
        result.kind = CellKind::Raw;
    else
        return errorAt(path, u"%1 has the unknown cell_type '%2'"_s.arg(cellName(index), fromStd(*read.type)),
                       u"nbformat 4 knows code, markdown and raw cells"_s);
    if (read.source == CellRead::Source::Missing)
        return errorAt(path, u"%1 has no 'source'"_s.arg(cellName(index)));
    if (read.source == CellRead::Source::Invalid)
        return errorAt(path, u"%1: 'source' must be a string or a list of strings"_s.arg(cellName(index)));
    result.source = read.text;
    result.tags = read.tags;
    return result;
}

// Reads a notebook as the parser goes (nlohmann's SAX interface), keeping only what conversion
// needs: the versions, the language, and each cell's type, source and tags. Outputs (images as
// base64), other metadata and anything else are read past, never held: the memory is the file's
// and its sources', whatever the file holds (review N5: 20 MB of nested '[' took 1.6 GB as a DOM).
class NotebookReader : public json::json_sax_t {
public:
    explicit NotebookReader(QString path) : m_path(std::move(path)) {}

    // What was read, checked as a notebook: its versions first, then its cells, in order.
    Expected<Notebook> notebook()
    {
        if (!m_root.object)
            return errorAt(m_path, u"not a Jupyter notebook: the file is JSON but not an object"_s);
        if (!m_major)
            return errorAt(m_path, u"not a Jupyter notebook: no 'nbformat' version number"_s,
                           u"Ferry converts .ipynb files written by Jupyter (nbformat 4)"_s);
        Notebook notebook;
        notebook.path = m_path;
        notebook.major = int(*m_major);
        notebook.minor = int(m_minor.value_or(0));
        if (notebook.major != 4)
            return errorAt(
                m_path,
                u"nbformat %1 notebooks are not supported; Ferry reads nbformat 4 (any minor version)"_s.arg(
                    notebook.major),
                u"upgrade it first: jupyter nbconvert --to notebook --nbformat 4 --output NEW.ipynb '%1'"_s.arg(
                    QFileInfo(m_path).fileName()));
        notebook.language = m_kernelLanguage.value_or(m_infoName.value_or(QString()));
        if (!m_cellsListed)
            return errorAt(m_path, u"not an nbformat 4 notebook: no 'cells' list"_s);
        if (m_cellError)
            return *m_cellError;
        notebook.cells = std::move(m_cells);
        return notebook;
    }

    bool tooDeep() const { return m_tooDeep; }

    bool null() override { return scalar(Scalar::Other); }
    bool boolean(bool) override { return scalar(Scalar::Other); }
    bool number_integer(number_integer_t value) override { return integer(value); }
    bool number_unsigned(number_unsigned_t value) override { return integer(number_integer_t(value)); }
    bool number_float(number_float_t, const string_t &) override { return scalar(Scalar::Other); }
    bool binary(binary_t &) override { return scalar(Scalar::Other); }
    bool string(string_t &value) override
    {
        m_string = &value;
        return scalar(Scalar::String);
    }
    bool start_object(std::size_t) override { return open(true); }
    bool start_array(std::size_t) override { return open(false); }
    bool end_object() override { return close(); }
    bool end_array() override { return close(); }
    bool key(string_t &name) override
    {
        m_stack.back().key = std::move(name);
        return true;
    }
    bool parse_error(std::size_t position, const std::string &, const nlohmann::detail::exception &e) override
    {
        m_parseError = {position, QString::fromUtf8(e.what()), e.id >= 100 && e.id < 200};
        return false;
    }

    struct ParseError {
        std::size_t position = 0;
        QString what;
        bool syntax = true; // a parse_error; else the JSON cannot be read (a number too large)
    };
    const std::optional<ParseError> &parseError() const { return m_parseError; }

private:
    // What a container is to the notebook.
    enum class Part {
        Root,
        Document,
        Metadata,
        Kernelspec,
        LanguageInfo,
        Cells,
        Cell,
        CellMetadata,
        Tags,
        Source,
        Other
    };
    struct Frame {
        Part part = Part::Other;
        std::string key; // an object's key of the value being read
    };
    enum class Scalar { String, Integer, Other };

    // The part a value at the current place is, given whether it is an object, an array or
    // neither; and, for a scalar, what it sets.
    Part partOf(bool container, bool object)
    {
        const Frame &at = m_stack.back();
        const std::string &key = at.key;
        switch (at.part) {
        case Part::Root:
            m_root.object = object;
            return object ? Part::Document : Part::Other;
        case Part::Document:
            if (key == "metadata") {
                m_kernelLanguage.reset();
                m_infoName.reset();
                return object ? Part::Metadata : Part::Other;
            }
            if (key == "cells") { // a repeated list: the last one counts
                m_cells.clear();
                m_cellError.reset();
                m_cellCount = 0;
                m_cellsListed = container && !object;
                return m_cellsListed ? Part::Cells : Part::Other;
            }
            if (key == "nbformat")
                m_major.reset();
            if (key == "nbformat_minor")
                m_minor.reset();
            return Part::Other;
        case Part::Metadata:
            if (key == "kernelspec") {
                m_kernelLanguage.reset();
                return object ? Part::Kernelspec : Part::Other;
            }
            if (key == "language_info") {
                m_infoName.reset();
                return object ? Part::LanguageInfo : Part::Other;
            }
            return Part::Other;
        case Part::Cells:
            m_cell = CellRead{};
            m_cell.object = object;
            if (!object)
                endCell();
            return object ? Part::Cell : Part::Other;
        case Part::Cell:
            if (key == "cell_type")
                m_cell.type.reset();
            if (key == "source") {
                m_cell.text.clear();
                m_cell.source = container && !object ? CellRead::Source::Text : CellRead::Source::Invalid;
                return container && !object ? Part::Source : Part::Other;
            }
            if (key == "metadata") {
                m_cell.tags.clear();
                return object ? Part::CellMetadata : Part::Other;
            }
            return Part::Other;
        case Part::CellMetadata:
            if (key == "tags") {
                m_cell.tags.clear();
                return container && !object ? Part::Tags : Part::Other;
            }
            return Part::Other;
        case Part::Source:
            if (container)
                m_cell.source = CellRead::Source::Invalid;
            return Part::Other;
        case Part::Kernelspec:
            if (key == "language")
                m_kernelLanguage.reset();
            return Part::Other;
        case Part::LanguageInfo:
            if (key == "name")
                m_infoName.reset();
            return Part::Other;
        case Part::Tags:
        case Part::Other:
            break;
        }
        return Part::Other;
    }

    bool open(bool object)
    {
        if (m_stack.size() > kMostDepth) {
            m_tooDeep = true;
            return false;
        }
        const Part part = partOf(true, object);
        m_stack.push_back({part, {}});
        return true;
    }

    bool close()
    {
        const Part part = m_stack.back().part;
        m_stack.pop_back();
        if (part == Part::Cell)
            endCell();
        return true;
    }

    bool integer(number_integer_t value)
    {
        m_integer = value;
        return scalar(Scalar::Integer);
    }

    bool scalar(Scalar kind)
    {
        const Frame &at = m_stack.back();
        if (at.part == Part::Cells || at.part == Part::Root || at.part == Part::Source) {
            // A cell that is no object, a document that is none, a line of source.
            if (at.part != Part::Source)
                partOf(false, false);
            else if (kind == Scalar::String)
                m_cell.text += fromStd(*m_string);
            else
                m_cell.source = CellRead::Source::Invalid;
            return true;
        }
        const bool string = kind == Scalar::String;
        switch (at.part) {
        case Part::Document:
            if (at.key == "nbformat")
                m_major = kind == Scalar::Integer ? std::optional(m_integer) : std::nullopt;
            else if (at.key == "nbformat_minor")
                m_minor = kind == Scalar::Integer ? std::optional(m_integer) : std::nullopt;
            else
                partOf(false, false);
            break;
        case Part::Kernelspec:
            if (at.key == "language")
                m_kernelLanguage = string ? std::optional(fromStd(*m_string)) : std::nullopt;
            break;
        case Part::LanguageInfo:
            if (at.key == "name")
                m_infoName = string ? std::optional(fromStd(*m_string)) : std::nullopt;
            break;
        case Part::Cell:
            if (at.key == "cell_type")
                m_cell.type = string ? std::optional(*m_string) : std::nullopt;
            else if (at.key == "source") {
                m_cell.source = string ? CellRead::Source::Text : CellRead::Source::Invalid;
                m_cell.text = string ? fromStd(*m_string) : QString();
            } else if (at.key == "metadata")
                m_cell.tags.clear();
            break;
        case Part::CellMetadata:
            if (at.key == "tags")
                m_cell.tags.clear();
            break;
        case Part::Tags:
            if (string && m_cell.tags.size() < kMostTags)
                m_cell.tags << fromStd(*m_string);
            break;
        default:
            break;
        }
        return true;
    }

    // A cell is read: kept, or the first cell's error (the cells after it are read past).
    void endCell()
    {
        const std::size_t index = m_cellCount++;
        if (m_cellError)
            return;
        auto cell = cellOf(m_cell, index, m_path);
        if (cell)
            m_cells.append(std::move(*cell));
        else
            m_cellError = cell.error();
        m_cell = CellRead{};
    }

    QString m_path;
    std::vector<Frame> m_stack{Frame{Part::Root, {}}};
    struct {
        bool object = false;
    } m_root;
    std::optional<number_integer_t> m_major, m_minor;
    std::optional<QString> m_kernelLanguage, m_infoName;
    bool m_cellsListed = false;
    QList<NotebookCell> m_cells;
    std::size_t m_cellCount = 0;
    std::optional<Error> m_cellError;
    CellRead m_cell;
    number_integer_t m_integer = 0;
    string_t *m_string = nullptr;
    bool m_tooDeep = false;
    std::optional<ParseError> m_parseError;
};

} // namespace

Expected<Notebook> parseNotebook(const QByteArray &bytes, const QString &path)
{
    NotebookReader reader(path);
    bool read = false;
    try {
        read = json::sax_parse(bytes.constData(), bytes.constData() + bytes.size(), &reader);
    } catch (const std::bad_alloc &) {
        return errorAt(path, u"not enough memory to read the notebook"_s,
                       u"close other programs, or clear its outputs in Jupyter and save it"_s);
    }
    if (!read && reader.tooDeep()) {
        Error error = errorAt(path, u"not a Jupyter notebook: lists or objects nested deeper than %1"_s.arg(kMostDepth),
                              u"a notebook nests about ten deep; is this file a notebook?"_s);
        std::tie(error.line, error.column) =
            lineAndColumn(bytes, std::size_t(std::max<qsizetype>(0, tooDeepAt(bytes, kMostDepth))));
        return error;
    }
    if (const auto &broken = reader.parseError()) {
        if (!broken->syntax) // e.g. a number too large for a double (found by fuzz_notebook)
            return errorAt(path, u"not a Jupyter notebook: the JSON cannot be read (%1)"_s.arg(broken->what));
        Error error = errorAt(path, u"not a Jupyter notebook: the JSON is broken (%1)"_s.arg(broken->what),
                              u"open and save it in Jupyter, or fix the JSON at this place"_s);
        std::tie(error.line, error.column) = lineAndColumn(bytes, broken->position > 0 ? broken->position - 1 : 0);
        return error;
    }
    return reader.notebook();
}

Error notebookTooLarge(const QString &path, qint64 size)
{
    const double mib = double(size) / (1024 * 1024);
    const QString shown = mib >= 1024 ? u"%1 GiB"_s.arg(mib / 1024, 0, 'f', 1) : u"%1 MiB"_s.arg(qRound(mib));
    return errorAt(
        path,
        u"the notebook is %1, more than the %2 MiB Ferry opens (its outputs, most likely)"_s.arg(shown).arg(
            kMaxNotebookBytes / (1024 * 1024)),
        u"clear its outputs and open it again: jupyter nbconvert --clear-output --inplace %1 (Jupyter's "
        "Edit > Clear All Outputs does the same); its code and markdown stay"_s.arg(QFileInfo(path).fileName()));
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
        return notebookTooLarge(path, info.size());
    if (!file.open(QIODevice::ReadOnly))
        return errorAt(path, u"cannot read the notebook: %1"_s.arg(file.errorString()));
    return parseNotebook(file.readAll(), path);
}

} // namespace ferry::notebook
