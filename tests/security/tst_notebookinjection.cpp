// M7 (security review; issue 14, item 7): a converted notebook runs nothing but the notebook's
// code cells. Crafted .ipynb files hide code where Jupyter never runs it (markdown and raw cells
// with a lone \r or another line end, cell tags with quotes and newlines, the notebook's own file
// name); the real `ferry notebook convert` converts them and python3 RUNS the script: the code
// cells' output is there and no marker file appears.
// L8: `ferry notebook convert` never silently replaces an existing script (--force replaces).
#include "support/cli.h"
#include "support/files.h"
#include "support/testmain.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace ferry::test;

namespace {

QJsonObject cell(const QString &kind, const QString &source, const QStringList &tags = {})
{
    QJsonObject c{{u"cell_type"_s, kind}, {u"source"_s, source}, {u"metadata"_s, QJsonObject{}}};
    if (!tags.isEmpty())
        c[u"metadata"_s] = QJsonObject{{u"tags"_s, QJsonArray::fromStringList(tags)}};
    if (kind == "code"_L1) {
        c[u"outputs"_s] = QJsonArray{};
        c[u"execution_count"_s] = QJsonValue::Null;
    }
    return c;
}

QByteArray notebook(const QJsonArray &cells)
{
    return QJsonDocument(
               QJsonObject{{u"nbformat"_s, 4},
                           {u"nbformat_minor"_s, 5},
                           {u"metadata"_s, QJsonObject{{u"kernelspec"_s, QJsonObject{{u"language"_s, u"python"_s},
                                                                                     {u"name"_s, u"python3"_s}}}}},
                           {u"cells"_s, cells}})
        .toJson();
}

// Python code that leaves a file named `marker` in the working folder.
QString plant(const QString &marker)
{
    return u"import os; open('%1', 'w').write('ran')"_s.arg(marker);
}

using ferry::test::kMissing;

} // namespace

class TestNotebookInjection : public QObject {
    Q_OBJECT

    // Converts `name` (in a fresh folder) and runs the script with python3 there; the script's
    // output, and the folder's entries afterwards.
    struct Ran {
        QString script;
        QString out;
        QStringList entries;
    };

    static Ran convertAndRun(const QTemporaryDir &dir, const QString &name, const QByteArray &ipynb)
    {
        Ran ran;
        if (!writeFile(dir.filePath(name), ipynb))
            qFatal("cannot write the notebook");
        const CliResult converted =
            runFerry(dir.path(), {u"notebook"_s, u"convert"_s, name, u"-o"_s, u"script.py"_s}, 60000);
        if (converted.exitCode != 0)
            qFatal("convert failed: %s", qPrintable(converted.err));
        ran.script = QString::fromUtf8(readFile(dir.filePath(u"script.py"_s), kMissing));
        const QString python = QStandardPaths::findExecutable(u"python3"_s);
        if (python.isEmpty())
            qFatal("python3 is needed to run the converted script");
        QProcess p;
        p.setWorkingDirectory(dir.path());
        p.setProcessChannelMode(QProcess::MergedChannels);
        p.start(python, {u"script.py"_s});
        if (!p.waitForFinished(60000))
            qFatal("the script did not finish");
        ran.out = QString::fromUtf8(p.readAll());
        ran.entries = QDir(dir.path()).entryList(QDir::Files | QDir::Dirs | QDir::NoDotAndDotDot);
        return ran;
    }

private Q_SLOTS:
    void onlyCodeCellsRun_data()
    {
        QTest::addColumn<QJsonArray>("cells");
        QTest::addColumn<QString>("marker");
        QTest::newRow("markdown, lone CR")
            << QJsonArray{cell(u"markdown"_s, u"# Notes\r"_s + plant(u"MARKER"_s) + u"\nmore notes\n"_s),
                          cell(u"code"_s, u"print('code cell ran')\n"_s)}
            << u"MARKER"_s;
        QTest::newRow("markdown, CR at the end of a line")
            << QJsonArray{cell(u"markdown"_s, u"intro\n\r"_s + plant(u"MARKER"_s)),
                          cell(u"code"_s, u"print('code cell ran')"_s)}
            << u"MARKER"_s;
        QTest::newRow("raw, lone CR") << QJsonArray{cell(u"raw"_s, u"raw text\r"_s + plant(u"MARKER"_s) + u"\r"_s),
                                                    cell(u"code"_s, u"print('code cell ran')"_s)}
                                      << u"MARKER"_s;
        QTest::newRow("markdown, form feed, vertical tab, separators")
            << QJsonArray{cell(u"markdown"_s, u"a\f"_s + plant(u"MARKER"_s) + u"\vb\u2028c\u0085d\u2029e\x1c"_s),
                          cell(u"code"_s, u"print('code cell ran')"_s)}
            << u"MARKER"_s;
        QTest::newRow("tag closing the list")
            << QJsonArray{cell(u"code"_s, u"print('code cell ran')"_s, {u"\"]\n"_s + plant(u"MARKER"_s) + u"\n#"_s})}
            << u"MARKER"_s;
        QTest::newRow("tag with a lone CR")
            << QJsonArray{cell(u"markdown"_s, u"notes"_s, {u"x\r"_s + plant(u"MARKER"_s)}),
                          cell(u"code"_s, u"print('code cell ran')"_s, {u"parameters\r"_s + plant(u"MARKER"_s)})}
            << u"MARKER"_s;
    }

