// M6 (security review; issue 14, item 6): a YAML alias fan-out of a few hundred bytes
// (`x1: &b [*a, *a, ...]`, each level ten times the last) is refused by a fixed cap on the nodes
// a reader would walk, with the file and line, instead of hanging whoever reads it. Read by the
// core reader and by the real `ferry env check`, each under a hang guard (the walk the review
// measured takes hours for this file; the guard is not a timing assertion).
#include "env/formats.h"

#include "support/cli.h"
#include "support/testmain.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <future>
#include <memory>
#include <thread>

using namespace Qt::StringLiterals;
using namespace ferry;

namespace {

// `levels` levels of ten aliases each: 10^levels leaves in the expanded tree. The fan-out starts
// on line `firstLine` of the file.
QByteArray aliasFanOut(int levels)
{
    QByteArray text = "x0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
    for (int level = 1; level < levels; ++level) {
        const QByteArray previous = "*a" + QByteArray::number(level - 1);
        QByteArrayList items;
        for (int i = 0; i < 10; ++i)
            items << previous;
        text += "x" + QByteArray::number(level) + ": &a" + QByteArray::number(level) + " [" + items.join(",") + "]\n";
    }
    return text;
}

// The core reader on another thread, so that a hang fails the test instead of stalling it.
env::EnvironmentRead readGuarded(const QString &path)
{
    auto done = std::make_shared<std::promise<env::EnvironmentRead>>();
    std::future<env::EnvironmentRead> result = done->get_future();
    std::thread([done, path] { done->set_value(env::readEnvironment(path)); }).detach();
    if (result.wait_for(std::chrono::seconds(30)) != std::future_status::ready)
        qFatal("reading %s did not finish in 30 s: the alias fan-out is walked", qPrintable(path));
    return result.get();
}

} // namespace

class TestYamlBomb : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

    QString write(const QString &name, const QByteArray &text) const
    {
        QFile f(m_dir.filePath(name));
        if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate) || f.write(text) != text.size())
            qFatal("cannot write %s", qPrintable(name));
        return f.fileName();
    }

private Q_SLOTS:
    void refusedWithFileAndLine_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QByteArray>("head");
        // The Ferry format, a conda environment.yml and an AzureML v2 environment: every reader
        // goes through the same loader.
        QTest::newRow("ferry") << u"bomb.yml"_s << QByteArray("ferry: 1\nname: bomb\n");
        QTest::newRow("conda") << u"environment.yml"_s << QByteArray("name: bomb\ndependencies: [python=3.11]\n");
        QTest::newRow("azureml v2") << u"azureml.yml"_s
                                    << QByteArray("$schema: https://azuremlschemas.azureedge.net/latest/"
                                                  "environment.schema.json\nname: bomb\n");
    }

    void refusedWithFileAndLine()
    {
        QFETCH(QString, name);
        QFETCH(QByteArray, head);
        const QByteArray text = head + aliasFanOut(9); // 10^9 values when expanded
        QVERIFY2(text.size() < 700, QByteArray::number(text.size()));
        const QString path = write(name, text);

        const env::EnvironmentRead read = readGuarded(path);
        QVERIFY(env::hasErrors(read.diagnostics));
        const Error &error = read.diagnostics.first().where;
        QVERIFY2(error.message.contains(u"expands to more than 100000 values"_s), qPrintable(error.toString()));
        QCOMPARE(error.path, path);
        // The line of the level where the count passes the cap: x4 (10^5 values), after the
        // head's two lines and x0..x3.
        QCOMPARE(error.line, 7);

        const test::CliResult r = test::runFerry(m_dir.path(), {u"env"_s, u"check"_s, name}, 30000);
        QCOMPARE(r.exitCode, 1); // -1 would be the hang guard
        QVERIFY2(r.err.contains(name + u":7:"_s) && r.err.contains(u"aliases (*name) repeat what they point to"_s),
                 qPrintable(r.err));
    }

    // The cap is on what aliases expand to, not on aliases: a small reuse still reads.
    void aSmallFanOutStillReads()
    {
        const QString path = write(u"small.yml"_s, "name: small\ndependencies: [python=3.11]\n" + aliasFanOut(3));
        const env::EnvironmentRead read = readGuarded(path);
        for (const env::Diagnostic &d : read.diagnostics)
            QVERIFY2(!d.isError(), qPrintable(d.toString()));
        QCOMPARE(read.environment.name, u"small"_s);
    }
};

FERRY_TEST_GUILESS_MAIN(TestYamlBomb)
#include "tst_yamlbomb.moc"
