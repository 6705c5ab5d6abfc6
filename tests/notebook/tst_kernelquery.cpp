// What a notebook asks its kernel (core/notebook/kernelquery.h), its Python run for real by
// Debian's /usr/bin/python3 as IPython evaluates a user expression: the names of tricky cells
// (scopes, IPython lines, a syntax error), the variables of a namespace of a thousand, and no
// trace left (no name bound, numpy never imported).
#include "notebook/kernelquery.h"

#include "support/process.h"
#include "support/testmain.h"

#include "tst_kernelquery_data.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <algorithm>

using namespace Qt::StringLiterals;
using ferry::notebook::KernelQuery;

namespace {

// The query evaluated by /usr/bin/python3 after `setup`: the driver's JSON (reply, seconds,
// new_modules, namespace_changed), empty with `error` set when it did not run.
QJsonObject evaluate(const KernelQuery &query, const QString &setup, QString *error)
{
    const QJsonObject asked{
        {u"setup"_s, setup},
        {u"expression"_s, ferry::notebook::kernelQueryExpressions(query).value(u"ferry"_s).toString()}};
    const auto ran = ferry::test::runCommand(u"/usr/bin/python3"_s, {u"-c"_s, QString::fromUtf8(kEvaluateAsIPython)},
                                             {}, QJsonDocument(asked).toJson(QJsonDocument::Compact));
    if (ran.code != 0) {
        *error = QString::fromUtf8(ran.err);
        return {};
    }
    return QJsonDocument::fromJson(ran.out).object();
}

QStringList sorted(QStringList list)
{
    std::sort(list.begin(), list.end());
    return list;
}

QStringList words(const char *text)
{
    return QString::fromUtf8(text).split(u' ', Qt::SkipEmptyParts);
}

} // namespace

class TestKernelQuery : public QObject {
    Q_OBJECT

    QList<ferry::notebook::CellNames> m_names; // of kTrickyCells, in one query

private Q_SLOTS:
    void initTestCase()
    {
        KernelQuery query;
        for (const TrickyCell &cell : kTrickyCells)
            query.sources << ferry::notebook::analyzableSource(QString::fromUtf16(cell.source));
        QString error;
        const QJsonObject ran = evaluate(query, {}, &error);
        QVERIFY2(!ran.isEmpty(), qPrintable(error));
        const auto answer = ferry::notebook::readKernelQueryReply(ran.value(u"reply"_s).toObject());
        QVERIFY2(answer, qPrintable(answer ? QString() : answer.error().message));
        QVERIFY(!answer->hasVariables);
        m_names = answer->cells;
        QCOMPARE(m_names.size(), qsizetype(std::size(kTrickyCells)));
    }

    void namesOfTrickyCells_data()
    {
        QTest::addColumn<int>("index");
        for (int i = 0; i < int(std::size(kTrickyCells)); ++i)
            QTest::newRow(kTrickyCells[i].name) << i;
    }

    void namesOfTrickyCells()
    {
        QFETCH(int, index);
        const TrickyCell &cell = kTrickyCells[index];
        const ferry::notebook::CellNames &names = m_names.at(index);
        if (QByteArray(cell.defines) == "!") {
            QVERIFY2(names.error.startsWith(u"SyntaxError"_s), qPrintable(names.error));
            QVERIFY(names.defines.isEmpty() && names.reads.isEmpty());
            return;
        }
        QVERIFY2(names.error.isEmpty(), qPrintable(names.error));
        QCOMPARE(sorted(names.defines), words(cell.defines));
        QCOMPARE(sorted(names.reads), words(cell.reads));
    }

    // IPython's syntax becomes what `ast` reads, line for line (a traceback's line numbers hold).
    void ipythonLinesStandIn()
    {
        using ferry::notebook::analyzableSource;
        QCOMPARE(analyzableSource(u"%matplotlib inline\nx = 1"_s), u"pass\nx = 1"_s);
        QCOMPARE(analyzableSource(u"out = !ls -l \\\n  /tmp\nprint(out)"_s), u"out = None\n\nprint(out)"_s);
        QCOMPARE(analyzableSource(u"if a:\n    %time b = a\n    obj?"_s), u"if a:\n    b = a\n    pass"_s);
        QCOMPARE(analyzableSource(u"%%capture --no-stderr cap\nz = 1"_s), u"cap = None\nz = 1"_s);
        QCOMPARE(analyzableSource(u"%%html\n<b>{x}</b>"_s), QString());
        QCOMPARE(analyzableSource(u"s = '%notmagic'"_s), u"s = '%notmagic'"_s);
    }

