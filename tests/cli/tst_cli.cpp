// The command line as a user meets it: the built `ferry` binary, run as a process.
#include "support/cli.h"
#include "support/testenv.h"
#include "support/testmain.h"
#include "training/training.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;

namespace {

using Result = ferry::test::CliResult;

Result runFerry(const QStringList &arguments, const QProcessEnvironment &env = QProcessEnvironment::systemEnvironment())
{
    return ferry::test::textOf(ferry::test::runCommand(ferry::test::ferryBinary(), arguments, {}, {}, env, 120000));
}

QProcessEnvironment withoutDisplay()
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(u"DISPLAY"_s);
    env.remove(u"WAYLAND_DISPLAY"_s);
    env.remove(u"QT_QPA_PLATFORM"_s);
    return env;
}

[[maybe_unused]] QProcessEnvironment offscreen()
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(u"QT_QPA_PLATFORM"_s, u"offscreen"_s);
    // Settings of its own (recent workspaces): never the user's.
    static QTemporaryDir config;
    env.insert(u"XDG_CONFIG_HOME"_s, config.path());
    return env;
}

// Errors are one line on stderr (Qt's own warnings about the platform aside).
[[maybe_unused]] QString firstErrorLine(const Result &r)
{
    const QStringList lines = r.err.split(u'\n', Qt::SkipEmptyParts);
    for (const QString &line : lines) {
        if (line.startsWith(u"ferry"_s))
            return line;
    }
    return {};
}

} // namespace

