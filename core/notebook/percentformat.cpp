#include "notebook/percentformat.h"

#include "notebook/notebookdocument.h"

#include <QJsonObject>
#include <QStringList>

using namespace Qt::StringLiterals;

namespace ferry::notebook {

namespace {

struct Marker {
    CellKind kind = CellKind::Code;
    QString rest; // what followed the marker and its type, as written (" Title", " tags=[...]")
};

// A cell marker line: "# %%", then optionally " [markdown]", " [md]" or " [raw]", then anything.
std::optional<Marker> markerOf(const QString &line)
{
    if (!line.startsWith(u"# %%"_s) || line.startsWith(u"# %%%"_s))
        return std::nullopt;
    Marker marker;
    QString rest = line.mid(4);
    for (const auto &[word, kind] :
         {std::pair{u" [markdown]"_s, CellKind::Markdown}, std::pair{u" [md]"_s, CellKind::Markdown},
          std::pair{u" [raw]"_s, CellKind::Raw}}) {
        if (rest.startsWith(word)) {
            marker.kind = kind;
            rest = rest.mid(word.size());
            break;
        }
    }
    marker.rest = rest;
    return marker;
}

QString uncommented(const QString &line)
{
    if (line == u"#"_s)
        return {};
    if (line.startsWith(u"# "_s))
        return line.mid(2);
    return line; // jupytext reads an uncommented line in a markdown cell as it is
}

// The lines of a cell body without the empty lines that separate it from the next cell.
QStringList trimmedBody(QStringList lines)
{
    while (!lines.isEmpty() && lines.last().trimmed().isEmpty())
        lines.removeLast();
    return lines;
}

DocumentCell cellOf(const Marker &marker, bool hasMarker, const QStringList &body)
{
    DocumentCell cell;
    cell.id = DocumentCell::newId();
    cell.kind = marker.kind;
    QStringList lines = trimmedBody(body);
    if (cell.kind != CellKind::Code) {
        for (QString &line : lines)
            line = uncommented(line);
    }
    cell.source = lines.join(u'\n');
    QJsonObject ferry;
    if (!hasMarker)
        ferry[u"marker"_s] = QJsonValue();
    else if (!marker.rest.isEmpty())
        ferry[u"marker"_s] = marker.rest;
    if (!ferry.isEmpty())
        cell.metadata[u"ferry"_s] = ferry;
    return cell;
}

} // namespace

Expected<NotebookDocument> parsePercent(const QByteArray &bytes, const QString &path)
{
    if (bytes.contains('\0'))
        return Error{u"not a Python file: it holds NUL bytes"_s, path, 0, 0, {}};
    QString text = QString::fromUtf8(bytes);
    text.replace(u"\r\n"_s, u"\n"_s);
    QStringList lines = text.split(u'\n');
    if (!lines.isEmpty() && lines.last().isEmpty())
        lines.removeLast(); // the final newline
    NotebookDocument document = NotebookDocument::blank(path);
    document.cells.clear();
    document.format = NotebookDocument::Format::Percent;
    qsizetype i = 0;
    // jupytext's header: "# ---" ... "# ---", and the empty lines after it.
    if (!lines.isEmpty() && lines.first() == u"# ---"_s) {
        const qsizetype end = lines.indexOf(u"# ---"_s, 1);
        if (end > 0) {
            i = end + 1;
            while (i < lines.size() && lines.at(i).trimmed().isEmpty())
                ++i;
            document.percentHeader = lines.mid(0, i).join(u'\n') + u'\n';
        }
    }
    std::optional<Marker> current;
    bool hasMarker = false;
    QStringList body;
    const auto flush = [&] {
        if (current || !trimmedBody(body).isEmpty())
            document.cells << cellOf(current.value_or(Marker{}), hasMarker, body);
        body.clear();
    };
    for (; i < lines.size(); ++i) {
        if (const auto marker = markerOf(lines.at(i))) {
            flush();
            current = marker;
            hasMarker = true;
            continue;
        }
        body << lines.at(i);
    }
    flush();
    if (document.cells.isEmpty())
        document.cells << NotebookDocument::blank(path).cells;
    return document;
}

QByteArray percentBytes(const NotebookDocument &document)
{
    QString out = document.percentHeader;
    bool first = true;
    for (const DocumentCell &cell : document.cells) {
        if (!first)
            out += u'\n';
        first = false;
        const QJsonValue marker = cell.metadata.value(u"ferry"_s).toObject().value(u"marker"_s);
        if (!marker.isNull()) { // a first cell that had no marker keeps none
            out += u"# %%"_s;
            if (cell.kind == CellKind::Markdown)
                out += u" [markdown]"_s;
            else if (cell.kind == CellKind::Raw)
                out += u" [raw]"_s;
            out += marker.toString() + u'\n';
        }
        if (cell.source.isEmpty())
            continue;
        for (const QString &line : cell.source.split(u'\n')) {
            if (cell.kind == CellKind::Code)
                out += line;
            else
                out += line.isEmpty() ? u"#"_s : u"# "_s + line;
            out += u'\n';
        }
    }
    return out.toUtf8();
}

} // namespace ferry::notebook
