#include "notebook/conversion.h"

#include "notebook/pythonsource.h"

#include <QFileInfo>
#include <QHash>
#include <QJsonArray>
#include <QRegularExpression>
#include <QSet>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace ferry::notebook {

namespace {

constexpr int kLeadingCells = 5;

bool startsBlock(const LogicalLine &line)
{
    static const QRegularExpression block(u"^(def|class|for|while|async|with|try|if)\\b|^@"_s);
    return line.kind == LogicalLine::Kind::Python && line.indent == 0 && block.match(line.code).hasMatch();
}

// The contract's folders. A notebook string constant of the same name (any case) is no
// hyperparameter: its value becomes the fallback when the variable is not set.
struct ContractFolder {
    QString name;     // the argparse dest and the Python variable ("model_dir")
    QString variable; // SM_MODEL_DIR
    QString notebookName;
    QString fallback; // Python source
};

QList<ContractFolder> contractFolders()
{
    return {{u"model_dir"_s, u"SM_MODEL_DIR"_s, {}, u"\"model\""_s},
            {u"output_data_dir"_s, u"SM_OUTPUT_DATA_DIR"_s, {}, u"\"output\""_s}};
}

// Every line end a reader might honour: Python ends a line (and so a comment) at \r too, and
// editors and Jupytext break at form feed, vertical tab and the Unicode separators. Markdown
// split on '\n' alone would let `# notes\rimport os` run (security review M7).
QStringList splitLines(const QString &text)
{
    static const QRegularExpression lineEnd(
        u"\\x{0d}\\x{0a}|[\\x{0a}\\x{0b}\\x{0c}\\x{0d}\\x{1c}\\x{1d}\\x{1e}\\x{85}\\x{2028}\\x{2029}]"_s);
    return text.split(lineEnd);
}

// Text from the notebook's metadata (its file name, a tag) on one comment line: what would end
// the line, or could not be read back, becomes '?'.
QString oneLine(QString text)
{
    for (QChar &c : text) {
        const char16_t u = c.unicode();
        if (u < 0x20 || (u >= 0x7F && u <= 0x9F) || u == 0x2028 || u == 0x2029)
            c = u'?';
    }
    return text;
}

// A commented-out line that no percent-format reader takes for a cell marker (`# %%...`).
QString commented(const QString &line)
{
    const QString stripped = line.trimmed();
    if (stripped.startsWith("%%"_L1))
        return u"# [cell magic] "_s + stripped;
    return u"# "_s + line;
}

QString decodedDefault(const Hyperparameter &hp)
{
    if (hp.type != "str"_L1)
        return hp.value;
    QString text = hp.value;
    while (!text.isEmpty() && text[0] != u'\'' && text[0] != u'"')
        text.remove(0, 1);
    return text.mid(1, text.size() - 2);
}

QString argparseLine(const Hyperparameter &hp)
{
    QString flags = u"\"--%1\""_s.arg(hp.name);
    if (hp.name.contains(u'_'))
        flags += u", \"--%1\""_s.arg(QString(hp.name).replace(u'_', u'-'));
    const QString type = hp.type == "bool"_L1 ? u"_ferry_bool"_s : hp.type;
    return u"_parser.add_argument(%1, dest=\"%2\", type=%3, default=%4)"_s.arg(flags, hp.name, type, hp.value);
}

QString contractCell(const QList<Hyperparameter> &hps, const QList<ContractFolder> &folders, const QString &sourceName)
{
    QStringList lines{
        u"# %% Hyperparameters and the training contract (added by ferry notebook convert)"_s,
        u"import argparse"_s,
        u"import json"_s,
        u"import os"_s,
        QString(),
        QString(),
        u"def _ferry_bool(text):"_s,
        u"    return str(text).strip().lower() in (\"1\", \"true\", \"yes\", \"y\", \"on\")"_s,
        QString(),
        QString(),
        u"_parser = argparse.ArgumentParser(description=\"%1: hyperparameters and the training contract\")"_s.arg(
            sourceName.isEmpty() ? u"notebook"_s : oneLine(sourceName).replace(u'"', u'\'').replace(u'\\', u'/')),
    };
    for (const Hyperparameter &hp : hps)
        lines << argparseLine(hp);
    for (const ContractFolder &folder : folders)
        lines << u"_parser.add_argument(\"--%1\", \"--%2\", dest=\"%2\", default=os.environ.get(\"%3\", %4))"_s.arg(
            QString(folder.name).replace(u'_', u'-'), folder.name, folder.variable, folder.fallback);
    // A channel named like a hyperparameter keeps the hyperparameter's option; its folder still
    // comes from SM_CHANNEL_<NAME>.
    lines << u"_channels = json.loads(os.environ.get(\"SM_CHANNELS\", \"[]\"))"_s << u"for _channel in _channels:"_s
          << u"    try:"_s
          << u"        _parser.add_argument(\"--\" + _channel, dest=\"channel_\" + _channel, "
             u"default=os.environ.get(\"SM_CHANNEL_\" + _channel.upper()))"_s
          << u"    except argparse.ArgumentError:"_s << u"        pass"_s
          << u"_args, _unknown = _parser.parse_known_args()"_s;
    for (const Hyperparameter &hp : hps)
        lines << u"%1 = _args.%1"_s.arg(hp.name);
    for (const ContractFolder &folder : folders) {
        lines << u"%1 = _args.%1"_s.arg(folder.name);
        if (!folder.notebookName.isEmpty() && folder.notebookName != folder.name)
            lines << u"%1 = _args.%2"_s.arg(folder.notebookName, folder.name);
    }
    lines << u"channels = {_channel: getattr(_args, \"channel_\" + _channel, None) or "
             u"os.environ.get(\"SM_CHANNEL_\" + _channel.upper()) for _channel in _channels}"_s
          << u"os.makedirs(model_dir, exist_ok=True)"_s;
    return lines.join(u'\n');
}

struct CodeCellOutput {
    QString text;
    QList<IPythonLine> ipython;
};

CodeCellOutput convertCode(const NotebookCell &cell)
{
    CodeCellOutput out;
    // Python reads \r\n and a lone \r as \n: the same lines here, so a commented magic line
    // cannot carry code past a \r.
    QString source = QString(cell.source).replace(u"\r\n"_s, u"\n"_s).replace(u'\r', u'\n');
    if (source.endsWith(u'\n'))
        source.chop(1);
    QStringList physical = source.split(u'\n');
    const QString magic = cellMagic(source);
    if (!magic.isEmpty()) {
        // These run their body as Python: only the magic line goes, and the body is converted
        // like any cell (`%%capture` over `!pip install ...` is common).
        static const QStringList pythonBody{u"time"_s, u"timeit"_s, u"capture"_s, u"prun"_s};
        const bool keepBody = pythonBody.contains(magic);
        bool seenMagic = false;
        for (int i = 0; i < physical.size(); ++i) {
            const bool isMagicLine = !seenMagic && physical[i].trimmed().startsWith("%%"_L1);
            if (isMagicLine) {
                seenMagic = true;
                out.ipython.append({u"cell magic"_s, physical[i].trimmed(), cell.index, i});
            }
            if (isMagicLine || (!keepBody && seenMagic))
                physical[i] = commented(physical[i]);
        }
        if (!keepBody) {
            out.text = physical.join(u'\n');
            return out;
        }
        source = physical.join(u'\n'); // the magic line is a comment now
    }
    for (const LogicalLine &line : logicalLines(source)) {
        if (!line.isIPython())
            continue;
        const QString kind = line.kind == LogicalLine::Kind::Shell  ? u"shell"_s
                             : line.kind == LogicalLine::Kind::Help ? u"help"_s
                                                                    : u"magic"_s;
        out.ipython.append({kind, line.text.trimmed(), cell.index, line.firstLine});
        for (int i = line.firstLine; i <= line.lastLine && i < physical.size(); ++i) {
            if (line.indent == 0 || i != line.firstLine) {
                physical[i] = commented(physical[i]);
            } else {
                // Inside a block a comment alone would leave it empty: `pass` keeps it valid.
                physical[i] = physical[i].left(line.indent) + u"pass  # "_s + physical[i].mid(line.indent);
            }
        }
    }
    out.text = physical.join(u'\n');
    return out;
}

QString commentedCell(const QString &marker, const QString &source)
{
    QStringList pieces = splitLines(source);
    if (!pieces.isEmpty() && pieces.last().isEmpty())
        pieces.removeLast();
    QStringList lines{marker};
    for (const QString &line : std::as_const(pieces))
        lines << (line.isEmpty() ? u"#"_s : u"# "_s + line);
    return lines.join(u'\n');
}

QString cellMarker(const NotebookCell &cell, const QString &kind)
{
    QString marker = u"# %%"_s;
    if (!kind.isEmpty())
        marker += u" ["_s + kind + u']';
    // Tags as a JSON list, as Jupytext writes them: quotes and backslashes escaped; a tag with a
    // control character or line end is dropped (it could end the comment, M7).
    QStringList quoted;
    for (const QString &tag : cell.tags) {
        if (oneLine(tag) != tag)
            continue;
        quoted << u'"' + QString(tag).replace(u"\\"_s, u"\\\\"_s).replace(u"\""_s, u"\\\""_s) + u'"';
    }
    if (!quoted.isEmpty())
        marker += u" tags=["_s + quoted.join(u", "_s) + u']';
    return marker;
}

} // namespace