class TestCli : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void version_data()
    {
        QTest::addColumn<QString>("flag");
        QTest::newRow("long") << u"--version"_s;
        QTest::newRow("short") << u"-v"_s;
    }
    void version()
    {
        QFETCH(QString, flag);
        const Result r = runFerry({flag});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(QRegularExpression(u"^ferry \\d+\\.\\d+\\.\\d+\\n$"_s).match(r.out).hasMatch(), qPrintable(r.out));
    }

    void globalHelp_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::newRow("--help") << QStringList{u"--help"_s};
        QTest::newRow("-h") << QStringList{u"-h"_s};
        QTest::newRow("help") << QStringList{u"help"_s};
    }
    void globalHelp()
    {
        QFETCH(QStringList, arguments);
        const Result r = runFerry(arguments);
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains(u"ferry [WORKSPACE]"_s));
        QVERIFY(r.out.contains(u"Commands:"_s));
        QVERIFY(r.out.contains(u"  doctor "_s));
        QVERIFY(r.out.contains(u"ferry help COMMAND"_s));
        QVERIFY(r.err.isEmpty());
    }

    void commandHelp_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::newRow("help doctor") << QStringList{u"help"_s, u"doctor"_s};
        QTest::newRow("doctor --help") << QStringList{u"doctor"_s, u"--help"_s};
    }
    void commandHelp()
    {
        QFETCH(QStringList, arguments);
        const Result r = runFerry(arguments);
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.startsWith(u"Usage: ferry doctor [options]"_s), qPrintable(r.out));
        QVERIFY(r.out.contains(u"--json"_s));
    }

    // `ferry help train` lists every training setting with the default of the one table the
    // trainer reads (training/training.h), so a changed default reaches the help text.
    void trainHelpShowsTheTablesDefaults()
    {
        const Result r = runFerry({u"help"_s, u"train"_s});
        QCOMPARE(r.exitCode, 0);
        const QString help = r.out.simplified(); // the help wraps long lines
        const QList<ferry::run::TrainingSetting> settings = ferry::run::trainingSettings();
        QCOMPARE(settings.size(), ferry::run::trainingSettingNames().size());
        for (const ferry::run::TrainingSetting &setting : settings) {
            QVERIFY2(help.contains(u"--%1 <%2>"_s.arg(setting.name, setting.valueName)), qPrintable(setting.name));
            const QString line = u"%1 (default %2)."_s.arg(setting.description, setting.defaultText).simplified();
            QVERIFY2(help.contains(line), qPrintable(line));
        }
        const ferry::run::TrainingConfig defaults;
        QVERIFY(help.contains(u"Epochs (default %1)."_s.arg(defaults.epochs)));
        QVERIFY(help.contains(u"Learning rate (default 0.001)."_s));
        QVERIFY(help.contains(u"The model: mlp or cnn (default mlp)."_s));
    }

    void badUsage_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("expected");
        QTest::newRow("unknown command") << QStringList{u"frobnicate"_s}
                                         << u"ferry: 'frobnicate' is not a ferry command nor an existing folder. "
                                            u"See 'ferry --help'."_s;
        QTest::newRow("near miss") << QStringList{u"doctr"_s}
                                   << u"ferry: 'doctr' is not a ferry command nor an existing folder; did you "
                                      u"mean 'doctor'? See 'ferry --help'."_s;
        QTest::newRow("help on unknown") << QStringList{u"help"_s, u"nosuch"_s}
                                         << u"ferry: 'nosuch' is not a ferry command nor an existing folder. "
                                            u"See 'ferry --help'."_s;
        QTest::newRow("bad option") << QStringList{u"doctor"_s, u"--bogus"_s}
                                    << u"ferry doctor: Unknown option 'bogus'; see 'ferry help doctor'"_s;
        QTest::newRow("extra argument") << QStringList{u"doctor"_s, u"extra"_s}
                                        << u"ferry doctor: unexpected argument 'extra'; see 'ferry help doctor'"_s;
    }
    void badUsage()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, expected);
        const Result r = runFerry(arguments);
        QCOMPARE(r.exitCode, 1);
        QCOMPARE(r.err, expected + u'\n');
        QVERIFY(r.out.isEmpty());
    }

    void noDisplayExplainsHeadless()
    {
        const Result r = runFerry({}, withoutDisplay());
        QCOMPARE(r.exitCode, 1);
#if FERRY_HAS_GUI
        QVERIFY2(r.err.contains(u"no display"_s), qPrintable(r.err));
        QVERIFY(r.err.contains(u"QT_QPA_PLATFORM=offscreen ferry"_s));
        QVERIFY(r.err.contains(u"xvfb-run"_s));
        // ... and what works without a window: every command, and where to read more.
        QVERIFY(r.err.contains(u"apt install xvfb"_s));
        for (const QString &command : {u"  env "_s, u"  run "_s, u"  train "_s, u"  doctor "_s})
            QVERIFY2(r.err.contains(command), qPrintable(command));
        QVERIFY(r.err.contains(u"ferry help COMMAND"_s));
#else
        QVERIFY2(r.err.contains(u"FERRY_GUI=OFF"_s), qPrintable(r.err));
#endif
    }

    void binaryDoesNotLinkTorch()
    {
        QProcess ldd;
        ldd.start(u"ldd"_s, {ferry::test::ferryBinary()});
        QVERIFY(ldd.waitForFinished());
        const QString libraries = QString::fromLocal8Bit(ldd.readAllStandardOutput());
        QVERIFY(libraries.contains(u"libQt6Core"_s)); // ldd really listed something
        QVERIFY2(!libraries.contains(u"libtorch"_s), qPrintable(libraries));
        QVERIFY2(!libraries.contains(u"libc10"_s), qPrintable(libraries));
#if !FERRY_HAS_GUI
        // Proof that core and the command line build without any widget library.
        QVERIFY2(!libraries.contains(u"libQt6Widgets"_s), qPrintable(libraries));
        QVERIFY2(!libraries.contains(u"libQt6Gui"_s), qPrintable(libraries));
#endif
    }

    void doctorLoadsTrainerOnDemand()
    {
        const Result r = runFerry({u"doctor"_s, u"--json"_s});
        const QJsonObject report = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QVERIFY2(!report.isEmpty(), qPrintable(r.out + r.err));
        const QJsonObject trainer = report[u"trainer"_s].toObject();
#if FERRY_HAS_TRAINER
        QCOMPARE(r.exitCode, 0);
        QVERIFY(trainer[u"torch"_s].toString().startsWith(u"1."_s));
        QCOMPARE(trainer[u"selfTest"_s].toString(), u"ok"_s);
        QVERIFY(trainer[u"plugin"_s].toString().endsWith(u"/ferry_trainer.so"_s));
#else
        QCOMPARE(r.exitCode, 1);
        QVERIFY(trainer[u"error"_s].toString().contains(u"the embedded trainer is not installed"_s));
#endif
    }

    // Each optional tool is looked for and said what it enables (and how to get it when missing);
    // none of them is needed for exit code 0.
    void doctorChecksTheOptionalParts()
    {
        const Result r = runFerry({u"doctor"_s, u"--json"_s});
        const QJsonObject optional = QJsonDocument::fromJson(r.out.toUtf8()).object()[u"optional"_s].toObject();
        const QStringList parts{u"docker"_s, u"devcontainer"_s, u"ssh"_s,       u"rsync"_s,
                                u"slurm"_s,  u"keychain"_s,     u"nvidia-smi"_s};
        QCOMPARE(optional.keys().size(), parts.size());
        for (const QString &name : parts) {
            const QJsonObject part = optional[name].toObject();
            QVERIFY2(part[u"found"_s].isBool() && part[u"installed"_s].isBool(), qPrintable(name));
            QVERIFY2(!part[u"enables"_s].toString().isEmpty(), qPrintable(name));
            QVERIFY2(!part[u"detail"_s].toString().isEmpty(), qPrintable(name));
            if (!part[u"found"_s].toBool())
                QVERIFY2(!part[u"hint"_s].toString().isEmpty(), qPrintable(name));
        }
        QVERIFY(optional[u"docker"_s].toObject()[u"enables"_s].toString().contains(u"--target container"_s));

        const Result text = runFerry({u"doctor"_s});
        QVERIFY2(text.out.contains(u"Optional parts"_s), qPrintable(text.out));
        QCOMPARE(text.out.count(u"enables: "_s), parts.size());
        for (const QString &name : parts)
            QVERIFY2(
                QRegularExpression(u"\\n  %1 +(found|not usable|missing): "_s.arg(QRegularExpression::escape(name)))
                    .match(text.out)
                    .hasMatch(),
                qPrintable(name));
    }

