// The notebook as the window edits it (core/notebook/notebookdocument.h), against Jupyter's own
// nbformat (python3-nbformat): a notebook opened and saved without edits is the same bytes; one
// edited is what nbformat.write writes for the same edit, byte for byte (keys it does not know
// kept, numbers, non-ASCII text and control characters as Python writes them) and passes
// nbformat.validate; the percent format of jupytext read and written back; bad files refused
// with the line or the version, and nothing written over them.
#include "notebook/jupyterjson.h"
#include "notebook/notebookdocument.h"

#include "notebook/tst_notebookdocument_data.h"
#include "support/files.h"
#include "support/process.h"
#include "support/testmain.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using ferry::notebook::CellKind;
using ferry::notebook::DocumentCell;
using ferry::notebook::NotebookDocument;

namespace {

// nbformat reads `path`, appends `suffix` to cell `cell`'s source and writes it to `out`, as
// Jupyter saves an edit.
const char kNbformatEdit[] = R"PY(import sys, nbformat
path, cell, suffix, out = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
nb = nbformat.read(path, as_version=nbformat.NO_CONVERT)
nb.cells[cell].source += suffix
nbformat.write(nb, out)
)PY";

const char kNbformatValidate[] = R"PY(import sys, nbformat
nbformat.validate(nbformat.read(sys.argv[1], as_version=nbformat.NO_CONVERT))
print("valid")
)PY";

ferry::test::ProgramOutput python(const char *script, const QStringList &arguments)
{
    return ferry::test::runCommand(u"/usr/bin/python3"_s, QStringList{u"-c"_s, QString::fromUtf8(script)} + arguments);
}

QString fixture(const QString &name)
{
    return QStringLiteral(FERRY_SOURCE_DIR "/tests/data/notebooks/") + name;
}

} // namespace

