// CSV/TSV tables (core/data/csvreader.cpp): dialect sniffing, quoting, missing values,
// targets and tasks, every error with its file, line and column, and the threaded parse.
#include "data/csvreader.h"
#include "data/csvsyntax.h"
#include "data/dataset.h"
#include "support/testmain.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>

#include <unistd.h>

using namespace Qt::StringLiterals;
using namespace ferry::data;

namespace {

LoadOptions withTable(const TableOptions &table)
{
    LoadOptions options;
    options.table = table;
    return options;
}

} // namespace

class TestCsvReader : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;

    QString write(const QString &name, const QByteArray &content)
    {
        const QString path = m_dir.filePath(name);
        QFile file(path);
        if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) || file.write(content) != content.size())
            qFatal("cannot write a test file");
        return path;
    }

    ferry::Expected<Dataset> load(const QString &name, const QByteArray &content, const TableOptions &table = {})
    {
        return loadDataset(write(name, content), withTable(table));
    }

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void delimiters_data()
    {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("name");
        QTest::newRow("comma") << QByteArray("a,b,label\n1,2,0\n3,4,1\n") << u"t.csv"_s;
        QTest::newRow("tab") << QByteArray("a\tb\tlabel\n1\t2\t0\n3\t4\t1\n") << u"t.tsv"_s;
        QTest::newRow("tab in .csv") << QByteArray("a\tb\tlabel\n1\t2\t0\n3\t4\t1\n") << u"t.csv"_s;
        QTest::newRow("semicolon") << QByteArray("a;b;label\n1;2;0\n3;4;1\n") << u"t.csv"_s;
        QTest::newRow("pipe") << QByteArray("a|b|label\n1|2|0\n3|4|1\n") << u"t.txt"_s;
        // Commas inside quoted text do not outvote the real delimiter.
        QTest::newRow("semicolon, commas in quotes")
            << QByteArray("a;b;label\n1;2;\"x, y, z\"\n3;4;\"u, v\"\n") << u"t.csv"_s;
    }
    void delimiters()
    {
        QFETCH(QByteArray, content);
        QFETCH(QString, name);
        const auto data = load(name, content);
        QVERIFY2(data, qPrintable(data ? QString() : data.error().toString()));
        QCOMPARE(data->featureNames, QStringList({u"a"_s, u"b"_s}));
        QCOMPARE(data->targetName, u"label"_s);
        QCOMPARE(data->count, 2);
        QCOMPARE(data->shape, QList<int>({2}));
        QCOMPARE(data->x, std::vector<float>({1, 2, 3, 4}));
    }

    void explicitDelimiter()
    {
        // Both ',' and ';' split every line in two; sniffing takes the comma, the option wins.
        const QByteArray content = "a,b;c\n1,2;3\n4,5;6\n";
        const auto sniffed = load(u"explicit.csv"_s, content);
        QVERIFY(sniffed);
        QCOMPARE(sniffed->featureNames, QStringList({u"a"_s}));
        QCOMPARE(sniffed->classNames, QStringList({u"2;3"_s, u"5;6"_s}));
        TableOptions table;
        table.delimiter = ';';
        const auto data = load(u"explicit.csv"_s, content, table);
        QVERIFY(!data);
        QCOMPARE(data.error().message, u"value '1,2' in feature column 'a,b' is not a number"_s);
        QCOMPARE(data.error().line, 2);
        QCOMPARE(data.error().column, 1);
    }

    void header()
    {
        const auto with = load(u"header.csv"_s, "x,y,t\n1,2,3.5\n4,5,6.5\n"_ba);
        QVERIFY(with);
        QCOMPARE(with->count, 2);
        QCOMPARE(with->featureNames, QStringList({u"x"_s, u"y"_s}));

        const auto without = load(u"noheader.csv"_s, "1,2,3.5\n4,5,6.5\n"_ba);
        QVERIFY(without);
        QCOMPARE(without->count, 2);
        QCOMPARE(without->featureNames, QStringList({u"column1"_s, u"column2"_s}));
        QCOMPARE(without->targetName, u"column3"_s);
        QCOMPARE(without->x, std::vector<float>({1, 2, 4, 5}));

        // A text target in every row does not make the first row a header.
        const auto textTarget = load(u"noheader_text.csv"_s, "5.1,3.5,setosa\n4.9,3.0,setosa\n6.3,3.3,virginica\n"_ba);
        QVERIFY(textTarget);
        QCOMPARE(textTarget->count, 3);
        QCOMPARE(textTarget->classNames, QStringList({u"setosa"_s, u"virginica"_s}));

        TableOptions forced;
        forced.header = true;
        const auto numeric = load(u"forced.csv"_s, "1,2,3\n4,5,6\n7,8,9\n"_ba, forced);
        QVERIFY(numeric);
        QCOMPARE(numeric->count, 2);
        QCOMPARE(numeric->featureNames, QStringList({u"1"_s, u"2"_s}));
    }

    void quotedFields()
    {
        // A header name with the delimiter, a quoted number, a target with a line break and
        // doubled quotes: the bad value four lines down is still reported on its own line.
        const QByteArray content = "\"width, cm\",\"height\",\"label\"\n"
                                   "\"1.5\",2,\"plain\"\n"
                                   "3,4,\"two\nlines\"\n"
                                   "5,6,\"say \"\"hi\"\"\"\n"
                                   "7,8,plain\n";
        const auto data = load(u"quoted.csv"_s, content);
        QVERIFY2(data, qPrintable(data ? QString() : data.error().toString()));
        QCOMPARE(data->featureNames, QStringList({u"width, cm"_s, u"height"_s}));
        QCOMPARE(data->count, 4);
        QCOMPARE(data->x, std::vector<float>({1.5f, 2, 3, 4, 5, 6, 7, 8}));
        QCOMPARE(data->classNames, QStringList({u"plain"_s, u"say \"hi\""_s, u"two\nlines"_s}));
        QCOMPARE(data->classes, std::vector<std::int64_t>({0, 2, 1, 0}));

        const auto bad = load(u"quoted_bad.csv"_s, content + "9,oops,plain\n");
        QVERIFY(!bad);
        QCOMPARE(bad.error().line, 7);
        QCOMPARE(bad.error().column, 2);
        QCOMPARE(bad.error().message, u"value 'oops' in feature column 'height' is not a number"_s);
    }

    void unclosedQuote()
    {
        const auto data = load(u"unclosed.csv"_s, "a,b,c\n1,2,3\n4,\"5,6\n7,8,9\n"_ba);
        QVERIFY(!data);
        QCOMPARE(data.error().line, 3);
        QVERIFY(data.error().message.contains(u"never closed"_s));
    }

    void crlfAndBom()
    {
        const auto data = load(u"windows.csv"_s, "\xEF\xBB\xBFx,y,label\r\n1,2,a\r\n3,4,b\r\n\r\n"_ba);
        QVERIFY2(data, qPrintable(data ? QString() : data.error().toString()));
        QCOMPARE(data->featureNames.first(), u"x"_s); // no byte-order mark in the name
        QCOMPARE(data->count, 2);
        QCOMPARE(data->x, std::vector<float>({1, 2, 3, 4}));
        QCOMPARE(data->classNames, QStringList({u"a"_s, u"b"_s})); // no '\r' in the class names

        const auto bad = load(u"windows_bad.csv"_s, "\xEF\xBB\xBFx,y,label\r\n1,2,a\r\n3,x4,b\r\n"_ba);
        QVERIFY(!bad);
        QCOMPARE(bad.error().line, 3);
        QCOMPARE(bad.error().column, 2);
    }

    void numberForms()
    {
        const auto data = load(u"numbers.csv"_s, "a,b,c,d,t\n+1.5, 2 ,\"3\",1e-50,0\n-0.25,.5,1E3,\" +7 \",1\n"_ba);
        QVERIFY2(data, qPrintable(data ? QString() : data.error().toString()));
        QCOMPARE(data->x, std::vector<float>({1.5f, 2, 3, 0, -0.25f, 0.5f, 1000, 7}));
    }

    // Every number reads as std::from_chars reads it: the same correctly rounded float.
    void numbersMatchFromChars()
    {
        std::mt19937_64 random(11);
        QList<QByteArray> texts;
        const char *const fixed[] = {"0",
                                     "-0",
                                     "0.0",
                                     "16777216",
                                     "16777217",
                                     "16777219",
                                     "1e10",
                                     "1e11",
                                     "1.5e-10",
                                     "1e-11",
                                     "123456789012345678",
                                     "3.4e38",
                                     "1.17549435e-38",
                                     "1e-45",
                                     "0.1",
                                     "-0.30000001192092896",
                                     "5.",
                                     ".5",
                                     "7e+2",
                                     "7E-2",
                                     "0.000001",
                                     "9999999",
                                     "99999999",
                                     "1234567.891",
                                     "00012.5"};
        for (const char *text : fixed)
            texts.append(text);
        for (int i = 0; i < 20000; ++i) {
            const double v = std::ldexp(double(random() % 1000000007) / 1000000007.0, int(random() % 40) - 20) *
                             (random() % 2 ? 1 : -1);
            switch (i % 4) {
            case 0:
                texts.append(QByteArray::number(v, 'f', int(random() % 9)));
                break;
            case 1:
                texts.append(QByteArray::number(v, 'e', int(random() % 12)));
                break;
            case 2:
                texts.append(QByteArray::number(v, 'g', int(random() % 17) + 1));
                break;
            default:
                texts.append(QByteArray::number(qint64(random() % 100000000) - 50000000));
            }
        }
        QByteArray content = "value,label\n";
        for (const QByteArray &text : texts)
            content += text + ",0.5\n";
        const auto data = load(u"from_chars.csv"_s, content);
        QVERIFY2(data, qPrintable(data ? QString() : data.error().toString()));
        QCOMPARE(data->count, texts.size());
        for (qsizetype i = 0; i < texts.size(); ++i) {
            float expected = 0;
            const auto result = std::from_chars(texts[i].constData(), texts[i].constData() + texts[i].size(), expected);
            if (result.ec == std::errc::result_out_of_range)
                expected = float(std::strtod(texts[i].constData(), nullptr));
            QVERIFY2(std::memcmp(&data->x[size_t(i)], &expected, sizeof(float)) == 0,
                     qPrintable(u"%1: %2, not %3"_s.arg(QString::fromLatin1(texts[i]))
                                    .arg(double(data->x[size_t(i)]), 0, 'g', 12)
                                    .arg(double(expected), 0, 'g', 12)));
        }
    }

    void missingDropRow()
    {
        const QByteArray content =
            "a,b,label\n1,2,x\n,3,y\n4,NA,x\n5,n/a,y\n6,NaN,x\n7,null,y\n8,?,x\n9,10,y\n11,12,\n";
        const auto data = load(u"missing.csv"_s, content);
        QVERIFY2(data, qPrintable(data ? QString() : data.error().toString()));
        QCOMPARE(data->count, 2);
        QCOMPARE(data->x, std::vector<float>({1, 2, 9, 10}));
        QVERIFY2(data->notes.contains(u"dropped 6 rows with missing values"_s), qPrintable(data->notes.join(u'\n')));
        QVERIFY2(data->notes.contains(u"dropped 1 rows without a target value"_s), qPrintable(data->notes.join(u'\n')));
    }

    // Data to predict on: every column is a feature, a text value is still an error.
    void featuresOnly()
    {
        TableOptions table;
        table.featuresOnly = true;
        table.missing = ferry::data::MissingPolicy::ImputeMean;
        const auto data = load(u"features.csv"_s, "a,b,c\n1,2,3\n4,,6\n", table);
        QVERIFY2(data, qPrintable(data ? QString() : data.error().toString()));
        QCOMPARE(data->count, 2);
        QCOMPARE(data->featureNames, (QStringList{u"a"_s, u"b"_s, u"c"_s}));
        QCOMPARE(data->shape, QList<int>{3});
        QCOMPARE(data->x[0], 1.0f);
        QVERIFY(std::isnan(data->x[4]));
        QCOMPARE(data->x[5], 6.0f);
        QVERIFY(data->targetName.isEmpty() && data->classes.empty() && data->targets.empty());
        const auto single = load(u"single.csv"_s, "only\n1\n2\n", table);
        QVERIFY2(single && single->count == 2, qPrintable(single ? QString() : single.error().toString()));
        const auto text = load(u"text.csv"_s, "a,b\n1,x\n", table);
        QVERIFY(!text);
        QCOMPARE(text.error().line, 2);
        QCOMPARE(text.error().column, 2);
    }

    void missingImputeMean()
    {
        TableOptions table;
        table.missing = MissingPolicy::ImputeMean;
        const auto loaded = load(u"impute.csv"_s, "a,b,t\n1,10,0.5\nNA,20,1.5\n3,,2.5\n100,100,3.5\n"_ba, table);
        QVERIFY2(loaded, qPrintable(loaded ? QString() : loaded.error().toString()));
        Dataset data = *loaded;
        QCOMPARE(data.count, 4);
        QVERIFY(std::isnan(data.x[2]));
        QVERIFY(std::isnan(data.x[5]));
        QVERIFY2(data.notes.contains(u"2 rows have missing values; they are filled with the training mean"_s),
                 qPrintable(data.notes.join(u'\n')));
        // Training rows 0..2: the mean of a leaves out the NaN (and row 3, which validates).
        const Normalization n = computeNormalization(data, {0, 1, 2});
        QCOMPARE(n.mean, std::vector<float>({2.0f, 15.0f}));
        applyNormalization(data, n);
        QCOMPARE(data.x[2], 0.0f); // the missing a is the training mean, standardised
        QCOMPARE(data.x[5], 0.0f);
        QCOMPARE(data.x[0], -1.0f); // (1 - 2) / 1
    }

    void target()
    {
        const QByteArray content = "id,score,Kind\n1,0.5,a\n2,1.5,b\n3,2.5,a\n";
        const auto byDefault = load(u"target.csv"_s, content);
        QVERIFY(byDefault);
        QCOMPARE(byDefault->targetName, u"Kind"_s);
        QCOMPARE(byDefault->featureNames, QStringList({u"id"_s, u"score"_s}));

        TableOptions byName;
        byName.targetColumn = u"score"_s;
        const auto named = load(u"target.csv"_s, content, byName);
        QVERIFY(!named); // 'Kind' becomes a feature, and holds text
        QCOMPARE(named.error().message, u"value 'a' in feature column 'Kind' is not a number"_s);
        QCOMPARE(named.error().line, 2);
        QCOMPARE(named.error().column, 3);
        QVERIFY(named.error().hint.contains(u"target"_s));

        TableOptions byNumber;
        byNumber.targetColumn = u"1"_s;
        const QByteArray numeric = "id,score,kind\n1,0.5,7\n2,1.5,8\n3,2.5,9\n";
        const auto first = load(u"numeric.csv"_s, numeric, byNumber);
        QVERIFY(first);
        QCOMPARE(first->targetName, u"id"_s);
        QCOMPARE(first->featureNames, QStringList({u"score"_s, u"kind"_s}));
        QCOMPARE(first->x, std::vector<float>({0.5f, 7, 1.5f, 8, 2.5f, 9}));
        QCOMPARE(first->classNames, QStringList({u"1"_s, u"2"_s, u"3"_s}));

        TableOptions caseless;
        caseless.targetColumn = u"SCORE"_s;
        const auto score = load(u"numeric.csv"_s, numeric, caseless);
        QVERIFY(score);
        QCOMPARE(score->targetName, u"score"_s);
        QCOMPARE(score->task, Task::Regression);
        QCOMPARE(score->targets, std::vector<float>({0.5f, 1.5f, 2.5f}));

        TableOptions unknown;
        unknown.targetColumn = u"species"_s;
        const auto missing = load(u"numeric.csv"_s, numeric, unknown);
        QVERIFY(!missing);
        QCOMPARE(missing.error().message, u"there is no column 'species'; the columns are: id, score, kind"_s);
        unknown.targetColumn = u"4"_s;
        const auto outOfRange = load(u"numeric.csv"_s, numeric, unknown);
        QVERIFY(!outOfRange);
        QCOMPARE(outOfRange.error().message, u"there is no column 4: the table has 3 columns"_s);
    }

    void categoricalTarget()
    {
        const auto data = load(u"iris.csv"_s, "sl,sw,species\n5.1,3.5,setosa\n7.0,3.2,versicolor\n6.3,3.3,virginica\n"
                                              "4.9,3.0,setosa\n6.4,3.2,versicolor\n"_ba);
        QVERIFY(data);
        QCOMPARE(data->task, Task::Classification);
        QCOMPARE(data->classNames, QStringList({u"setosa"_s, u"versicolor"_s, u"virginica"_s}));
        QCOMPARE(data->classes, std::vector<std::int64_t>({0, 1, 2, 0, 1}));
        QVERIFY(data->targets.empty());

        TableOptions regression;
        regression.task = Task::Regression;
        const auto refused = load(u"iris.csv"_s, "sl,species\n5.1,setosa\n", regression);
        QVERIFY(!refused);
        QCOMPARE(refused.error().message, u"value 'setosa' in target column 'species' is not a number"_s);
        QCOMPARE(refused.error().line, 2);
        QCOMPARE(refused.error().column, 2);
    }

    void taskDetection()
    {
        // Integers with at most 20 distinct values: classes, in numeric order.
        const auto digits = load(u"digits.csv"_s, "a,y\n1,10\n2,9\n3,10\n4,-1\n"_ba);
        QVERIFY(digits);
        QCOMPARE(digits->task, Task::Classification);
        QCOMPARE(digits->classNames, QStringList({u"-1"_s, u"9"_s, u"10"_s}));
        QCOMPARE(digits->classes, std::vector<std::int64_t>({2, 1, 2, 0}));

        const auto real = load(u"real.csv"_s, "a,y\n1,0.5\n2,1\n3,2\n"_ba);
        QVERIFY(real);
        QCOMPARE(real->task, Task::Regression);
        QCOMPARE(real->targets, std::vector<float>({0.5f, 1, 2}));
        QVERIFY(real->classNames.isEmpty());

        QByteArray many = "a,y\n";
        for (int i = 0; i < 21; ++i)
            many += QByteArray::number(i) + ',' + QByteArray::number(i * 3) + '\n';
        const auto manyIntegers = load(u"many.csv"_s, many);
        QVERIFY(manyIntegers);
        QCOMPARE(manyIntegers->task, Task::Regression);

        TableOptions classify;
        classify.task = Task::Classification;
        const auto forced = load(u"many.csv"_s, many, classify);
        QVERIFY(forced);
        QCOMPARE(forced->task, Task::Classification);
        QCOMPARE(forced->classNames.size(), 21);
    }

    void errors_data()
    {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("message");
        QTest::addColumn<int>("line");
        QTest::addColumn<int>("column");
        QTest::newRow("too few columns") << "a,b,c\n1,2,3\n4,5\n6,7,8\n"_ba
                                         << u"this row has 2 columns, the header has 3"_s << 3 << 0;
        QTest::newRow("too many columns")
            << "a,b,c\n1,2,3\n4,5,6\n\n7,8,9,10,11\n"_ba << u"this row has 5 columns, the header has 3"_s << 5 << 0;
        QTest::newRow("ragged, no header")
            << "1,2,3\n4,5\n"_ba << u"this row has 2 columns, the first row has 3"_s << 2 << 0;
        QTest::newRow("text feature") << "a,b,c\n1,2,3\n4,abc,6\n"_ba
                                      << u"value 'abc' in feature column 'b' is not a number"_s << 3 << 2;
        QTest::newRow("infinite feature")
            << "a,b,c\n1,2,3\ninf,5,6\n"_ba << u"value 'inf' in feature column 'a' is not a number"_s << 3 << 1;
        QTest::newRow("empty file") << QByteArray() << u"the file is empty"_s << 0 << 0;
        QTest::newRow("blank lines only") << "\n\r\n\n"_ba << u"the file is empty"_s << 0 << 0;
        QTest::newRow("header only") << "a,b,c\n"_ba << u"the file has a header row but no data rows"_s << 1 << 0;
        QTest::newRow("one column") << "a\n1\n2\n"_ba
                                    << u"the table has only one column ('a'); it needs feature columns and a target "
                                       "column"_s
                                    << 1 << 0;
        QTest::newRow("every row missing")
            << "a,b,c\n1,,3\n,5,6\n"_ba << u"every row has a missing value (2 rows); nothing is left to train on"_s << 0
            << 0;
    }
    void errors()
    {
        QFETCH(QByteArray, content);
        QFETCH(QString, message);
        QFETCH(int, line);
        QFETCH(int, column);
        const QString path = write(u"error.csv"_s, content);
        const auto data = loadDataset(path);
        QVERIFY(!data);
        QCOMPARE(data.error().message, message);
        QCOMPARE(data.error().path, path);
        QCOMPARE(data.error().line, line);
        QCOMPARE(data.error().column, column);
        QVERIFY(!data.error().hint.isEmpty());
    }

    void fileErrors()
    {
        const auto missing = loadDataset(m_dir.filePath(u"nothing-here.csv"_s));
        QVERIFY(!missing);
        QCOMPARE(missing.error().message, u"no such file or folder"_s);

        QVERIFY(QDir(m_dir.path()).mkpath(u"folder.csv"_s));
        const auto folder = loadTable(m_dir.filePath(u"folder.csv"_s), {});
        QVERIFY(!folder);
        QCOMPARE(folder.error().message, u"is a folder, not a file"_s);

        const auto device = loadTable(u"/dev/null"_s, {});
        QVERIFY(!device);
        QCOMPARE(device.error().message, u"not a regular file (a device, pipe or socket)"_s);

        if (::geteuid() == 0)
            QSKIP("root reads any file: the unreadable case needs another user");
        const QString locked = write(u"locked.csv"_s, "a,b\n1,2\n");
        QVERIFY(QFile::setPermissions(locked, {}));
        const auto unreadable = loadDataset(locked);
        QVERIFY(!unreadable);
        QVERIFY(unreadable.error().message.startsWith(u"cannot read"_s));
        QCOMPARE(unreadable.error().path, locked);
    }

    // A file of several MB without quotes is parsed in chunks; the result is the same.
    void threadsGiveTheSameResult()
    {
        std::mt19937_64 random(7);
        QByteArray content = "f1,f2,f3,f4,f5,label\n";
        int lines = 0;
        while (content.size() < 6 * 1024 * 1024) {
            ++lines;
            for (int c = 0; c < 5; ++c) {
                const double v = double(random() % 2000001) / 1000.0 - 1000.0;
                switch (random() % 7) {
                case 0:
                    content += "+" + QByteArray::number(std::fabs(v), 'f', 3);
                    break;
                case 1:
                    content += " " + QByteArray::number(v, 'e', 6) + " ";
                    break;
                case 2:
                    content += random() % 50 == 0 ? QByteArray("NA") : QByteArray::number(v, 'g', 9);
                    break;
                default:
                    content += QByteArray::number(v, 'f', int(random() % 6));
                }
                content += ',';
            }
            content += QByteArray::number(quint64(random() % 10)) + (random() % 3 == 0 ? "\r\n" : "\n");
            if (random() % 100 == 0)
                content += "\n";
        }
        const QString path = write(u"big.csv"_s, content);
        const auto one = loadTable(path, {}, 1);
        QVERIFY2(one, qPrintable(one ? QString() : one.error().toString()));
        QVERIFY(one->count > 50000);
        QVERIFY(one->count < lines); // some rows had missing values
        for (int threads : {2, 3}) {
            const auto many = loadTable(path, {}, threads);
            QVERIFY(many);
            QCOMPARE(many->count, one->count);
            QCOMPARE(many->classNames, one->classNames);
            QVERIFY(many->classes == one->classes);
            QCOMPARE(many->x.size(), one->x.size());
            QVERIFY(std::memcmp(many->x.data(), one->x.data(), one->x.size() * sizeof(float)) == 0);
            QCOMPARE(many->notes, one->notes);
        }

        // The first error of the file, with its line, whichever chunk finds it.
        QByteArray broken = content;
        const qsizetype late = broken.indexOf('\n', broken.size() * 3 / 4) + 1;
        const qsizetype later = broken.indexOf('\n', broken.size() * 7 / 8) + 1;
        broken.insert(later, "1,2,3,4,5,6,7\n");
        broken.insert(late, "1,2,x,4,5,6\n");
        const int line = int(QByteArrayView(broken).first(late).count('\n')) + 1;
        const QString brokenPath = write(u"broken.csv"_s, broken);
        for (int threads : {1, 2, 4}) {
            const auto error = loadTable(brokenPath, {}, threads);
            QVERIFY(!error);
            QCOMPARE(error.error().line, line);
            QCOMPARE(error.error().column, 3);
        }
    }

    void progressAndCancel()
    {
        QByteArray content = "a,b\n";
        for (int i = 0; i < 100000; ++i)
            content += QByteArray::number(i) + ",1\n";
        const QString path = write(u"progress.csv"_s, content);
        LoadOptions options;
        qint64 last = -1;
        bool monotonic = true;
        options.progress = [&](qsizetype done, qsizetype total) {
            monotonic = monotonic && done >= last && total == content.size();
            last = done;
        };
        const auto data = loadTable(path, options, 2);
        QVERIFY(data);
        QVERIFY(monotonic);
        QCOMPARE(last, content.size());

        int asked = 0;
        options.cancelled = [&] { return ++asked > 3; };
        const auto cancelled = loadTable(path, options, 1);
        QVERIFY(!cancelled);
        QCOMPARE(cancelled.error().message, u"loading was cancelled"_s);
    }

    void missingWords()
    {
        for (const char *word : {"", " ", "NA", "na", "N/A", "n/a", "NaN", "nan", "NULL", "null", "?", " ? "})
            QVERIFY2(csv::isMissingValue(QByteArrayView(word)), word);
        for (const char *word : {"0", "nana", "none", "-", "n"})
            QVERIFY2(!csv::isMissingValue(QByteArrayView(word)), word);
    }

    void fixture()
    {
        const auto data = loadDataset(QStringLiteral(FERRY_TEST_DATA "/datasets/iris_sample.csv"));
        QVERIFY2(data, qPrintable(data ? QString() : data.error().toString()));
        QCOMPARE(data->count, 9);
        QCOMPARE(data->shape, QList<int>({4}));
        QCOMPARE(data->classNames, QStringList({u"setosa"_s, u"versicolor"_s, u"virginica"_s}));
    }
};

FERRY_TEST_APPLESS_MAIN(TestCsvReader)
#include "tst_csvreader.moc"
