// The one environment validator (issue 15, redesign item 2): each rule with its field, row,
// severity and message, and the file reader presenting the same finding at the line that holds
// the value. Conda names with capitals (hi-ml's `name: AzureML_SDK`) are valid names; the image
// tag takes their lower-case form.
#include "env/environmentfile.h"
#include "env/environmentvalidator.h"
#include "env/spechash.h"
#include "support/env.h"
#include "support/testmain.h"

#include <QSet>
#include <QTest>

#include <functional>

using namespace Qt::StringLiterals;
using namespace ferry::env;
using ferry::test::describe;

Q_DECLARE_METATYPE(ferry::env::Field)
Q_DECLARE_METATYPE(ferry::env::Diagnostic::Severity)
using Change = std::function<void(Environment &)>;
Q_DECLARE_METATYPE(Change)

namespace {

Environment valid()
{
    Environment env;
    env.name = u"vision"_s;
    env.version = u"2"_s;
    env.docker.baseImage = u"python:3.11-slim"_s;
    env.python.version = u"3.11"_s;
    return env;
}

QString describe(const Findings &findings)
{
    QStringList lines;
    for (const Finding &f : findings)
        lines << u"%1 row %2: %3"_s.arg(fieldName(f.field)).arg(f.row).arg(f.text());
    return lines.join(u'\n');
}

} // namespace