    // A namespace of a thousand: described in well under a second, the rules of the pane (no
    // modules, functions, classes, `_` names), the first `most` of them listed, all counted;
    // nothing bound, nothing imported.
    void variablesOfANamespace()
    {
        KernelQuery query;
        query.variables = true;
        QString error;
        const QJsonObject ran = evaluate(query, QString::fromUtf8(kNamespace), &error);
        QVERIFY2(!ran.isEmpty(), qPrintable(error));
        QCOMPARE(ran.value(u"namespace_changed"_s).toArray(), QJsonArray());
        QVERIFY2(ran.value(u"seconds"_s).toDouble() < 0.5,
                 qPrintable(QString::number(ran.value(u"seconds"_s).toDouble())));
        const auto answer = ferry::notebook::readKernelQueryReply(ran.value(u"reply"_s).toObject());
        QVERIFY2(answer, qPrintable(answer ? QString() : answer.error().message));
        QVERIFY(answer->hasVariables);
        QCOMPARE(answer->variableCount, qint64(1005)); // x, items, name, big, i and v0..v999
        QCOMPARE(answer->variables.size(), qsizetype(1005));
        QHash<QString, ferry::notebook::KernelVariable> byName;
        for (const auto &v : answer->variables)
            byName.insert(v.name, v);
        for (const QString &absent : {u"helper"_s, u"Thing"_s, u"os"_s, u"_hidden"_s, u"__name__"_s})
            QVERIFY2(!byName.contains(absent), qPrintable(absent));
        QCOMPARE(byName[u"x"_s].type, u"int"_s);
        QCOMPARE(byName[u"x"_s].value, u"42"_s);
        QCOMPARE(byName[u"items"_s].type, u"list"_s);
        QCOMPARE(byName[u"items"_s].length, qint64(3));
        QVERIFY(byName[u"items"_s].bytes > 0);
        QCOMPARE(byName[u"name"_s].value, u"'ferry'"_s);
        QCOMPARE(byName[u"name"_s].length, qint64(5));
        QCOMPARE(byName[u"big"_s].value, QString()); // a 400-digit int is not written out
        QVERIFY(!byName[u"x"_s].hasShape);

        query.mostVariables = 10;
        const QJsonObject cut = evaluate(query, QString::fromUtf8(kNamespace), &error);
        const auto fewer = ferry::notebook::readKernelQueryReply(cut.value(u"reply"_s).toObject());
        QVERIFY(fewer);
        QCOMPARE(fewer->variables.size(), qsizetype(10));
        QCOMPARE(fewer->variableCount, qint64(1005));
    }

    // numpy's arrays by shape, dtype and bytes when the user imported it; never imported by the query.
    void numpyOnlyWhenLoaded()
    {
        KernelQuery query;
        query.variables = true;
        QString error;
        const QJsonObject without = evaluate(query, u"a = 1\nimport sys\nhad = 'numpy' in sys.modules"_s, &error);
        QVERIFY2(!without.isEmpty(), qPrintable(error));
        QVERIFY(!without.value(u"new_modules"_s).toArray().contains(u"numpy"_s));

        const QJsonObject with = evaluate(query, u"import numpy as np\narr = np.zeros((3, 4))"_s, &error);
        QVERIFY2(!with.isEmpty(), qPrintable(error));
        const auto answer = ferry::notebook::readKernelQueryReply(with.value(u"reply"_s).toObject());
        QVERIFY(answer);
        QCOMPARE(answer->variables.size(), qsizetype(1));
        const auto &arr = answer->variables.first();
        QCOMPARE(arr.type, u"numpy.ndarray"_s);
        QVERIFY(arr.hasShape);
        QCOMPARE(arr.shape, (QList<qint64>{3, 4}));
        QCOMPARE(arr.dtype, u"float64"_s);
        QCOMPARE(arr.bytes, qint64(96));
    }

    // What the kernel says when it cannot answer: an abort (a cell raised before the query) is
    // told apart, the query may go again; an error names the exception.
    void repliesWithoutAnAnswer()
    {
        bool aborted = false;
        QVERIFY(!ferry::notebook::readKernelQueryReply({{u"status"_s, u"aborted"_s}}, &aborted));
        QVERIFY(aborted);
        const QJsonObject failed{
            {u"status"_s, u"ok"_s},
            {u"user_expressions"_s,
             QJsonObject{{u"ferry"_s, QJsonObject{{u"status"_s, u"error"_s},
                                                  {u"ename"_s, u"NameError"_s},
                                                  {u"evalue"_s, u"name '__import__' is not defined"_s}}}}}};
        const auto error = ferry::notebook::readKernelQueryReply(failed, &aborted);
        QVERIFY(!error);
        QVERIFY(!aborted);
        QVERIFY2(error.error().message.contains(u"NameError"_s), qPrintable(error.error().message));
    }
};

FERRY_TEST_APPLESS_MAIN(TestKernelQuery)
#include "tst_kernelquery.moc"