Expected<void> checkPythonNotebook(const Notebook &notebook)
{
    if (notebook.language.isEmpty() || notebook.language.compare("python"_L1, Qt::CaseInsensitive) == 0)
        return {};
    Error error;
    error.path = notebook.path;
    error.message =
        u"the notebook's language is %1; only Python notebooks become training scripts"_s.arg(notebook.language);
    error.hint = u"its kernel is set in the notebook's metadata (kernelspec.language)"_s;
    return error;
}

QList<Hyperparameter> discoverHyperparameters(const Notebook &notebook)
{
    QList<const NotebookCell *> region;
    for (const NotebookCell &cell : notebook.cells) {
        if (cell.kind == CellKind::Code && cell.tags.contains("parameters"_L1)) {
            region = {&cell};
            break;
        }
        if (cell.kind == CellKind::Code && region.size() < kLeadingCells)
            region.append(&cell);
    }
    QList<Hyperparameter> found;
    QSet<std::pair<int, int>> literalSites; // (cell, line) of the assignments taken
    bool stopped = false;
    for (const NotebookCell *cell : region) {
        if (stopped)
            break;
        if (!cellMagic(cell->source).isEmpty())
            continue; // %%capture over pip installs, %%bash, ...: no constants there
        for (const LogicalLine &line : logicalLines(cell->source)) {
            if (startsBlock(line)) {
                stopped = true;
                break;
            }
            const auto literal = literalAssignment(line);
            if (!literal || literal->name.startsWith(u'_'))
                continue;
            found.removeIf([&](const Hyperparameter &hp) { return hp.name == literal->name; });
            found.append({literal->name, literal->type, literal->value, cell->index, line.firstLine});
            literalSites.insert({cell->index, line.firstLine});
        }
    }
    // A name assigned anywhere else (a counter, a value computed later) is no constant.
    QSet<QString> reassigned;
    for (const NotebookCell &cell : notebook.cells) {
        if (cell.kind != CellKind::Code)
            continue;
        for (const LogicalLine &line : logicalLines(cell.source)) {
            if (literalSites.contains({cell.index, line.firstLine}))
                continue;
            for (const QString &name : assignedNames(line))
                reassigned.insert(name);
        }
    }
    found.removeIf([&](const Hyperparameter &hp) { return reassigned.contains(hp.name); });
    return found;
}