    void onlyCodeCellsRun()
    {
        QFETCH(QJsonArray, cells);
        QFETCH(QString, marker);
        QTemporaryDir dir;
        const Ran ran = convertAndRun(dir, u"nb.ipynb"_s, notebook(cells));
        QVERIFY2(ran.out.contains(u"code cell ran"_s), qPrintable(ran.out + u"\n---\n"_s + ran.script));
        QVERIFY2(!ran.entries.contains(marker), qPrintable(ran.script));
    }

    // Tags with quotes are kept, escaped as JSON, so Jupytext reads the same tags back.
    void quotedTagsAreEscaped()
    {
        QTemporaryDir dir;
        const Ran ran = convertAndRun(
            dir, u"nb.ipynb"_s,
            notebook({cell(u"code"_s, u"print('code cell ran')"_s, {u"say \"hi\""_s, u"back\\slash"_s, u"plain"_s})}));
        const QString marker = u"# %% tags=[\"say \\\"hi\\\"\", \"back\\\\slash\", \"plain\"]"_s;
        QVERIFY2(ran.script.contains(marker), qPrintable(ran.script));
        QVERIFY(ran.out.contains(u"code cell ran"_s));
    }

    // The notebook's file name goes into the script's header and a Python string: a name with a
    // line break (a downloaded archive of notebooks can hold one) stays a comment.
    void theFileNameStaysAComment()
    {
        QTemporaryDir dir;
        const QString name = u"nb\n"_s + plant(u"MARKER"_s) + u"\n.ipynb"_s;
        const Ran ran =
            convertAndRun(dir, name, notebook({cell(u"code"_s, u"lr = 0.1\nprint('code cell ran', lr)"_s)}));
        QVERIFY2(ran.out.contains(u"code cell ran 0.1"_s), qPrintable(ran.out + u"\n---\n"_s + ran.script));
        QVERIFY2(!ran.entries.contains(u"MARKER"_s), qPrintable(ran.script));
    }

    // L8: an existing script is refused with a hint and kept; --force replaces it.
    void anExistingScriptIsNotReplaced()
    {
        QTemporaryDir dir;
        QVERIFY(writeFile(dir.filePath(u"nb.ipynb"_s), notebook({cell(u"code"_s, u"print(1)"_s)})));
        QVERIFY(writeFile(dir.filePath(u"nb.py"_s), "# the user's own script\n"));
        const CliResult refused = runFerry(dir.path(), {u"notebook"_s, u"convert"_s, u"nb.ipynb"_s}, 60000);
        QCOMPARE(refused.exitCode, 1);
        QVERIFY2(refused.err.contains(u"nb.py exists already; give --force to replace it"_s), qPrintable(refused.err));
        QCOMPARE(readFile(dir.filePath(u"nb.py"_s), kMissing), QByteArray("# the user's own script\n"));
        const CliResult other =
            runFerry(dir.path(), {u"notebook"_s, u"convert"_s, u"nb.ipynb"_s, u"-o"_s, u"nb.py"_s}, 60000);
        QCOMPARE(other.exitCode, 1); // -o to the same file too
        QCOMPARE(readFile(dir.filePath(u"nb.py"_s), kMissing), QByteArray("# the user's own script\n"));

        const CliResult forced =
            runFerry(dir.path(), {u"notebook"_s, u"convert"_s, u"nb.ipynb"_s, u"--force"_s}, 60000);
        QVERIFY2(forced.exitCode == 0, qPrintable(forced.err));
        QVERIFY(readFile(dir.filePath(u"nb.py"_s), kMissing).startsWith("# Converted from nb.ipynb"));
    }
};

FERRY_TEST_GUILESS_MAIN(TestNotebookInjection)
#include "tst_notebookinjection.moc"
