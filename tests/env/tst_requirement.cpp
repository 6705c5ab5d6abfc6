#include "env/pip/requirement.h"
#include "support/testmain.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTest>

using namespace Qt::StringLiterals;
using ferry::env::normalizePackageName;
using ferry::env::parseRequirement;
using ferry::env::Requirement;

namespace {

// FERRY_PEP508_CORPUS names another corpus (e.g. a generated one) to compare instead.
QString corpusPath()
{
    const QString other = qEnvironmentVariable("FERRY_PEP508_CORPUS");
    return other.isEmpty() ? QStringLiteral(FERRY_TEST_DATA "/env/pep508/corpus.txt") : other;
}
const QString referenceScript = QStringLiteral(FERRY_SOURCE_DIR "/tests/env/pep508_reference.py");

QString show(const QString &text)
{
    return QString::fromLatin1(QJsonDocument(QJsonArray{text}).toJson(QJsonDocument::Compact)).mid(1).chopped(1);
}

Requirement parsed(const QString &text)
{
    const auto requirement = parseRequirement(text);
    if (!requirement)
        qFatal("%s does not parse: %s", qPrintable(text), qPrintable(requirement.error().toString()));
    return *requirement;
}

} // namespace

class TestRequirement : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // The corpus, entry by entry, against packaging 23.0 (python3-packaging): the same
    // verdict, the same fields, and for syntax errors the same message at the same column.
    void agreesWithPackaging()
    {
        QProcess python;
        python.start(QStringLiteral(FERRY_PYTHON3), {referenceScript, corpusPath()});
        QVERIFY2(python.waitForFinished(600000), "the reference script did not finish");
        QVERIFY2(python.exitStatus() == QProcess::NormalExit && python.exitCode() == 0,
                 python.readAllStandardError().constData());

        const QList<QByteArray> lines = python.readAllStandardOutput().split('\n');
        const QString corpusName = corpusPath().section(u'/', -1);
        QStringList disagreements;
        int total = 0;
        int accepted = 0;
        for (const QByteArray &line : lines) {
            if (line.isEmpty())
                continue;
            const QJsonObject expected = QJsonDocument::fromJson(line).object();
            if (!expected.contains(u"line"_s))
                continue; // the header naming packaging's version
            ++total;
            const QString text = expected.value(u"text"_s).toString();
            const QString where =
                u"%1:%2: %3: "_s.arg(corpusName).arg(expected.value(u"line"_s).toInt()).arg(show(text));
            const auto actual = parseRequirement(text);
            if (expected.value(u"ok"_s).toBool() != actual.hasValue()) {
                disagreements << where + (actual
                                              ? u"packaging rejects it (%1), Ferry accepts it"_s.arg(
                                                    expected.value(u"error"_s).toString())
                                              : u"packaging accepts it, Ferry rejects it: "_s + actual.error().message);
                continue;
            }
            if (!actual) {
                // Messages and columns of syntax errors are packaging's own.
                const QJsonValue column = expected.value(u"column"_s);
                if (!column.isNull() && (column.toInt() != actual.error().column ||
                                         expected.value(u"error"_s).toString() != actual.error().message)) {
                    disagreements << where + u"packaging says \"%1\" at column %2, Ferry \"%3\" at column %4"_s
                                                 .arg(expected.value(u"error"_s).toString())
                                                 .arg(column.toInt())
                                                 .arg(actual.error().message)
                                                 .arg(actual.error().column);
                }
                continue;
            }
            ++accepted;
            QStringList extras;
            for (const QJsonValue &extra : expected.value(u"extras"_s).toArray())
                extras << extra.toString();
            QStringList actualExtras = actual->extras;
            actualExtras.sort();
            const auto compare = [&](const QString &field, const QString &want, const QString &got) {
                if (want != got)
                    disagreements << where + u"%1: packaging %2, Ferry %3"_s.arg(field, show(want), show(got));
            };
            compare(u"name"_s, expected.value(u"name"_s).toString(), actual->name);
            compare(u"extras"_s, extras.join(u','), actualExtras.join(u','));
            compare(u"specifier"_s, expected.value(u"specifier"_s).toString(), actual->specifier);
            compare(u"marker"_s, expected.value(u"marker"_s).toString(), actual->marker);
            compare(u"url"_s, expected.value(u"url"_s).toString(), actual->url);
        }
        qInfo().noquote() << u"pep508 agreement: %1/%2 (%3 accepted, %4 rejected)"_s.arg(total - disagreements.size())
                                 .arg(total)
                                 .arg(accepted)
                                 .arg(total - accepted);
        for (const QString &disagreement : std::as_const(disagreements))
            qWarning().noquote() << disagreement;
        QVERIFY2(total >= 220, "the corpus is smaller than it should be");
        QVERIFY2(disagreements.isEmpty(), qPrintable(u"%1 disagreements"_s.arg(disagreements.size())));
    }

    void fields_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("name");
        QTest::addColumn<QStringList>("extras");
        QTest::addColumn<QString>("specifier");
        QTest::addColumn<QString>("url");
        QTest::addColumn<QString>("marker");
        QTest::newRow("plain") << u"requests"_s << u"requests"_s << QStringList() << QString() << QString()
                               << QString();
        QTest::newRow("extras keep order, lose duplicates")
            << u"  pkg[b, a,b]  "_s << u"pkg"_s << QStringList{u"b"_s, u"a"_s} << QString() << QString() << QString();
        QTest::newRow("specifiers sorted")
            << u"pkg (<2, >=1.0)"_s << u"pkg"_s << QStringList() << u"<2,>=1.0"_s << QString() << QString();
        QTest::newRow("url and marker") << u"pkg@https://h/p.whl ; os_name=='nt'"_s << u"pkg"_s << QStringList()
                                        << QString() << u"https://h/p.whl"_s << u"os_name == \"nt\""_s;
        QTest::newRow("marker spelling") << u"pkg;(os.name=='nt' or sys.platform=='x')and extra=='A_b'"_s << u"pkg"_s
                                         << QStringList() << QString() << QString()
                                         << u"(os_name == \"nt\" or sys_platform == \"x\") and extra == \"A_b\""_s;
    }
    void fields()
    {
        QFETCH(QString, text);
        const Requirement requirement = parsed(text);
        QTEST(requirement.name, "name");
        QTEST(requirement.extras, "extras");
        QTEST(requirement.specifier, "specifier");
        QTEST(requirement.url, "url");
        QTEST(requirement.marker, "marker");
        QCOMPARE(requirement.text, text.trimmed());
    }

    void errors_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("column");
        QTest::addColumn<QString>("message");
        QTest::addColumn<QString>("hint");
        QTest::newRow("conda pin") << u"numpy=1.26"_s << 6
                                   << u"Expected end or semicolon (after name and no valid version specifier)"_s
                                   << u"'=='"_s;
        QTest::newRow("compatible needs two numbers")
            << u"numpy~=1"_s << 6 << u"Expected end or semicolon (after name and no valid version specifier)"_s
            << u"two release numbers"_s;
        QTest::newRow("bad version") << u"numpy==1.0foo"_s << 11
                                     << u"Expected end or semicolon (after version specifier)"_s << u"PEP 440"_s;
        QTest::newRow("unterminated extras") << u"pkg[a"_s << 6 << u"Expected closing RIGHT_BRACKET"_s << u"']'"_s;
        QTest::newRow("marker operator")
            << u"pkg; os_name = 'nt'"_s << 14
            << u"Expected marker operator, one of <=, <, !=, ==, >=, >, ~=, ===, in, not in"_s << u"not in"_s;
        QTest::newRow("bad url") << u"pkg @ ./local.whl"_s << 7 << u"Invalid URL: ./local.whl"_s << u"file:///"_s;
        QTest::newRow("arbitrary equality eats commas")
            << u"pkg===1.0,2"_s << 11 << u"Invalid specifier: '2'"_s << u"commas"_s;
        QTest::newRow("string escape")
            << u"pkg; os_name == '\\x4'"_s << 17
            << u"(unicode error) 'unicodeescape' codec can't decode bytes: truncated \\xXX escape"_s << u"escapes"_s;
        QTest::newRow("columns count code points") << u"pkg; os_name == '\U0001F600' or"_s << 23
                                                   << u"Expected a marker variable or quoted string"_s << u"quoted"_s;
    }
    void errors()
    {
        QFETCH(QString, text);
        const auto requirement = parseRequirement(text);
        QVERIFY(!requirement);
        QTEST(requirement.error().column, "column");
        QTEST(requirement.error().message, "message");
        QFETCH(QString, hint);
        QVERIFY2(requirement.error().hint.contains(hint), qPrintable(requirement.error().hint));
        QVERIFY(requirement.error().path.isEmpty());
        QCOMPARE(requirement.error().line, 0);
    }

    void normalizedNames_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("normalized");
        QTest::newRow("lower") << u"Django"_s << u"django"_s;
        QTest::newRow("runs") << u"Foo.-_Bar__baz"_s << u"foo-bar-baz"_s;
        QTest::newRow("dots") << u"zope.interface"_s << u"zope-interface"_s;
    }
    void normalizedNames()
    {
        QFETCH(QString, name);
        QTEST(normalizePackageName(name), "normalized");
    }

    // Spellings that packaging considers the same requirement share one canonical form.
    void canonicalSpellings_data()
    {
        QTest::addColumn<QString>("a");
        QTest::addColumn<QString>("b");
        QTest::newRow("name") << u"Foo_Bar"_s << u"foo.bar"_s;
        QTest::newRow("extras") << u"pkg[B_x,a]"_s << u"pkg[a, b-x, a]"_s;
        QTest::newRow("specifier order and spaces") << u"pkg>=1.0,<2"_s << u"pkg (< 2, >= 1.0)"_s;
        QTest::newRow("equal versions") << u"pkg>=1.0.0,==2.0RC1"_s << u"pkg>=v1,==2rc1"_s;
        QTest::newRow("duplicate specifier") << u"pkg>=1.0,>=1"_s << u"pkg>=1"_s;
        QTest::newRow("marker quoting") << u"pkg;os.name=='nt'"_s << u"pkg ; os_name == \"nt\""_s;
        QTest::newRow("url spacing") << u"pkg@https://h/p.whl"_s << u"pkg @ https://h/p.whl "_s;
    }
    void canonicalSpellings()
    {
        QFETCH(QString, a);
        QFETCH(QString, b);
        QCOMPARE(parsed(a).canonical(), parsed(b).canonical());
    }

    void canonicalDifferences_data()
    {
        QTest::addColumn<QString>("a");
        QTest::addColumn<QString>("b");
        QTest::newRow("version") << u"pkg==1.0"_s << u"pkg==1.1"_s;
        QTest::newRow("operator") << u"pkg>=1.0"_s << u"pkg>1.0"_s;
        QTest::newRow("wildcard") << u"pkg==1.0.*"_s << u"pkg==1.0.0.*"_s;
        QTest::newRow("compatible keeps zeros") << u"pkg~=1.0"_s << u"pkg~=1.0.0"_s;
        QTest::newRow("arbitrary equality is text") << u"pkg===1.0"_s << u"pkg===1.0.0"_s;
        QTest::newRow("local") << u"torch==2.1+cu121"_s << u"torch==2.1+cu118"_s;
        QTest::newRow("extra") << u"pkg[a]"_s << u"pkg[b]"_s;
        QTest::newRow("marker") << u"pkg;os_name=='nt'"_s << u"pkg;os_name=='posix'"_s;
        QTest::newRow("url") << u"pkg@https://h/a.whl"_s << u"pkg@https://h/b.whl"_s;
    }
    void canonicalDifferences()
    {
        QFETCH(QString, a);
        QFETCH(QString, b);
        QVERIFY(parsed(a).canonical() != parsed(b).canonical());
    }

    void canonicalForm()
    {
        QCOMPARE(parsed(u"Foo_Bar[Z, a] (>=1.0.0, <2) ; os.name == 'nt'"_s).canonical(),
                 u"foo-bar[a,z]<2,>=1 ; os_name == \"nt\""_s);
        QCOMPARE(parsed(u"Pkg [X] @ https://h/p.whl ; extra == 'y'"_s).canonical(),
                 u"pkg[x] @ https://h/p.whl ; extra == \"y\""_s);
    }

    // Long and pathological input gets its answer (a regex that backtracks would not finish within
    // the test's time-out; tests/bench/parsers.sh times it against ordinary input).
    void longInputIsAnswered()
    {
        const QString many = u"pkg"_s + QString(u">=1.0,"_s).repeated(20000) + u"<2"_s;
        QVERIFY(parseRequirement(many));
        QVERIFY(!parseRequirement(u"pkg==1"_s + QString(u".0"_s).repeated(50000) + u"x"_s));
        // Regression: PCRE's JIT stack ran out on versions of some 30000 parts, rejecting what pip takes.
        const auto longVersion = parseRequirement(u"pkg==1"_s + QString(u".0"_s).repeated(100000) + u"+a.b"_s);
        QVERIFY(longVersion);
        QCOMPARE(longVersion->specifier.size(), 100000 * 2 + 7);
        QVERIFY(!parseRequirement(u"pkg; "_s + QString(u"("_s).repeated(2000)));
        QVERIFY(!parseRequirement(QString(u"a"_s).repeated(100000) + u"!"_s));
        // A lone surrogate (no text file decodes to one) is refused, not handed to PCRE unchecked.
        QVERIFY(!parseRequirement(u"pkg==1."_s + QChar(0xD800) + u",>=1"_s));
        QVERIFY(!parseRequirement(u"pkg==="_s + QChar(0xDC00)));
    }
};

FERRY_TEST_APPLESS_MAIN(TestRequirement)
#include "tst_requirement.moc"
