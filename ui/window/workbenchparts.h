// What the workbench is built from: the application's services and the panels the window lays out.
#pragma once

#include "common/error.h"

#include <QString>

#include <functional>

namespace ferry::run {
class TrainerEngine;
}
namespace ferry::secrets {
class SecretStore;
}

namespace ferry::ui {

class DatasetPanel;
class DocumentArea;
class EmptyStateWidget;
class EnvironmentEditors;
class LogView;
class LossChartPanel;
class ProblemsPanel;
class RunDetailsView;
class RunsView;
class TrainPanel;
class WorkspaceOverview;
class WorkspaceTree;

// What the window needs from the application: the trainer (loaded on first use) and the
// `ferry` executable local runs are supervised by.
struct WorkbenchServices {
    std::function<Expected<run::TrainerEngine *>()> trainer;
    QString ferryBinary;
    secrets::SecretStore *secrets = nullptr; // the OS keychain; none: no Secrets page
};

// The panels the window made and laid out (it owns them): the workbench connects them to one
// another and to the open workspace. A new panel is one more member here, made
// and placed by the window, wired by the Workbench.
struct WorkbenchPanels {
    DocumentArea *documents = nullptr; // the middle of the window: the runs, then the open files
    EmptyStateWidget *emptyState = nullptr;
    WorkspaceOverview *overview = nullptr;
    WorkspaceTree *workspaceTree = nullptr;
    LossChartPanel *chart = nullptr;
    RunsView *runs = nullptr;
    LogView *log = nullptr;
    ProblemsPanel *problems = nullptr;
    RunDetailsView *details = nullptr;
    TrainPanel *train = nullptr;
    DatasetPanel *datasets = nullptr;
    EnvironmentEditors *environments = nullptr;
};

} // namespace ferry::ui
