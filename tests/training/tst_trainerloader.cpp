// The trainer plugin is loaded only when asked, and every way it can be missing or wrong
// ends in a message the user can act on.
#include "support/testenv.h"
#include "support/testmain.h"
#include "training/trainerloader.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using ferry::run::TrainerLoader;

namespace {

bool libtorchMapped()
{
    QFile maps(u"/proc/self/maps"_s);
    if (!maps.open(QIODevice::ReadOnly))
        qFatal("cannot read /proc/self/maps");
    return maps.readAll().contains("libtorch");
}

} // namespace

class TestTrainerLoader : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void missingPluginIsExplained()
    {
        QTemporaryDir empty;
        TrainerLoader loader({empty.path()});
        const auto engine = loader.load();
        QVERIFY(!engine);
        QVERIFY(!loader.isLoaded());
        const QString text = engine.error().toString();
        QVERIFY2(text.contains(u"the embedded trainer is not installed: no ferry_trainer.so in "_s + empty.path()),
                 qPrintable(text));
        QVERIFY(text.contains(u"FERRY_TRAINER_PLUGIN_DIR"_s));
        QVERIFY(!libtorchMapped());
    }

    void damagedPluginIsExplained()
    {
        QTemporaryDir dir;
        QFile file(dir.filePath(TrainerLoader::pluginFileName()));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("this is not a shared library");
        file.close();
        TrainerLoader loader({dir.path()});
        const auto engine = loader.load();
        QVERIFY(!engine);
        QCOMPARE(engine.error().path, file.fileName());
        QVERIFY2(engine.error().message.startsWith(u"not a Ferry trainer plugin"_s),
                 qPrintable(engine.error().message));
    }

    void defaultSearchOrder()
    {
        qputenv("FERRY_TRAINER_PLUGIN_DIR", "/opt/elsewhere");
        const QStringList dirs = TrainerLoader::defaultSearchDirs(u"/somewhere/bin"_s);
        qunsetenv("FERRY_TRAINER_PLUGIN_DIR");
        QCOMPARE(dirs.value(0), u"/opt/elsewhere"_s);
        QCOMPARE(dirs.value(1), u"/somewhere/bin"_s);
        QCOMPARE(dirs.value(2), u"/somewhere/lib/ferry/plugins"_s); // the install layout
        QVERIFY(!TrainerLoader::defaultSearchDirs(u"/somewhere/bin"_s).contains(u"/opt/elsewhere"_s));
    }

#if FERRY_HAS_TRAINER
    void stalePluginIsRefused()
    {
        TrainerLoader loader({(ferry::test::buildDir() + QStringLiteral("/tests/stale"))});
        const auto engine = loader.load();
        QVERIFY(!engine);
        QCOMPARE(engine.error().message,
                 u"trainer plugin speaks interface dev.ferry.TrainerEngine/0, this Ferry needs "_s +
                     QLatin1StringView(FERRY_TRAINER_ENGINE_IID));
        QVERIFY(!libtorchMapped());
    }

    // Runs last among the loading tests: once libtorch is in, it stays in.
    void loadsOnDemand()
    {
        QVERIFY2(!libtorchMapped(), "libtorch was loaded before anyone asked for the trainer");
        TrainerLoader loader(TrainerLoader::defaultSearchDirs((ferry::test::buildDir() + QStringLiteral("/bin"))));
        const auto engine = loader.load();
        QVERIFY2(engine, qPrintable(engine ? QString() : engine.error().toString()));
        QVERIFY(libtorchMapped());
        QCOMPARE(loader.loadedFrom(), (ferry::test::buildDir() + QStringLiteral("/bin/ferry_trainer.so")));

        const ferry::run::TrainerInfo info = (*engine)->info();
        QVERIFY(info.torchVersion.startsWith(u"1."_s));
        QVERIFY(info.threads >= 1);
        const auto selfTest = (*engine)->selfTest();
        QVERIFY2(selfTest, qPrintable(selfTest ? QString() : selfTest.error().toString()));

        const auto again = loader.load();
        QVERIFY(again);
        QCOMPARE(*again, *engine);
    }
#endif
};

FERRY_TEST_GUILESS_MAIN(TestTrainerLoader)
#include "tst_trainerloader.moc"