class TestNotebookDocument : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

    // `name` edited here and by nbformat the same way: the same bytes, and nbformat finds it valid.
    void editedAsNbformatWrites(const QString &path, int cell, bool valid = true)
    {
        auto document = NotebookDocument::read(path);
        QVERIFY2(document, qPrintable(document ? QString() : document.error().toString()));
        QCOMPARE(document->toBytes(), ferry::test::readFile(path)); // opened, not edited: the same bytes
        QVERIFY(!document->differsFromFile());
        const QString suffix = u"\n# edited: é ✓ \"quoted\"\ttab"_s;
        document->cells[cell].source += suffix;
        QVERIFY(document->differsFromFile());
        const QString ours = m_dir.filePath(QFileInfo(path).completeBaseName() + u"-ferry.ipynb"_s);
        QVERIFY(document->save(ours));
        const QString theirs = m_dir.filePath(QFileInfo(path).completeBaseName() + u"-nbformat.ipynb"_s);
        const auto edited = python(kNbformatEdit, {path, QString::number(cell), suffix, theirs});
        QVERIFY2(edited.code == 0, edited.err.constData());
        // Line by line: a difference is said with its line.
        QCOMPARE(QString::fromUtf8(ferry::test::readFile(ours)).split(u'\n'),
                 QString::fromUtf8(ferry::test::readFile(theirs)).split(u'\n'));
        if (valid) {
            const auto validated = python(kNbformatValidate, {ours});
            QVERIFY2(validated.code == 0 && validated.out.trimmed() == "valid", validated.err.constData());
        }
        QVERIFY(!document->differsFromFile()); // saved: what is on disk now
    }

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void fixturesSaveAsNbformatDoes_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("cell");
        for (const char *name : {"explore.ipynb", "rich_outputs.ipynb", "linear_regression.ipynb", "stops.ipynb"})
            QTest::newRow(name) << QString::fromLatin1(name) << 0;
    }
    void fixturesSaveAsNbformatDoes()
    {
        QFETCH(QString, name);
        QFETCH(int, cell);
        editedAsNbformatWrites(fixture(name), cell);
    }

    // Keys nobody here knows, at every level, numbers as Python has them, text Python escapes or
    // keeps, sources and outputs as strings rather than lists: kept, and written as nbformat does.
    void whatFerryDoesNotKnowIsKept()
    {
        const QString path = m_dir.filePath(u"odd.ipynb"_s);
        QVERIFY(ferry::test::writeFile(path, kOddNotebook));
        editedAsNbformatWrites(path, 2, false); // keys outside metadata: no valid notebook, on purpose
    }

    void cellIdsWithTheVersion()
    {
        auto old = NotebookDocument::read(fixture(u"linear_regression.ipynb"_s));
        QVERIFY(old);
        const int minor = old->minor;
        auto blank = NotebookDocument::blank(m_dir.filePath(u"new.ipynb"_s));
        QCOMPARE(blank.minor, 5);
        QCOMPARE(blank.cells.size(), 1);
        QCOMPARE(blank.cells[0].id.size(), 8);
        blank.cells << DocumentCell{};
        blank.cells.last().id = DocumentCell::newId();
        blank.cells.last().kind = CellKind::Markdown;
        blank.cells.last().source = u"# Title"_s;
        QVERIFY(blank.save(blank.path));
        const auto valid = python(kNbformatValidate, {blank.path});
        QVERIFY2(valid.code == 0, valid.err.constData());
        Q_UNUSED(minor);
    }

    void kernelChoiceInTheMetadata()
    {
        QDir(m_dir.path()).mkpath(u"nb/environments"_s);
        auto document = NotebookDocument::blank(m_dir.filePath(u"nb/a.ipynb"_s));
        document.setKernelChoice(m_dir.filePath(u"nb/environments/torch.yml"_s), u"ssh:gpu1"_s);
        QCOMPARE(document.environment(), u"environments/torch.yml"_s);
        QCOMPARE(document.target(), u"ssh:gpu1"_s);
        const QJsonObject spec = document.metadata.value(u"kernelspec"_s).toObject();
        QCOMPARE(spec.value(u"name"_s).toString(), u"python3"_s);
        QCOMPARE(spec.value(u"display_name"_s).toString(), u"Python 3 (torch)"_s);
        QVERIFY(document.save(document.path));
        const auto valid = python(kNbformatValidate, {document.path});
        QVERIFY2(valid.code == 0, valid.err.constData());
        auto again = NotebookDocument::read(document.path);
        QVERIFY(again);
        QCOMPARE(again->environment(), u"environments/torch.yml"_s);
    }

    // jupytext's percent format: header kept, markdown uncommented, titles kept, code before the
    // first marker a cell of its own; unchanged: the same bytes; edited: written as jupytext does.
    void percentFormat()
    {
        const QByteArray text = "# ---\n# jupyter:\n#   jupytext:\n#     text_representation:\n"
                                "#       format_name: percent\n# ---\n\n"
                                "import os\n\n"
                                "# %% [markdown]\n# # Title\n#\n# Some *text*.\n\n"
                                "# %% Load the data\nx = 1\n\n\ny = 2\n\n"
                                "# %%\nprint(x + y)\n";
        const QString path = m_dir.filePath(u"script.py"_s);
        QVERIFY(ferry::test::writeFile(path, text));
        auto document = NotebookDocument::read(path);
        QVERIFY2(document, qPrintable(document ? QString() : document.error().toString()));
        QCOMPARE(document->format, NotebookDocument::Format::Percent);
        QCOMPARE(document->cells.size(), 4);
        QCOMPARE(document->cells[0].source, u"import os"_s);
        QCOMPARE(document->cells[1].kind, CellKind::Markdown);
        QCOMPARE(document->cells[1].source, u"# Title\n\nSome *text*."_s);
        QCOMPARE(document->cells[2].source, u"x = 1\n\n\ny = 2"_s);
        QCOMPARE(document->cells[3].source, u"print(x + y)"_s);
        QCOMPARE(document->toBytes(), text);
        QVERIFY(!document->differsFromFile());
        document->cells[3].source = u"print(x * y)"_s;
        document->cells[3].outputs = QJsonArray{QJsonObject{{u"output_type"_s, u"stream"_s}}}; // never written
        QVERIFY(document->save(path));
        QByteArray expected = text;
        expected.replace("print(x + y)", "print(x * y)");
        QCOMPARE(ferry::test::readFile(path), expected);
        // As a notebook to convert: the cells, in order.
        QCOMPARE(document->toNotebook().cells.size(), 4);
    }

    // Broken JSON names its line; nbformat 3 is refused with the way to upgrade; a newer minor
    // opens with a word; the file is never written over.
    void badNotebooksAreSaid()
    {
        const auto broken = NotebookDocument::read(fixture(u"broken_json.ipynb"_s));
        QVERIFY(!broken);
        QVERIFY2(broken.error().line > 0, qPrintable(broken.error().toString()));
        const auto three = NotebookDocument::read(fixture(u"nbformat3.ipynb"_s));
        QVERIFY(!three);
        QVERIFY2(three.error().toString().contains(u"nbformat 3"_s), qPrintable(three.error().toString()));
        const QString newer = m_dir.filePath(u"newer.ipynb"_s);
        QVERIFY(ferry::test::writeFile(newer, kNewerNotebook));
        const auto opened = NotebookDocument::read(newer);
        QVERIFY(opened);
        QVERIFY(opened->warning.contains(u"4.9"_s));
        QCOMPARE(opened->cells[0].other.value(u"new_key"_s).toInt(), 1);
        const auto missing = NotebookDocument::read(m_dir.filePath(u"none.ipynb"_s));
        QVERIFY(!missing);
        // A notebook with an output of 2 GB (sparse here: its size is what is refused, before a
        // byte is read): its size, the limit and the way out; the file is as it was.
        const QString huge = m_dir.filePath(u"huge.ipynb"_s);
        {
            QFile file(huge);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write("{\"cells\": [{\"cell_type\": \"code\", \"outputs\": [{\"text\": \"");
            QVERIFY(file.resize(2LL * 1024 * 1024 * 1024 + 10));
        }
        const QDateTime written = QFileInfo(huge).lastModified();
        const auto tooLarge = NotebookDocument::read(huge);
        QVERIFY(!tooLarge);
        QVERIFY2(tooLarge.error().message.contains(u"2.0 GiB"_s) && tooLarge.error().message.contains(u"512 MiB"_s),
                 qPrintable(tooLarge.error().toString()));
        QVERIFY(tooLarge.error().hint.contains(u"nbconvert --clear-output --inplace huge.ipynb"_s));
        QCOMPARE(QFileInfo(huge).size(), 2LL * 1024 * 1024 * 1024 + 10);
        QCOMPARE(QFileInfo(huge).lastModified(), written);
        QVERIFY(QFile::remove(huge));
    }

    void pythonsSplitLines()
    {
        QCOMPARE(ferry::notebook::splitLinesKeepingEnds(u"a\r\nb\rc\u2028d\ne"_s),
                 (QStringList{u"a\r\n"_s, u"b\r"_s, u"c\u2028"_s, u"d\n"_s, u"e"_s}));
        QCOMPARE(ferry::notebook::splitLinesKeepingEnds(QString()), QStringList());
        QCOMPARE(ferry::notebook::pythonJson(QJsonValue(1e22)), QByteArray("1e+22"));
        QCOMPARE(ferry::notebook::pythonJson(QJsonValue(123.5)), QByteArray("123.5"));
        QCOMPARE(ferry::notebook::pythonJson(QJsonValue(123.0)), QByteArray("123")); // Qt's integer
        QCOMPARE(ferry::notebook::pythonJson(QJsonValue(0.0001)), QByteArray("0.0001"));
        QCOMPARE(ferry::notebook::pythonJson(QJsonValue(0.00001234)), QByteArray("1.234e-05"));
    }
};

FERRY_TEST_GUILESS_MAIN(TestNotebookDocument)
#include "tst_notebookdocument.moc"
