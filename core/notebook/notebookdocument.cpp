#include "notebook/notebookdocument.h"

#include "common/safefile.h"
#include "notebook/jupyterjson.h"
#include "notebook/percentformat.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QRandomGenerator>

using namespace Qt::StringLiterals;

namespace ferry::notebook {

namespace {

// nbformat 4's newest minor version: newer ones open, with a word.
constexpr int kNewestMinor = 5;

const QStringList kOwnTopKeys{u"cells"_s, u"metadata"_s, u"nbformat"_s, u"nbformat_minor"_s};
const QStringList kOwnCellKeys{u"id"_s, u"cell_type"_s, u"source"_s, u"metadata"_s, u"outputs"_s, u"execution_count"_s};

QString kindName(CellKind kind)
{
    switch (kind) {
    case CellKind::Markdown:
        return u"markdown"_s;
    case CellKind::Raw:
        return u"raw"_s;
    case CellKind::Code:
        break;
    }
    return u"code"_s;
}

CellKind kindOf(const QString &name)
{
    if (name == u"markdown"_s)
        return CellKind::Markdown;
    if (name == u"raw"_s)
        return CellKind::Raw;
    return CellKind::Code;
}

QJsonObject withoutKeys(const QJsonObject &object, const QStringList &keys)
{
    QJsonObject rest = object;
    for (const QString &key : keys)
        rest.remove(key);
    return rest;
}

Expected<NotebookDocument> parseIpynb(const QByteArray &bytes, const QString &path)
{
    // The checks and their errors of the import (the line of broken JSON, nbformat 3, a cell
    // without a type...), on a reader that never builds a tree of a hostile file.
    const auto checked = parseNotebook(bytes, path);
    if (!checked)
        return checked.error();
    QJsonParseError broken{};
    const QJsonDocument json = QJsonDocument::fromJson(bytes, &broken);
    if (!json.isObject())
        return Error{u"the notebook cannot be read: "_s + broken.errorString(), path, 0, 0, {}};
    const QJsonObject root = json.object();
    NotebookDocument document;
    document.path = path;
    document.format = NotebookDocument::Format::Ipynb;
    document.minor = checked->minor;
    if (document.minor > kNewestMinor)
        document.warning = u"nbformat 4.%1 is newer than Ferry knows (4.%2): what Ferry does not know is kept as "
                           "it is"_s.arg(document.minor)
                               .arg(kNewestMinor);
    document.metadata = root.value(u"metadata"_s).toObject();
    document.other = withoutKeys(root, kOwnTopKeys);
    for (const QJsonValue &value : root.value(u"cells"_s).toArray()) {
        const QJsonObject c = value.toObject();
        DocumentCell cell;
        cell.kind = kindOf(c.value(u"cell_type"_s).toString());
        cell.id = c.value(u"id"_s).toString();
        if (cell.id.isEmpty() && document.minor >= 5)
            cell.id = DocumentCell::newId();
        cell.source = joinedText(c.value(u"source"_s));
        cell.metadata = c.value(u"metadata"_s).toObject();
        if (cell.kind == CellKind::Code) {
            cell.outputs = c.value(u"outputs"_s).toArray();
            cell.executionCount = c.value(u"execution_count"_s);
            if (cell.executionCount.isUndefined())
                cell.executionCount = QJsonValue();
        }
        cell.other = withoutKeys(c, kOwnCellKeys);
        document.cells << cell;
    }
    return document;
}

} // namespace

QString DocumentCell::newId()
{
    return u"%1"_s.arg(QRandomGenerator::global()->generate(), 8, 16, QLatin1Char('0'));
}

QStringList DocumentCell::tags() const
{
    QStringList tags;
    for (const QJsonValue &tag : metadata.value(u"tags"_s).toArray())
        tags << tag.toString();
    return tags;
}

NotebookDocument::Format NotebookDocument::formatFor(const QString &path)
{
    return path.endsWith(u".py"_s, Qt::CaseInsensitive) ? Format::Percent : Format::Ipynb;
}

Expected<NotebookDocument> NotebookDocument::read(const QString &path)
{
    if (const QFileInfo info(path); info.isFile() && info.size() > kMaxNotebookBytes)
        return notebookTooLarge(path, info.size()); // said before a byte is read
    const auto bytes = readRegularFile(path, kMaxNotebookBytes);
    if (!bytes)
        return bytes.error();
    if (!*bytes)
        return Error{u"no such notebook"_s, path, 0, 0, {}};
    return parse(**bytes, path, formatFor(path));
}

Expected<NotebookDocument> NotebookDocument::parse(const QByteArray &bytes, const QString &path, Format format)
{
    auto document = format == Format::Percent ? parsePercent(bytes, path) : parseIpynb(bytes, path);
    if (!document)
        return document.error();
    document->m_fileBytes = bytes;
    document->m_fileCanonical = document->canonicalBytes();
    return document;
}

NotebookDocument NotebookDocument::blank(const QString &path)
{
    NotebookDocument document;
    document.path = path;
    document.format = formatFor(path);
    document.metadata = QJsonObject{
        {u"kernelspec"_s,
         QJsonObject{{u"display_name"_s, u"Python 3"_s}, {u"language"_s, u"python"_s}, {u"name"_s, u"python3"_s}}},
        {u"language_info"_s, QJsonObject{{u"name"_s, u"python"_s}}}};
    DocumentCell cell;
    cell.id = DocumentCell::newId();
    document.cells << cell;
    return document;
}

QJsonObject NotebookDocument::toJson() const
{
    QJsonObject root = other;
    root[u"nbformat"_s] = 4;
    root[u"nbformat_minor"_s] = minor;
    root[u"metadata"_s] = metadata;
    QJsonArray list;
    for (const DocumentCell &cell : cells) {
        QJsonObject c = cell.other;
        if (minor >= 5 && !cell.id.isEmpty())
            c[u"id"_s] = cell.id;
        c[u"cell_type"_s] = kindName(cell.kind);
        c[u"source"_s] = cell.source;
        c[u"metadata"_s] = cell.metadata;
        if (cell.kind == CellKind::Code) {
            c[u"outputs"_s] = cell.outputs;
            c[u"execution_count"_s] = cell.executionCount;
        }
        list.append(c);
    }
    root[u"cells"_s] = list;
    return root;
}

QByteArray NotebookDocument::canonicalBytes() const
{
    if (format == Format::Percent)
        return percentBytes(*this);
    return jupyterNotebookBytes(toJson());
}

QByteArray NotebookDocument::toBytes() const
{
    const QByteArray canonical = canonicalBytes();
    return canonical == m_fileCanonical ? m_fileBytes : canonical;
}

bool NotebookDocument::differsFromFile() const
{
    return canonicalBytes() != m_fileCanonical;
}

Expected<void> NotebookDocument::save(const QString &target)
{
    const QByteArray canonical = canonicalBytes();
    const QByteArray bytes = canonical == m_fileCanonical && target == path ? m_fileBytes : canonical;
    if (const auto written = replaceFileSafely(target, bytes); !written)
        return written.error();
    path = target;
    format = formatFor(target);
    m_fileBytes = bytes;
    m_fileCanonical = canonicalBytes();
    return {};
}

Notebook NotebookDocument::toNotebook() const
{
    Notebook notebook;
    notebook.path = path;
    notebook.minor = minor;
    notebook.language = metadata.value(u"kernelspec"_s).toObject().value(u"language"_s).toString();
    if (notebook.language.isEmpty())
        notebook.language = metadata.value(u"language_info"_s).toObject().value(u"name"_s).toString();
    for (qsizetype i = 0; i < cells.size(); ++i)
        notebook.cells << NotebookCell{cells.at(i).kind, cells.at(i).source, cells.at(i).tags(), int(i)};
    return notebook;
}

QString NotebookDocument::environment() const
{
    return metadata.value(u"ferry"_s).toObject().value(u"environment"_s).toString();
}

QString NotebookDocument::target() const
{
    return metadata.value(u"ferry"_s).toObject().value(u"target"_s).toString();
}

void NotebookDocument::setKernelChoice(const QString &environment, const QString &target)
{
    QJsonObject ferry = metadata.value(u"ferry"_s).toObject();
    QString relative = environment;
    if (!environment.isEmpty() && !path.isEmpty()) {
        const QDir folder = QFileInfo(path).absoluteDir();
        const QString candidate = folder.relativeFilePath(QFileInfo(environment).absoluteFilePath());
        if (!candidate.startsWith(u"../"_s))
            relative = candidate;
    }
    if (relative.isEmpty())
        ferry.remove(u"environment"_s);
    else
        ferry[u"environment"_s] = relative;
    if (target.isEmpty())
        ferry.remove(u"target"_s);
    else
        ferry[u"target"_s] = target;
    if (ferry.isEmpty())
        metadata.remove(u"ferry"_s);
    else
        metadata[u"ferry"_s] = ferry;
    // A kernelspec Jupyter understands too: Python 3, named for the environment.
    QJsonObject kernelspec = metadata.value(u"kernelspec"_s).toObject();
    kernelspec[u"name"_s] = u"python3"_s;
    kernelspec[u"language"_s] = u"python"_s;
    kernelspec[u"display_name"_s] =
        environment.isEmpty() ? u"Python 3"_s : u"Python 3 (%1)"_s.arg(QFileInfo(environment).completeBaseName());
    metadata[u"kernelspec"_s] = kernelspec;
}

} // namespace ferry::notebook
