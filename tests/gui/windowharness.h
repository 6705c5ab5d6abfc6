#pragma once

// The window as the by-hand tools drive it (screenshots, benchmarks): its own settings in a
// temporary folder, the trainer plugin of this build, 1600×900, shown and exposed.
#include "support/testenv.h"
#include "training/trainerloader.h"
#include "ui/window/mainwindow.h"
#include "workspace/recentworkspaces.h"

#include <QSettings>
#include <QTemporaryDir>
#include <QTest>

namespace ferry::test {

struct WindowHarness {
    QTemporaryDir temp;
    QSettings settings{temp.filePath(QStringLiteral("settings.ini")), QSettings::IniFormat};
    workspace::RecentWorkspaces recent{settings};
    run::TrainerLoader loader{{(ferry::test::buildDir() + QStringLiteral("/bin"))}};
    ui::MainWindow window{settings, recent,
                          ui::WorkbenchServices{[this] { return loader.load(); }, ferry::test::ferryBinary()}};

    // Shows the window; false when it never got exposed.
    bool show()
    {
        window.setWindowState(Qt::WindowNoState); // a first start is maximised: the pictures keep one size
        window.resize(1600, 900);
        window.show();
        return QTest::qWaitForWindowExposed(&window);
    }
};

} // namespace ferry::test
