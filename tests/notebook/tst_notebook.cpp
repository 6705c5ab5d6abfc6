// Notebook import: the nbformat 4 reader, the percent-format script and the hyperparameters,
// checked against Jupyter's own tools: nbformat's validator judges the fixtures, `jupyter
// nbconvert --to script` gives every code cell's code, and Python compiles what Ferry writes.
#include "notebook/conversion.h"
#include "notebook/pythonsource.h"
#include "support/cost.h"
#include "support/files.h"
#include "support/testmain.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <cstdio>

using namespace Qt::StringLiterals;
using namespace ferry::notebook;
using ferry::test::testData;

namespace {

const QString kPython = u"/usr/bin/python3"_s;

struct ProcessResult {
    int exitCode = -1;
    QString out;
    QString err;
};

ProcessResult runProgram(const QString &program, const QStringList &arguments, const QString &home = {})
{
    QProcess process;
    if (!home.isEmpty()) {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(u"HOME"_s, home); // Jupyter writes its runtime and config folders there
        env.insert(u"JUPYTER_PLATFORM_DIRS"_s, u"1"_s);
        process.setProcessEnvironment(env);
    }
    process.start(program, arguments);
    if (!process.waitForFinished(180000)) {
        process.kill();
        process.waitForFinished();
        return {};
    }
    return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
            QString::fromUtf8(process.readAllStandardOutput()), QString::fromUtf8(process.readAllStandardError())};
}

ConversionOptions options(bool hyperparameters, const QString &sourceName)
{
    ConversionOptions result;
    result.hyperparameters = hyperparameters;
    result.sourceName = sourceName;
    return result;
}

QStringList trimmedLines(const QString &text)
{
    QStringList lines = text.split(u'\n');
    while (!lines.isEmpty() && lines.first().trimmed().isEmpty())
        lines.removeFirst();
    while (!lines.isEmpty() && lines.last().trimmed().isEmpty())
        lines.removeLast();
    return lines;
}

// The code cells of a percent script (the contract cell Ferry adds left out), as trimmed lines.
QList<QStringList> percentCodeCells(const QString &script)
{
    QList<QStringList> cells;
    QStringList *current = nullptr;
    bool inCode = false;
    for (const QString &line : script.split(u'\n')) {
        if (line == "# %%"_L1 || line.startsWith("# %% tags="_L1)) {
            cells.append(QStringList());
            current = &cells.last();
            inCode = true;
            continue;
        }
        if (line.startsWith("# %% "_L1)) { // markdown, raw, or Ferry's own cell
            inCode = false;
            continue;
        }
        if (inCode)
            current->append(line);
    }
    for (QStringList &cell : cells)
        cell = trimmedLines(cell.join(u'\n'));
    return cells;
}

// Ferry comments out what nbconvert leaves (or turns into get_ipython() calls when IPython is there).
bool isCommentedForm(const QString &ours, const QString &theirs)
{
    const QString stripped = theirs.trimmed();
    const QString indent = theirs.left(theirs.indexOf(stripped));
    if (ours == u"# "_s + theirs || ours == u"# [cell magic] "_s + stripped ||
        ours == indent + u"pass  # "_s + stripped)
        return true;
    // With IPython installed, nbconvert writes get_ipython() calls: Ferry's line is a comment there.
    return stripped.contains("get_ipython()"_L1) &&
           (ours.trimmed().startsWith(u'#') || ours.trimmed().startsWith("pass  #"_L1));
}

} // namespace

