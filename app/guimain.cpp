// Wires the window: settings, recent workspaces, the workspace from the command line.
#include "cli/command.h"
#include "ferry/version.h"
#include "secrets/secretstore.h"
#include "training/trainerloader.h"
#include "ui/resources/resources.h"
#include "ui/window/firstframeprobe.h"
#include "ui/window/mainwindow.h"
#include "ui/window/singleinstance.h"
#include "workspace/filekind.h"
#include "workspace/recentworkspaces.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QFileInfo>
#include <QIcon>
#include <QSettings>

#include <cstdio>
#include <cstring>

using namespace Qt::StringLiterals;

namespace {

bool hasDisplay(int argc, char **argv)
{
    if (qEnvironmentVariableIsSet("QT_QPA_PLATFORM") || qEnvironmentVariableIsSet("DISPLAY") ||
        qEnvironmentVariableIsSet("WAYLAND_DISPLAY"))
        return true;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "-platform") == 0 || std::strcmp(argv[i], "--platform") == 0)
            return true;
    }
    return false;
}

// `ferry` where there is no screen: how to get one, and what works without one.
void explainNoDisplay(const QString &commands)
{
    std::fprintf(stderr,
                 "ferry: no display to open the window on (DISPLAY and WAYLAND_DISPLAY are not set).\n"
                 "  On a desktop: start Ferry from the applications menu, or from a terminal of the desktop session.\n"
                 "  Over SSH: ssh -X HOST ferry (X forwarding), or use the command line below.\n"
                 "  Headless: QT_QPA_PLATFORM=offscreen ferry [WORKSPACE]\n"
                 "  or inside a virtual X server: xvfb-run -a ferry [WORKSPACE] (apt install xvfb)\n"
                 "\n"
                 "Without a window, the command line does the work (see 'ferry --help', 'ferry help COMMAND'):\n"
                 "%s",
                 qPrintable(commands));
}

// Every path on the command line exists and is something Ferry opens; the first one, when a
// folder, opens as a workspace (a typo never creates folders).
ferry::Expected<void> checkPaths(const QStringList &paths)
{
    for (qsizetype i = 0; i < paths.size(); ++i) {
        const QFileInfo info(paths[i]);
        if (i == 0 && (info.isDir() || (!info.exists() && info.suffix().isEmpty()))) {
            if (const auto opened = ferry::workspace::Workspace::open(paths[i]); !opened)
                return opened.error();
            continue;
        }
        const auto kind = ferry::workspace::fileKindOf(paths[i]);
        if (!kind)
            return kind.error();
        if (*kind == ferry::workspace::FileKind::Sweep)
            return ferry::Error{u"a sweep file; this Ferry does not run sweeps yet"_s, paths[i], 0, 0,
                                u"run its trials one by one with 'ferry run'"_s};
    }
    return {};
}

} // namespace

int runGui(int argc, char **argv, const QString &commands)
{
    if (!hasDisplay(argc, argv)) {
        explainNoDisplay(commands);
        return ferry::cli::kExitUserError;
    }

    QApplication app(argc, argv);
    QApplication::setOrganizationName(u"Ferry"_s);
    QApplication::setApplicationName(u"ferry"_s);
    QApplication::setApplicationDisplayName(u"Ferry"_s);
    QApplication::setApplicationVersion(QString::fromLatin1(ferry::kVersion));
    QApplication::setDesktopFileName(QString::fromLatin1(ferry::kAppId));
    ferry::ui::initResources();
    QApplication::setWindowIcon(QIcon(u":/icons/ferry.svg"_s));

    QCommandLineParser parser;
    parser.setApplicationDescription(u"Ferry: a desktop ML workbench"_s);
    parser.addHelpOption();
    const QCommandLineOption firstFrame(u"exit-after-first-frame"_s,
                                        u"Print the time from process start to the first painted frame, then exit."_s);
    parser.addOption(firstFrame);
    const QCommandLineOption newInstance(
        u"new-instance"_s, u"Open a window of its own instead of handing the paths to the running one."_s);
    parser.addOption(newInstance);
    parser.addPositionalArgument(u"workspace"_s, u"Folder to open as a workspace (none: the last one)."_s,
                                 u"[WORKSPACE]"_s);
    parser.addPositionalArgument(
        u"files"_s,
        u"Environment files (in the editor), notebooks or datasets to open; without a WORKSPACE the first "
        u"file picks it."_s,
        u"[FILE...]"_s);
    if (!parser.parse(QApplication::arguments())) {
        std::fprintf(stderr, "ferry: %s; see 'ferry --help'\n", qPrintable(ferry::cli::parserError(parser)));
        return ferry::cli::kExitUserError;
    }
    const QStringList arguments = parser.positionalArguments();
    if (const auto checked = checkPaths(arguments); !checked) {
        std::fprintf(stderr, "ferry: %s\n", qPrintable(checked.error().toString()));
        return ferry::cli::kExitUserError;
    }

    // One window per user: a running Ferry takes the paths (and shows itself) and this one ends.
    ferry::ui::SingleInstance instance;
    const bool single = !parser.isSet(newInstance) && !parser.isSet(firstFrame);
    if (single && instance.handToRunning(arguments))
        return ferry::cli::kExitOk;

    QSettings settings;
    ferry::workspace::RecentWorkspaces recent(settings);
    // libtorch loads on the first training, not at start-up; the plugin stays loaded after.
    ferry::run::TrainerLoader trainer(
        ferry::run::TrainerLoader::defaultSearchDirs(QCoreApplication::applicationDirPath()));
    ferry::ui::WorkbenchServices services;
    services.trainer = [&trainer] { return trainer.load(); };
    services.ferryBinary = QCoreApplication::applicationFilePath();
    // The OS keychain (asynchronous; a missing Secret Service shows up where a secret is used).
    ferry::secrets::SecretStore secrets(settings);
    services.secrets = &secrets;
    ferry::ui::MainWindow window(settings, recent, services);

    // `ferry [WORKSPACE] [FILE...]`, or without paths the workspace of the last session.
    if (arguments.isEmpty())
        window.reopenLastWorkspace();
    else
        window.openPaths(arguments);
    if (single && !instance.listen())
        std::fprintf(stderr, "ferry: other 'ferry' commands will open their own window (%s)\n",
                     qPrintable(instance.errorString()));
    QObject::connect(&instance, &ferry::ui::SingleInstance::pathsReceived, &window,
                     [&window](const QStringList &paths) {
                         window.openPaths(paths);
                         window.comeForward();
                     });

    if (parser.isSet(firstFrame))
        ferry::ui::FirstFrameProbe::install(window);
    window.show();
    return QApplication::exec();
}