Conversion convertNotebook(const Notebook &notebook, const ConversionOptions &options)
{
    Conversion conversion;
    QList<Hyperparameter> hps;
    QList<ContractFolder> folders = contractFolders();
    int contractAfter = -1; // the notebook cell the contract cell follows; -1: before the first code cell
    if (options.hyperparameters) {
        for (const Hyperparameter &hp : discoverHyperparameters(notebook)) {
            if (options.skipped.contains(hp.name))
                continue;
            contractAfter = std::max(contractAfter, hp.cell);
            const auto folder = std::find_if(folders.begin(), folders.end(), [&hp](const ContractFolder &f) {
                return f.name.compare(hp.name, Qt::CaseInsensitive) == 0;
            });
            if (folder != folders.end() && hp.type == "str"_L1) {
                folder->notebookName = hp.name;
                folder->fallback = hp.value;
                continue;
            }
            hps.append(hp);
        }
    }
    conversion.hyperparameters = hps;

    QStringList cells;
    if (options.fromNotebookFolder)
        cells << u"# %% The notebook's folder, where its relative paths point (added by Ferry's Run as Job)\n"
                 "import os as _ferry_os\n"
                 "_ferry_os.chdir(_ferry_os.path.dirname(_ferry_os.path.dirname(_ferry_os.path.abspath(__file__))))"_s;
    bool contractWritten = !options.hyperparameters;
    const QString contract = contractCell(hps, folders, options.sourceName);
    for (const NotebookCell &cell : notebook.cells) {
        if (!contractWritten && contractAfter < 0 && cell.kind == CellKind::Code) {
            cells << contract;
            contractWritten = true;
        }
        switch (cell.kind) {
        case CellKind::Markdown:
            ++conversion.markdownCells;
            cells << commentedCell(cellMarker(cell, u"markdown"_s), cell.source);
            break;
        case CellKind::Raw:
            cells << commentedCell(cellMarker(cell, u"raw"_s), cell.source);
            break;
        case CellKind::Code: {
            ++conversion.codeCells;
            const CodeCellOutput code = convertCode(cell);
            conversion.ipython << code.ipython;
            cells << cellMarker(cell, {}) + u'\n' + code.text;
            break;
        }
        }
        if (!contractWritten && cell.index == contractAfter) {
            cells << contract;
            contractWritten = true;
        }
    }
    if (!contractWritten)
        cells << contract;

    QStringList header{u"# Converted from %1 by `ferry notebook convert`; `# %%` starts a cell (VS Code, Jupytext, "
                       u"Spyder)."_s.arg(options.sourceName.isEmpty() ? u"a notebook"_s : oneLine(options.sourceName))};
    if (!conversion.ipython.isEmpty()) {
        header << u"# IPython syntax that plain Python cannot run is commented out:"_s;
        for (const IPythonLine &line : std::as_const(conversion.ipython))
            header << u"#   cell %1, line %2: %3"_s.arg(line.cell + 1)
                          .arg(line.line + 1)
                          .arg(oneLine(line.text.section(u'\n', 0, 0)));
    }
    conversion.script = header.join(u'\n') + u"\n\n"_s + cells.join(u"\n\n"_s) + u'\n';
    return conversion;
}