class TestEnvironmentValidator : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void aValidEnvironmentHasNoFindings()
    {
        QVERIFY2(validate(valid()).isEmpty(), qPrintable(describe(validate(valid()))));
    }

    void eachRule_data()
    {
        QTest::addColumn<Change>("change");
        QTest::addColumn<Field>("field");
        QTest::addColumn<int>("row");
        QTest::addColumn<Diagnostic::Severity>("severity");
        QTest::addColumn<QString>("message");
        const auto error = Diagnostic::Severity::Error;
        const auto warning = Diagnostic::Severity::Warning;
        QTest::newRow("no name") << Change([](Environment &e) { e.name.clear(); }) << Field::Name << -1 << error
                                 << u"the environment has no name"_s;
        QTest::newRow("blank in the name") << Change([](Environment &e) { e.name = u"Bad Name!"_s; }) << Field::Name
                                           << -1 << error << u"name 'Bad Name!' cannot be part of an image tag"_s;
        QTest::newRow("name climbing out") << Change([](Environment &e) { e.name = u"../../x"_s; }) << Field::Name << -1
                                           << error << u"name '../../x' cannot be part of an image tag"_s;
        QTest::newRow("version") << Change([](Environment &e) { e.version = u"1 beta"_s; }) << Field::Version << -1
                                 << error << u"version '1 beta' cannot be part of an image tag"_s;
        QTest::newRow("python version") << Change([](Environment &e) { e.python.version = u"three"_s; })
                                        << Field::PythonVersion << -1 << error
                                        << u"'three' is not a Python version such as 3.11"_s;
        QTest::newRow("shm size") << Change([](Environment &e) { e.docker.shmSize = u"lots"_s; }) << Field::ShmSize
                                  << -1 << error << u"shm_size 'lots' is not a size"_s;
        QTest::newRow("no base image") << Change([](Environment &e) { e.docker.baseImage = u"  "_s; })
                                       << Field::BaseImage << -1 << warning
                                       << u"no docker.base_image: container targets cannot build this environment"_s;
        QTest::newRow("empty run argument") << Change([](Environment &e) {
            e.docker.runArguments = {u"--ipc=host"_s, u""_s};
        }) << Field::RunArguments << 1 << error
                                            << u"empty run argument"_s;
        QTest::newRow("empty channel") << Change([](Environment &e) { e.python.channels = {u" "_s}; })
                                       << Field::Channels << 0 << error << u"empty channel"_s;
        QTest::newRow("conda row") << Change([](Environment &e) {
            e.python.condaDependencies = {MatchSpec{}, MatchSpec{}};
            e.python.condaDependencies[0].text = u"numpy"_s;
            e.python.condaDependencies[1].text = u"numpy >=1.24 py3* extra"_s;
        }) << Field::Conda << 1 << error
                                   << QString();
        QTest::newRow("pip row kept as written") << Change([](Environment &e) {
            e.python.pipRequirements = {PipRequirement{}};
            e.python.pipRequirements[0].text = u"--prefer-binary"_s;
        }) << Field::Pip << 0 << warning << u"kept as written: not a requirement Ferry understands"_s;
        QTest::newRow("pip constraint row") << Change([](Environment &e) {
            e.python.pipConstraints = {PipRequirement{}};
            e.python.pipConstraints[0].text = u"numpy >="_s;
        }) << Field::PipConstraints << 0 << error
                                            << QString();
        QTest::newRow("variable name") << Change([](Environment &e) {
            e.variables = {{u"1BAD"_s, u"x"_s}};
        }) << Field::Variables << 0 << error
                                       << u"variable name '1BAD' is not a valid environment variable name"_s;
        QTest::newRow("variable twice") << Change([](Environment &e) {
            e.variables = {{u"SEED"_s, u"1"_s}, {u"SEED"_s, u"2"_s}};
        }) << Field::Variables << 1 << error
                                        << u"variable SEED is set twice"_s;
        QTest::newRow("secret naming nothing") << Change([](Environment &e) {
            e.variables = {{u"SEED"_s, u"1"_s}, {u"TOKEN"_s, u" "_s}};
            e.secretVariables = {u"TOKEN"_s};
        }) << Field::Variables << 1 << error << u"secret variable 'TOKEN' names no keychain secret"_s;
    }
    void eachRule()
    {
        QFETCH(Change, change);
        QFETCH(Field, field);
        QFETCH(int, row);
        QFETCH(Diagnostic::Severity, severity);
        QFETCH(QString, message);
        Environment env = valid();
        change(env);
        const Findings findings = validate(env);
        QCOMPARE(findings.size(), 1);
        const Finding &f = findings.first();
        QCOMPARE(f.field, field);
        QCOMPARE(f.row, row);
        QCOMPARE(f.severity, severity);
        if (!message.isEmpty())
            QCOMPARE(f.message, message);
        QVERIFY2(f.text().startsWith(f.column > 0 ? u"column "_s : f.message), qPrintable(f.text()));
        if (!f.hint.isEmpty())
            QVERIFY(f.text().endsWith(u": "_s + f.hint));
    }

    // A conda name with capitals is kept; the tag is its lower-case form (hi-ml, InnerEye).
    void namesWithCapitals()
    {
        for (const QString &name : {u"InnerEye"_s, u"HimlHisto"_s, u"AzureML_SDK"_s, u"a"_s, QString(63, u'x')}) {
            QVERIFY2(isValidEnvironmentName(name), qPrintable(name));
            Environment env = valid();
            env.name = name;
            QVERIFY2(validate(env).isEmpty(), qPrintable(describe(validate(env))));
            QVERIFY(imageTag(env).startsWith(name.toLower() + u"-2-"_s));
        }
        for (const QString &name : {u".hidden"_s, u"-x"_s, u"a/b"_s, u"My Env"_s, QString(64, u'x')})
            QVERIFY2(!isValidEnvironmentName(name), qPrintable(name));
        QVERIFY(validateName(u"Bad Name"_s).first().hint.contains(u"lower-case"_s));
    }

    void everyFieldHasItsOwnName()
    {
        QSet<QString> names;
        for (int i = 0; i <= static_cast<int>(Field::Variables); ++i) {
            const QString name = fieldName(static_cast<Field>(i));
            QVERIFY2(!name.isEmpty(), qPrintable(QString::number(i)));
            names.insert(name);
        }
        QCOMPARE(names.size(), static_cast<int>(Field::Variables) + 1);
        QCOMPARE(fieldName(Field::PythonVersion), u"python_version"_s);
    }

    // The reader presents the same finding, at the line of the value; the editor shows text().
    void theReaderPresentsTheSameFindings()
    {
        const QString yaml = u"ferry: 1\nname: a\nversion: \"2\"\ndocker:\n  base_image: python:3.11-slim\n"
                             "  shm_size: lots\npython:\n  version: three\n  channels: [conda-forge, '']\n"
                             "variables:\n  SEED: '1'\n  1BAD: x\n  SEED: '2'\n"_s;
        const EnvironmentRead read = parseEnvironmentYaml(yaml, u"e.yml"_s);
        const Findings findings = validate(read.environment);
        QCOMPARE(findings.size(), 5);
        const QString text = describe(read.diagnostics);
        for (const Finding &f : findings)
            QVERIFY2(text.contains(u"error: "_s + f.message), qPrintable(text));
        QVERIFY2(text.contains(u"e.yml:6:13: error: shm_size 'lots' is not a size"_s), qPrintable(text));
        QVERIFY2(text.contains(u"e.yml:8:12: error: 'three' is not a Python version"_s), qPrintable(text));
        QVERIFY2(text.contains(u"e.yml:9:27: error: empty channel"_s), qPrintable(text));
        QVERIFY2(text.contains(u"e.yml:12:3: error: variable name '1BAD'"_s), qPrintable(text));
        QVERIFY2(text.contains(u"e.yml:13:3: error: variable SEED is set twice"_s), qPrintable(text));

        // Without a file to point into: the whole file (line 0).
        Diagnostics diagnostics;
        validateEnvironment(read.environment, u"x.yml"_s, diagnostics);
        QCOMPARE(diagnostics.size(), 5);
        QCOMPARE(diagnostics.first().where.line, 0);
    }

    // A dependency row is reported once, by its parser at its line, not again by the validator.
    void dependencyRowsAreReportedOnce()
    {
        const EnvironmentRead read = parseEnvironmentYaml(
            u"ferry: 1\nname: a\ndocker: {base_image: x}\npython:\n  pip:\n    - --prefer-binary\n"_s, u"e.yml"_s);
        QCOMPARE(ferry::test::count(read.diagnostics, Diagnostic::Severity::Warning), 1);
        QVERIFY2(describe(read.diagnostics).contains(u"e.yml:6:7: warning: kept as written"_s),
                 qPrintable(describe(read.diagnostics)));
    }
};

FERRY_TEST_APPLESS_MAIN(TestEnvironmentValidator)
#include "tst_environmentvalidator.moc"
