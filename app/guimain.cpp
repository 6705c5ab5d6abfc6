// Wires the window: settings, recent workspaces, the workspace from the command line.
#include "cli/command.h"
#include "ferry/version.h"
#include "secrets/secretstore.h"
#include "training/trainerloader.h"
#include "ui/window/firstframeprobe.h"
#include "ui/window/mainwindow.h"
#include "ui/window/resources.h"
#include "ui/window/singleinstance.h"
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

} // namespace

int runGui(int argc, char **argv)
{
    if (!hasDisplay(argc, argv)) {
        std::fputs("ferry: no display to open the window on (DISPLAY and WAYLAND_DISPLAY are not set).\n"
                   "  Without a screen, use the command line: ferry --help\n"
                   "  or run the window headless: QT_QPA_PLATFORM=offscreen ferry [WORKSPACE]\n"
                   "  or inside a virtual X server: xvfb-run -a ferry [WORKSPACE]\n",
                   stderr);
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
    parser.addPositionalArgument(u"workspace"_s, u"Folder to open as a workspace."_s, u"[WORKSPACE]"_s);
    parser.addPositionalArgument(u"files"_s, u"Datasets, environment files or notebooks to open."_s, u"[FILE...]"_s);
    if (!parser.parse(QApplication::arguments())) {
        std::fprintf(stderr, "ferry: %s; see 'ferry --help'\n", qPrintable(ferry::cli::parserError(parser)));
        return ferry::cli::kExitUserError;
    }
    const QStringList arguments = parser.positionalArguments();
    for (qsizetype i = 0; i < arguments.size(); ++i) {
        if (QFileInfo::exists(arguments[i]))
            continue;
        // The first is usually a workspace folder: its own message and hint (a typo never
        // creates folders).
        const ferry::Error missing = i == 0 ? ferry::workspace::Workspace::open(arguments[i]).error()
                                            : ferry::Error{u"no such file or folder"_s, arguments[i], 0, 0, {}};
        std::fprintf(stderr, "ferry: %s\n", qPrintable(missing.toString()));
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

    // `ferry [WORKSPACE] [FILE...]`: a folder first is the workspace; the rest open as if dropped.
    auto open = [&window](QStringList paths) {
        if (!paths.isEmpty() && QFileInfo(paths.front()).isDir())
            window.openWorkspaceAt(paths.takeFirst());
        window.openPaths(paths);
    };
    if (!arguments.isEmpty() && QFileInfo(arguments.front()).isDir()) {
        const auto opened = ferry::workspace::Workspace::open(arguments.front());
        if (!opened) {
            std::fprintf(stderr, "ferry: %s\n", qPrintable(opened.error().toString()));
            return ferry::cli::kExitUserError;
        }
        window.setWorkspace(*opened);
        window.openPaths(arguments.mid(1));
    } else {
        window.openPaths(arguments);
    }
    if (single && !instance.listen())
        std::fprintf(stderr, "ferry: other 'ferry' commands will open their own window (%s)\n",
                     qPrintable(instance.errorString()));
    QObject::connect(&instance, &ferry::ui::SingleInstance::pathsReceived, &window,
                     [&window, open](const QStringList &paths) {
                         open(paths);
                         window.showNormal();
                         window.raise();
                         window.activateWindow();
                     });

    if (parser.isSet(firstFrame))
        ferry::ui::FirstFrameProbe::install(window);
    window.show();
    return QApplication::exec();
}