QJsonObject Conversion::proposalJson() const
{
    QJsonArray hpArray;
    for (const Hyperparameter &hp : hyperparameters) {
        QJsonValue value;
        if (hp.type == "int"_L1)
            value = QString(hp.value).remove(u'_').toLongLong();
        else if (hp.type == "float"_L1)
            value = QString(hp.value).remove(u'_').toDouble();
        else if (hp.type == "bool"_L1)
            value = hp.value == "True"_L1;
        else
            value = decodedDefault(hp);
        hpArray.append(QJsonObject{{u"name"_s, hp.name},
                                   {u"type"_s, hp.type},
                                   {u"default"_s, value},
                                   {u"source"_s, hp.value},
                                   {u"cell"_s, hp.cell + 1},
                                   {u"line"_s, hp.line + 1}});
    }
    QJsonArray ipythonArray;
    for (const IPythonLine &line : ipython)
        ipythonArray.append(QJsonObject{
            {u"kind"_s, line.kind}, {u"text"_s, line.text}, {u"cell"_s, line.cell + 1}, {u"line"_s, line.line + 1}});
    return QJsonObject{{u"hyperparameters"_s, hpArray},
                       {u"ipython"_s, ipythonArray},
                       {u"codeCells"_s, codeCells},
                       {u"markdownCells"_s, markdownCells}};
}

} // namespace ferry::notebook