class TestNotebook : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void readsSourceAsStringOrList()
    {
        const auto listed = readNotebook(testData(u"notebooks/linear_regression.ipynb"_s));
        QVERIFY2(listed, qPrintable(listed ? QString() : listed.error().toString()));
        QCOMPARE(listed->cells.size(), 9);
        QCOMPARE(listed->cells[0].kind, CellKind::Markdown);
        QCOMPARE(listed->cells[1].source, u"import json\nimport math\nimport os\nimport random\n%matplotlib inline"_s);
        QCOMPARE(listed->language, u"python"_s);
        QCOMPARE(listed->minor, 5);

        const auto joined = readNotebook(testData(u"notebooks/tricky_syntax.ipynb"_s));
        QVERIFY(joined);
        QCOMPARE(joined->minor, 2);
        QCOMPARE(joined->cells[2].tags, QStringList{u"parameters"_s});
        QCOMPARE(joined->cells[7].kind, CellKind::Raw);
        QVERIFY(joined->cells[3].source.startsWith(u"doc = \"\"\"\n%not a magic"_s));
    }

    void acceptsEveryMinorVersion_data()
    {
        QTest::addColumn<int>("major");
        QTest::addColumn<int>("minor");
        QTest::addColumn<QString>("error");
        QTest::newRow("4.0") << 4 << 0 << QString();
        QTest::newRow("4.4") << 4 << 4 << QString();
        QTest::newRow("4.99") << 4 << 99 << QString();
        QTest::newRow("3.0") << 3 << 0 << u"nbformat 3 notebooks are not supported"_s;
        QTest::newRow("5.0") << 5 << 0 << u"nbformat 5 notebooks are not supported"_s;
    }
    void acceptsEveryMinorVersion()
    {
        QFETCH(int, major);
        QFETCH(int, minor);
        QFETCH(QString, error);
        const QByteArray json =
            u"{\"cells\": [{\"cell_type\": \"code\", \"source\": \"x = 1\", \"metadata\": {}, "
            u"\"outputs\": []}], \"metadata\": {}, \"nbformat\": %1, \"nbformat_minor\": %2}"_s.arg(major)
                .arg(minor)
                .toUtf8();
        const auto notebook = parseNotebook(json, u"v.ipynb"_s);
        if (error.isEmpty()) {
            QVERIFY(notebook);
            QCOMPARE(notebook->cells.size(), 1);
        } else {
            QVERIFY(!notebook);
            QVERIFY2(notebook.error().message.contains(error), qPrintable(notebook.error().toString()));
            QVERIFY(notebook.error().hint.contains(u"nbconvert --to notebook --nbformat 4"_s));
        }
    }

    void refusesWhatIsNoNotebook_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("message");
        QTest::addColumn<int>("line");
        QTest::newRow("broken json") << QByteArray("{\n \"cells\": [\n  {\"a\": 1,}\n ]}") << u"the JSON is broken"_s
                                     << 3;
        // Found by fuzz_notebook: nlohmann throws out_of_range (not parse_error) for it.
        QTest::newRow("number overflow") << QByteArray(400, '9') << u"the JSON cannot be read"_s << 0;
        QTest::newRow("array") << QByteArray("[]") << u"not an object"_s << 0;
        QTest::newRow("no version") << QByteArray("{\"cells\": []}") << u"no 'nbformat' version"_s << 0;
        QTest::newRow("no cells") << QByteArray("{\"nbformat\": 4}") << u"no 'cells' list"_s << 0;
        QTest::newRow("cell type") << QByteArray(
                                          "{\"nbformat\": 4, \"cells\": [{\"cell_type\": \"sql\", \"source\": \"\"}]}")
                                   << u"cell 1 has the unknown cell_type 'sql'"_s << 0;
        QTest::newRow("source") << QByteArray(
                                       "{\"nbformat\": 4, \"cells\": [{\"cell_type\": \"code\", \"source\": [1]}]}")
                                << u"cell 1: 'source' must be a string or a list of strings"_s << 0;
        QTest::newRow("no source") << QByteArray("{\"nbformat\": 4, \"cells\": [{\"cell_type\": \"code\"}]}")
                                   << u"cell 1 has no 'source'"_s << 0;
    }
    void refusesWhatIsNoNotebook()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, message);
        QFETCH(int, line);
        const auto notebook = parseNotebook(json, u"nb.ipynb"_s);
        QVERIFY(!notebook);
        QVERIFY2(notebook.error().message.contains(message), qPrintable(notebook.error().toString()));
        QCOMPARE(notebook.error().path, u"nb.ipynb"_s);
        QCOMPARE(notebook.error().line, line);
    }

    // The fixtures are what Jupyter accepts, and Ferry agrees with nbformat's validator on each.
    // Review N5: 20 MB of nested '[' took 1.6 GB as a DOM. Nesting past 64 is refused where it
    // starts, the whole file read in memory that is the file's.
    void deepNestingIsRefusedWhereItIs()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(u"deep.ipynb"_s);
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        const QByteArray head = "{\"nbformat\": 4,\n \"metadata\": {\"x\": ";
        file.write(head + QByteArray(20'000'000, '['));
        file.close();
        ferry::Expected<Notebook> notebook = Notebook{};
        const auto cost =
            ferry::test::measure("nested '['", u"20,000,035 bytes"_s, [&] { notebook = readNotebook(path); });
        QVERIFY(!notebook);
        QVERIFY2(notebook.error().message.contains(u"nested deeper than 64"_s),
                 qPrintable(notebook.error().toString()));
        QCOMPARE(notebook.error().path, path);
        QCOMPARE(notebook.error().line, 2);
        QCOMPARE(notebook.error().column, 20 + 62); // the 65th: two objects, then the 63rd '['
        QVERIFY2(ferry::test::peakWithin(cost.peakBytes, 3 * 20'000'000 + (16 << 20)),
                 "about the file's size expected");
        QVERIFY2(ferry::test::secondsWithin(cost.seconds, 10), "a fraction of a second expected");
        // As deep as 64 is read (the cells' nesting is nbformat's, the rest is read past).
        QByteArray deep = "{\"nbformat\": 4, \"cells\": [], \"metadata\": {\"x\": ";
        deep += QByteArray(62, '[') + QByteArray(62, ']') + "}}";
        QVERIFY(parseNotebook(deep, u"64.ipynb"_s));
    }

    // A notebook's memory is a small multiple of its file, whatever it holds: 30,000 cells of two
    // lines and two tags each, with outputs of many small values (held as a DOM: each value its
    // own node, about ten times the file); only the sources and tags are kept.
    void memoryIsASmallMultipleOfTheFile()
    {
        QByteArray text = "{\"nbformat\": 4, \"nbformat_minor\": 5, \"metadata\": {\"kernelspec\": "
                          "{\"language\": \"python\"}}, \"cells\": [";
        QByteArray zeros = "0";
        for (int i = 0; i < 300; ++i)
            zeros += ",0";
        for (int i = 0; i < 30000; ++i) {
            text += i == 0 ? "" : ",";
            text += "{\"cell_type\": \"code\", \"metadata\": {\"tags\": [\"a\", \"b\"]}, \"outputs\": "
                    "[{\"data\": [" +
                    zeros + "]}], \"source\": [\"x = " + QByteArray::number(i) + "\\n\", \"y = x\"]}";
        }
        text += "]}";
        QTemporaryDir dir;
        const QString path = dir.filePath(u"big.ipynb"_s);
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(text);
        file.close();
        const qint64 size = text.size();
        text = {};
        ferry::Expected<Notebook> notebook = Notebook{};
        const auto cost = ferry::test::measure("a notebook of 30,000 cells", u"%1 bytes"_s.arg(size),
                                               [&] { notebook = readNotebook(path); });
        QVERIFY2(notebook, qPrintable(notebook ? QString() : notebook.error().toString()));
        QCOMPARE(notebook->cells.size(), 30000);
        QCOMPARE(notebook->cells.last().source, u"x = 29999\ny = x"_s);
        QCOMPARE(notebook->cells.last().tags, (QStringList{u"a"_s, u"b"_s}));
        QCOMPARE(notebook->language, u"python"_s);
        std::printf("         %.2f times the file\n", double(cost.peakBytes) / double(size));
        QVERIFY2(ferry::test::peakWithin(cost.peakBytes, 4 * size), "about 1.5 times the file expected");
    }

    void agreesWithNbformatValidator_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<bool>("validForNbformat");
        QTest::addColumn<bool>("readByFerry");
        QTest::newRow("linear_regression") << u"linear_regression.ipynb"_s << true << true;
        QTest::newRow("tricky_syntax") << u"tricky_syntax.ipynb"_s << true << true;
        QTest::newRow("rich_outputs") << u"rich_outputs.ipynb"_s << true << true;
        QTest::newRow("r_kernel") << u"r_kernel.ipynb"_s << true << true; // refused later, by language
        QTest::newRow("nbformat3 (valid, but v3)") << u"nbformat3.ipynb"_s << true << false;
        QTest::newRow("source_not_text") << u"source_not_text.ipynb"_s << false << false;
        QTest::newRow("broken_json") << u"broken_json.ipynb"_s << false << false;
    }
    void agreesWithNbformatValidator()
    {
        QFETCH(QString, name);
        QFETCH(bool, validForNbformat);
        QFETCH(bool, readByFerry);
        const ProcessResult validated =
            runProgram(kPython, {u"-c"_s,
                                 u"import sys, nbformat\n"
                                 u"nb = nbformat.read(sys.argv[1], as_version=nbformat.NO_CONVERT)\n"
                                 u"nbformat.validate(nb)"_s,
                                 testData(u"notebooks/"_s + name)});
        QVERIFY2(!validated.err.contains("No module named"_L1), qPrintable(validated.err));
        QCOMPARE(validated.exitCode == 0, validForNbformat);
        QCOMPARE(readNotebook(testData(u"notebooks/"_s + name)).hasValue(), readByFerry);
    }

    void splitsLogicalLines()
    {
        const QString source =
            u"x = (1,\n     2)  # c\ns = '''a\n%b'''\n  !ls 'it's\n%time y\nz = 1 \\\n  + 2\n# only\n"_s;
        const auto lines = logicalLines(source);
        QCOMPARE(lines.size(), 6);
        QCOMPARE(lines[0].lastLine, 1);
        QCOMPARE(lines[0].code, u"x = (1,"_s);
        QCOMPARE(lines[1].kind, LogicalLine::Kind::Python); // '%b' is inside the string
        QCOMPARE(lines[1].lastLine, 3);
        QCOMPARE(lines[2].kind, LogicalLine::Kind::Shell); // its quote opens no string
        QCOMPARE(lines[2].indent, 2);
        QCOMPARE(lines[3].kind, LogicalLine::Kind::Magic);
        QCOMPARE(lines[4].firstLine, 6);
        QCOMPARE(lines[4].lastLine, 7);
        QCOMPARE(lines[5].kind, LogicalLine::Kind::Blank);
    }

    void findsHyperparameters_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QStringList>("expected"); // name:type:value
        QTest::newRow("leading constants")
            << u"linear_regression.ipynb"_s
            << QStringList{u"lr:float:0.05"_s,    u"epochs:int:20"_s,         u"batch_size:int:16"_s,
                           u"seed:int:7"_s,       u"optimizer:str:\"sgd\""_s, u"verbose:bool:True"_s,
                           u"noise:float:1e-1"_s, u"n_samples:int:256"_s};
        // The papermill "parameters" cell wins over the leading cells.
        QTest::newRow("parameters tag") << u"tricky_syntax.ipynb"_s
                                        << QStringList{u"epochs:int:5"_s, u"dropout:float:0.25"_s,
                                                       u"name:str:\"mlp\""_s};
        // A list is no literal; a counter assigned again later is no constant.
        QTest::newRow("types and counters") << u"rich_outputs.ipynb"_s
                                            << QStringList{u"BATCH:int:32"_s, u"hidden_units:int:1_024"_s,
                                                           u"use_bn:bool:False"_s, u"threshold:float:-0.5"_s};
    }
    void findsHyperparameters()
    {
        QFETCH(QString, name);
        QFETCH(QStringList, expected);
        const auto notebook = readNotebook(testData(u"notebooks/"_s + name));
        QVERIFY(notebook);
        QStringList found;
        for (const Hyperparameter &hp : discoverHyperparameters(*notebook))
            found << hp.name + u':' + hp.type + u':' + hp.value;
        QCOMPARE(found, expected);
    }

    void writesPercentFormat()
    {
        const auto notebook = readNotebook(testData(u"notebooks/linear_regression.ipynb"_s));
        QVERIFY(notebook);
        const Conversion conversion = convertNotebook(*notebook, options(true, u"linear_regression.ipynb"_s));
        const QString &script = conversion.script;
        QVERIFY(script.contains(u"# %% [markdown]\n# # Linear regression with SGD\n#\n# Fits"_s));
        QCOMPARE(conversion.codeCells, 7);
        QCOMPARE(conversion.markdownCells, 2);
        // Every line starting "# %%" is a cell marker: 9 cells and Ferry's contract cell.
        QCOMPARE(script.count(QRegularExpression(u"(^|\\n)# %%"_s)), 10);
        QVERIFY(script.contains(u"\n# %matplotlib inline\n"_s));
        QVERIFY(script.contains(u"\n# !pip install --quiet numpy\n"_s));
        QVERIFY(script.contains(u"\n# [cell magic] %%time\nprint(f\"w={w:.3f} b={b:.3f}\")"_s));
        QStringList kinds;
        for (const IPythonLine &line : conversion.ipython)
            kinds << line.kind + u' ' + QString::number(line.cell + 1) + u':' + QString::number(line.line + 1);
        QCOMPARE(kinds, (QStringList{u"magic 2:5"_s, u"shell 4:1"_s, u"cell magic 8:1"_s}));
        // The argparse cell follows the cell that defines the constants.
        const qsizetype constants = script.indexOf(u"n_samples = 256"_s);
        const qsizetype contract = script.indexOf(u"# %% Hyperparameters and the training contract"_s);
        const qsizetype data = script.indexOf(u"# %% [markdown]\n# ## Data"_s);
        QVERIFY(constants < contract && contract < data);
        QVERIFY(script.contains(u"_parser.add_argument(\"--batch_size\", \"--batch-size\", dest=\"batch_size\", "
                                u"type=int, default=16)"_s));
        QVERIFY(script.contains(u"default=os.environ.get(\"SM_MODEL_DIR\", \"model\")"_s));
        QVERIFY(script.contains(u"os.environ.get(\"SM_CHANNEL_\" + _channel.upper())"_s));

        const Conversion plain = convertNotebook(*notebook, options(false, QString()));
        QVERIFY(!plain.script.contains(u"argparse"_s));
        QVERIFY(plain.hyperparameters.isEmpty());
    }

    // The argparse cell at work, run by Python: --NAME overrides a constant, a notebook's own
    // MODEL_DIR is the fallback of --model-dir, channels come from SM_CHANNELS / SM_CHANNEL_*
    // (or their option), and a channel named like a hyperparameter leaves the option to it.
    void contractCellRuns()
    {
        const QByteArray json = R"json({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
            {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": null, "id": "a",
             "source": ["lr = 0.1\n", "train = 'x'\n", "MODEL_DIR = 'out/models'\n"]},
            {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": null, "id": "b",
             "source": "print(json.dumps({'lr': lr, 'train': train, 'MODEL_DIR': MODEL_DIR, 'model_dir': model_dir, 'channels': channels}))"}
        ]})json";
        const auto notebook = parseNotebook(json, u"contract.ipynb"_s);
        QVERIFY(notebook);
        const Conversion conversion = convertNotebook(*notebook, options(true, u"contract.ipynb"_s));
        QCOMPARE(conversion.hyperparameters.size(), 2); // lr, train; MODEL_DIR belongs to the contract
        QTemporaryDir dir;
        QFile file(dir.filePath(u"train.py"_s));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(conversion.script.toUtf8());
        file.close();
        QProcess python;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove(u"SM_MODEL_DIR"_s);
        env.insert(u"SM_CHANNELS"_s, u"[\"train\", \"eval\"]"_s);
        env.insert(u"SM_CHANNEL_TRAIN"_s, u"/data/train"_s);
        env.insert(u"SM_CHANNEL_EVAL"_s, u"/data/eval"_s);
        python.setProcessEnvironment(env);
        python.setWorkingDirectory(dir.path());
        python.start(kPython,
                     {file.fileName(), u"--lr"_s, u"0.5"_s, u"--eval"_s, u"/elsewhere"_s, u"--unknown"_s, u"1"_s});
        QVERIFY(python.waitForFinished(60000));
        QVERIFY2(python.exitCode() == 0, python.readAllStandardError().constData());
        const QJsonObject out = QJsonDocument::fromJson(python.readAllStandardOutput()).object();
        QCOMPARE(out[u"lr"_s].toDouble(), 0.5);
        QCOMPARE(out[u"train"_s].toString(), u"x"_s);
        QCOMPARE(out[u"MODEL_DIR"_s].toString(), u"out/models"_s);
        QCOMPARE(out[u"model_dir"_s].toString(), u"out/models"_s);
        QVERIFY(QFileInfo(dir.filePath(u"out/models"_s)).isDir());
        QCOMPARE(out[u"channels"_s].toObject(),
                 (QJsonObject{{u"train"_s, u"/data/train"_s}, {u"eval"_s, u"/elsewhere"_s}}));
    }

    // `%%capture` over pip installs, a common first cell: its body is converted too (the shell
    // escapes commented), and the constants after it are still found.
    void captureCellBodyIsConverted()
    {
        const QByteArray json = R"json({"nbformat": 4, "nbformat_minor": 4, "metadata": {}, "cells": [
            {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": null,
             "source": "%%capture\n!pip install torch\nimport os"},
            {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": null, "source": "epochs = 3"}
        ]})json";
        const auto notebook = parseNotebook(json, u"capture.ipynb"_s);
        QVERIFY(notebook);
        const Conversion conversion = convertNotebook(*notebook, options(true, u"capture.ipynb"_s));
        QVERIFY2(conversion.script.contains(u"# %%\n# [cell magic] %%capture\n# !pip install torch\nimport os\n"_s),
                 qPrintable(conversion.script));
        QCOMPARE(conversion.ipython.size(), 2);
        QCOMPARE(conversion.hyperparameters.size(), 1);
        QCOMPARE(conversion.hyperparameters.first().name, u"epochs"_s);
    }

    // What Python itself says: every converted script compiles, with and without the argparse cell.
    void scriptsCompile_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<bool>("hyperparameters");
        for (const QString &name : {u"linear_regression"_s, u"tricky_syntax"_s, u"rich_outputs"_s}) {
            QTest::newRow(qPrintable(name)) << name << true;
            QTest::newRow(qPrintable(name + u" plain"_s)) << name << false;
        }
    }
    void scriptsCompile()
    {
        QFETCH(QString, name);
        QFETCH(bool, hyperparameters);
        const auto notebook = readNotebook(testData(u"notebooks/"_s + name + u".ipynb"_s));
        QVERIFY(notebook);
        QTemporaryDir dir;
        QFile file(dir.filePath(u"train.py"_s));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(convertNotebook(*notebook, options(hyperparameters, name)).script.toUtf8());
        file.close();
        const ProcessResult compiled = runProgram(kPython, {u"-m"_s, u"py_compile"_s, file.fileName()});
        QVERIFY2(compiled.exitCode == 0, qPrintable(compiled.err));
    }

    // Jupyter's own converter: the code of every code cell is the same, except the IPython lines
    // Ferry comments out (nbconvert keeps them, or calls get_ipython() when IPython is installed).
    void matchesNbconvert_data()
    {
        QTest::addColumn<QString>("name");
        for (const QString &name : {u"linear_regression"_s, u"tricky_syntax"_s, u"rich_outputs"_s})
            QTest::newRow(qPrintable(name)) << name;
    }
    void matchesNbconvert()
    {
        QFETCH(QString, name);
        QTemporaryDir dir;
        // A copy with a raw boundary cell before each code cell (nbconvert writes raw cells as they
        // are), so its script splits back into cells.
        QFile original(testData(u"notebooks/"_s + name + u".ipynb"_s));
        QVERIFY(original.open(QIODevice::ReadOnly));
        QJsonObject document = QJsonDocument::fromJson(original.readAll()).object();
        const QString boundary = u"#### ferry-test cell boundary ####"_s;
        QJsonArray cells;
        for (const QJsonValue &cell : document[u"cells"_s].toArray()) {
            if (cell[u"cell_type"_s].toString() != "code"_L1)
                continue;
            cells.append(
                QJsonObject{{u"cell_type"_s, u"raw"_s}, {u"metadata"_s, QJsonObject{}}, {u"source"_s, boundary}});
            cells.append(cell);
        }
        document[u"cells"_s] = cells;
        QFile copy(dir.filePath(u"copy.ipynb"_s));
        QVERIFY(copy.open(QIODevice::WriteOnly));
        copy.write(QJsonDocument(document).toJson());
        copy.close();
        const ProcessResult converted = runProgram(
            u"jupyter"_s, {u"nbconvert"_s, u"--to"_s, u"script"_s, u"--stdout"_s, copy.fileName()}, dir.path());
        QVERIFY2(converted.exitCode == 0, qPrintable(converted.err));
        QStringList theirChunks = converted.out.split(boundary);
        theirChunks.removeFirst(); // before the first code cell: the header, if any

        const auto notebook = readNotebook(testData(u"notebooks/"_s + name + u".ipynb"_s));
        QVERIFY(notebook);
        const QList<QStringList> ours = percentCodeCells(convertNotebook(*notebook, options(true, name)).script);
        QCOMPARE(ours.size(), theirChunks.size());
        for (qsizetype i = 0; i < ours.size(); ++i) {
            const QStringList theirs = trimmedLines(theirChunks[i]);
            QCOMPARE(ours[i].size(), theirs.size());
            for (qsizetype l = 0; l < theirs.size(); ++l) {
                if (ours[i][l] == theirs[l])
                    continue;
                QVERIFY2(isCommentedForm(ours[i][l], theirs[l]),
                         qPrintable(u"cell %1 line %2: ours '%3', nbconvert '%4'"_s.arg(i + 1).arg(l + 1).arg(
                             ours[i][l], theirs[l])));
            }
        }
    }
};

FERRY_TEST_GUILESS_MAIN(TestNotebook)
#include "tst_notebook.moc"
