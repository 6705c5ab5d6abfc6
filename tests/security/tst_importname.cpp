// M8 (security review; issue 14, item 8): importing a foreign environment file keeps the import
// inside the workspace's environments/ folder whatever its `name:` says (`../../x`, an absolute
// path, spaces, capitals): the name is sanitised by the one rule (sanitizedEnvironmentName), with
// a warning. The GUI's drop and a path handed to the running instance both call
// env::importEnvironmentsInto (ui/mainwindow.cpp importEnvironment), tested here directly; the
// CLI's `ferry env import` is run for real.
#include "env/formats.h"

#include "support/cli.h"
#include "support/files.h"
#include "support/testmain.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>

using namespace Qt::StringLiterals;
using namespace ferry;
using ferry::test::readFile;
using ferry::test::writeFile;

namespace {

using ferry::test::kMissing;

// Every file below `root`, relative, sorted.
QStringList filesBelow(const QString &root)
{
    QStringList files;
    QDirIterator it(root, QDir::Files | QDir::Hidden | QDir::System, QDirIterator::Subdirectories);
    while (it.hasNext())
        files << QDir(root).relativeFilePath(it.next());
    files.sort();
    return files;
}

} // namespace

class TestImportName : public QObject {
    Q_OBJECT

    QTemporaryDir m_root; // <root>/ws is the workspace, <root>/downloads what came from elsewhere
    QString ws() const { return m_root.filePath(u"ws"_s); }
    QString victim() const { return m_root.filePath(u"home/.config/autostart/x.yml"_s); }

    // A file of `format` whose environment is called `name`.
    QString download(const QString &format, const QString &name) const
    {
        const QString dir = m_root.filePath(u"downloads/"_s + format);
        if (format == "conda"_L1) {
            writeFile(dir + u"/environment.yml"_s,
                      "name: '" + name.toUtf8() + "'\nchannels: [conda-forge]\ndependencies: [python=3.11, numpy]\n");
            return dir + u"/environment.yml"_s;
        }
        if (format == "azureml-v1"_L1) {
            writeFile(dir + u"/azureml_environment.json"_s,
                      "{\"name\": \"" + name.toUtf8() +
                          "\", \"version\": \"1\", \"python\": {\"condaDependencies\": {\"dependencies\": "
                          "[\"python=3.11\"]}}, \"docker\": {\"baseImage\": \"python:3.11-slim\"}}\n");
            return dir + u"/azureml_environment.json"_s;
        }
        writeFile(dir + u"/env.yml"_s,
                  "$schema: https://azuremlschemas.azureedge.net/latest/environment.schema.json\nname: '" +
                      name.toUtf8() +
                      "'\nimage: python:3.11-slim\nconda_file: {dependencies: [python=3.11]}\nversion: 1\n");
        return dir + u"/env.yml"_s;
    }

private Q_SLOTS:
    void init()
    {
        QDir(ws()).removeRecursively();
        QVERIFY(writeFile(ws() + u"/train.py"_s, "print(1)\n"));
        QVERIFY(writeFile(victim(), "the user's autostart entry\n"));
    }

    void importStaysInEnvironments_data()
    {
        QTest::addColumn<QString>("format");
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("expected"); // the file written, in environments/
        QTest::addColumn<QString>("aimedAt");  // where the name points (must not appear or change)
        for (const QString &format : {u"conda"_s, u"azureml-v1"_s, u"azureml-v2"_s}) {
            QTest::addRow("%s: ../../x", qPrintable(format))
                << format << u"../../x"_s << u"x.yml"_s << m_root.filePath(u"x.yml"_s);
            QTest::addRow("%s: climbing into the home", qPrintable(format))
                << format << u"../../home/.config/autostart/x"_s << u"home-.config-autostart-x.yml"_s << victim();
            QTest::addRow("%s: absolute", qPrintable(format))
                << format << m_root.filePath(u"planted"_s) << u""_s << m_root.filePath(u"planted.yml"_s);
            QTest::addRow("%s: capitals and spaces", qPrintable(format))
                << format << u"My Project Env"_s << u"my-project-env.yml"_s
                << ws() + u"/environments/My Project Env.yml"_s;
        }
    }

    // What the GUI drop does (Workbench::importEnvironment → env::importEnvironmentsInto).
    void importStaysInEnvironments()
    {
        QFETCH(QString, format);
        QFETCH(QString, name);
        QFETCH(QString, expected);
        QFETCH(QString, aimedAt);
        const QString file = download(format, name);
        const QString environments = ws() + u"/environments"_s;
        const auto imported = env::importEnvironmentsInto({file}, environments);
        QVERIFY2(imported, qPrintable(imported ? QString() : imported.error().toString()));

        QCOMPARE(QFileInfo(imported->path).absolutePath(), QFileInfo(environments).absoluteFilePath());
        if (!expected.isEmpty())
            QCOMPARE(QFileInfo(imported->path).fileName(), expected);
        const QString written = QFileInfo(imported->path).completeBaseName();
        QCOMPARE(imported->environment.name, written);
        QVERIFY2(std::any_of(imported->diagnostics.begin(), imported->diagnostics.end(),
                             [](const env::Diagnostic &d) {
                                 return !d.isError() &&
                                        d.where.message.contains(u"is not a valid environment name; imported as"_s);
                             }),
                 "no warning about the name");
        // Nothing outside environments/: the workspace holds the script and the one import, the
        // victim is unchanged and nothing appeared where the name pointed.
        QCOMPARE(filesBelow(ws()), (QStringList{u"environments/"_s + written + u".yml"_s, u"train.py"_s}));
        QCOMPARE(readFile(victim(), kMissing), QByteArray("the user's autostart entry\n"));
        QVERIFY(!QFileInfo::exists(aimedAt) || aimedAt == victim());
        QCOMPARE(filesBelow(m_root.filePath(u"home"_s)), QStringList{u".config/autostart/x.yml"_s});
        // What was written reads back as a valid environment of that name.
        const env::EnvironmentRead back = env::readEnvironment(imported->path);
        QVERIFY2(!env::hasErrors(back.diagnostics),
                 qPrintable(back.diagnostics.isEmpty() ? QString() : back.diagnostics.first().toString()));
        QCOMPARE(back.environment.name, written);
    }

    // `ferry env import FILE -o OUT` writes OUT, and the name in it is sanitised too.
    void cliImportSanitisesTheName()
    {
        const QString file = download(u"conda"_s, u"../../x"_s);
        const test::CliResult r =
            test::runFerry(ws(), {u"env"_s, u"import"_s, file, u"-o"_s, u"imported.yml"_s}, 60000);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains(u"name '../../x' is not a valid environment name; imported as 'x'"_s),
                 qPrintable(r.err));
        QCOMPARE(filesBelow(ws()), (QStringList{u"imported.yml"_s, u"train.py"_s}));
        QVERIFY(!QFileInfo::exists(m_root.filePath(u"x.yml"_s)));
        QVERIFY(readFile(ws() + u"/imported.yml"_s, kMissing).contains("name: x\n"));
        const test::CliResult check = test::runFerry(ws(), {u"env"_s, u"check"_s, u"imported.yml"_s}, 60000);
        QVERIFY2(check.exitCode == 0 && check.out.contains(u"imported.yml: ok"_s), qPrintable(check.out + check.err));
    }
};

FERRY_TEST_GUILESS_MAIN(TestImportName)
#include "tst_importname.moc"