#if FERRY_HAS_GUI
    // `ferry environments/x.yml`: the window opens on the folder above environments/ (the
    // editor itself is tst_mainwindow's), never on an empty window saying "No workspace".
    void environmentFileOpensItsWorkspace()
    {
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkpath(u"proj/environments"_s));
        QFile env(dir.filePath(u"proj/environments/x.yml"_s));
        QVERIFY(env.open(QIODevice::WriteOnly));
        env.write("ferry: 1\nname: x\n");
        env.close();
        const Result r = runFerry({u"--exit-after-first-frame"_s, env.fileName()}, offscreen());
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY(QFileInfo(dir.filePath(u"proj/.ferry/runs"_s)).isDir());
        QVERIFY(!QFileInfo::exists(dir.filePath(u"proj/environments/.ferry"_s)));
    }

    // What Ferry does not open is said at once, with what it opens: no silent empty window.
    void unknownFileIsAClearError_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("message");
        QTest::newRow("markdown") << u"README.md"_s << QByteArray("# hi\n") << u"not a file Ferry opens"_s;
        QTest::newRow("compose") << u"compose.yml"_s << QByteArray("services: {}\n") << u"not a file Ferry opens"_s;
        QTest::newRow("sweep") << u"grid.yml"_s << QByteArray("ferry-sweep: 1\n") << u"a sweep file"_s;
    }
    void unknownFileIsAClearError()
    {
        QFETCH(QString, name);
        QFETCH(QByteArray, content);
        QFETCH(QString, message);
        QTemporaryDir dir;
        QFile file(dir.filePath(name));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(content);
        file.close();
        const Result r = runFerry({file.fileName()}, offscreen());
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(firstErrorLine(r).startsWith(u"ferry: "_s + file.fileName() + u": "_s + message), qPrintable(r.err));
        QVERIFY2(r.err.contains(u"hint: "_s), qPrintable(r.err));
    }

    void firstFrameTime()
    {
        QTemporaryDir workspace;
        const Result r = runFerry({u"--exit-after-first-frame"_s, workspace.path()}, offscreen());
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(QRegularExpression(u"^first frame: \\d+ ms after process start\\n$"_s).match(r.out).hasMatch(),
                 qPrintable(r.out));
        QVERIFY(QFileInfo(workspace.filePath(u".ferry/runs"_s)).isDir());
    }

    void missingWorkspaceIsAUserError()
    {
        QTemporaryDir parent;
        const QString missing = parent.filePath(u"not-there"_s);
        const Result r = runFerry({missing}, offscreen());
        QCOMPARE(r.exitCode, 1);
        QCOMPARE(firstErrorLine(r), u"ferry: "_s + missing + u": no such folder"_s);
        QVERIFY(r.err.contains(u"hint: create it first"_s));
        QVERIFY(!QFileInfo::exists(missing)); // a typo never creates folders
    }

    void unknownGuiOption()
    {
        const Result r = runFerry({u"--bogus"_s}, offscreen());
        QCOMPARE(r.exitCode, 1);
        QCOMPARE(firstErrorLine(r), u"ferry: Unknown option 'bogus'; see 'ferry --help'"_s);
    }
#endif
};

FERRY_TEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
