// Renders the environment editor (issue 7) with a realistic environment to PNGs; run by
// tests/gui/env-screenshots.sh under Xvfb:
//   ferry_env_screenshots OUTPUT_DIR
// env-docker.png, env-conda.png, env-pip.png, env-variables.png, env-versions.png,
// env-problem.png (an invalid cell, marked), env-window.png (the editor docked in the window).
#include "screenshot.h"
#include "ui/env/dependencymodels.h"
#include "ui/env/environmentdocument.h"
#include "ui/env/environmenteditor.h"
#include "ui/env/environmenteditors.h"
#include "ui/env/environmentpreview.h"
#include "ui/env/pythonsectionform.h"
#include "ui/env/tableeditor.h"
#include "ui/window/mainwindow.h"
#include "workspace/recentworkspaces.h"

#include <QApplication>
#include <QDir>
#include <QFile>
#include <QLineEdit>
#include <QSettings>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;

namespace {

const char *kEnvironment = R"(ferry: 1
name: vision
version: "3"
description: Image classification on the flowers dataset, with experiment tracking
docker:
  base_image: nvidia/cuda:12.1.1-cudnn8-runtime-ubuntu22.04
  registry:
    address: myregistry.azurecr.io
    username: ferry-ci
    password_secret: acr-password
  run_arguments: [--ipc=host, --ulimit, memlock=-1]
  shm_size: 16g
  gpu: "on"
  system_packages: [git, libgl1, libglib2.0-0]
  steps: |
    RUN mkdir -p /opt/cache && chmod 777 /opt/cache
    ENV TORCH_HOME=/opt/cache
  remote_user: vscode
python:
  version: "3.10"
  channels: [pytorch, nvidia, conda-forge]
  conda:
    - pytorch=2.1.2
    - pytorch-cuda=12.1
    - torchvision>=0.16
    - numpy>=1.24,<2
    - conda-forge::pillow 10.*
    - scikit-learn
  pip:
    - timm==0.9.12
    - lightning[extra]>=2.1
    - wandb ; python_version >= "3.8"
    - albumentations~=1.3
  pip_options:
    extra_index_urls: [https://download.pytorch.org/whl/cu121]
  dev_tools: [black, pytest, ipykernel]
variables:
  WANDB_PROJECT: flowers
  WANDB_API_KEY: {secret: wandb-key}
  OMP_NUM_THREADS: "8"
  NCCL_DEBUG: WARN
)";

bool save(QWidget &widget, const QString &dir, const QString &name)
{
    return ferry::test::saveScreenshot(widget, dir, name, 400);
}

} // namespace

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    if (argc != 2) {
        std::fprintf(stderr, "usage: ferry_env_screenshots OUTPUT_DIR\n");
        return 2;
    }
    const QString out = QString::fromLocal8Bit(argv[1]);
    QDir().mkpath(out);
    QTemporaryDir temp;
    const QString root = temp.filePath(u"flowers"_s);
    QDir().mkpath(root + u"/environments"_s);
    const QString file = root + u"/environments/vision.yml"_s;
    QFile f(file);
    if (!f.open(QIODevice::WriteOnly) || f.write(kEnvironment) < 0)
        return 1;
    f.close();

    using namespace ferry::ui;
    EnvironmentEditor editor;
    editor.setWorkspaceRoot(root);
    editor.setSecretNames({u"acr-password"_s, u"wandb-key"_s, u"hf-token"_s});
    editor.open(file);
    editor.resize(1500, 950);
    editor.show();
    if (!QTest::qWaitForWindowExposed(&editor))
        return 1;
    bool ok = save(editor, out, u"env-docker.png"_s);

    editor.sections()->setCurrentWidget(editor.pythonForm());
    editor.preview()->tabs()->setCurrentIndex(2); // the Dockerfile
    ok = save(editor, out, u"env-conda.png"_s) && ok;
    editor.pythonForm()->tabs()->setCurrentIndex(1);
    editor.preview()->tabs()->setCurrentIndex(1);
    ok = save(editor, out, u"env-pip.png"_s) && ok;

    editor.sections()->setCurrentIndex(2);
    editor.preview()->tabs()->setCurrentIndex(3);
    ok = save(editor, out, u"env-variables.png"_s) && ok;

    // A typo in a conda cell: marked, with the parser's message.
    editor.sections()->setCurrentWidget(editor.pythonForm());
    editor.pythonForm()->tabs()->setCurrentIndex(0);
    editor.preview()->tabs()->setCurrentIndex(0);
    QAbstractItemModel *conda = editor.pythonForm()->conda()->view()->model();
    conda->setData(conda->index(3, CondaDependencyModel::Text), u"numpy >=1.24 <2 py3* oops"_s);
    ok = save(editor, out, u"env-problem.png"_s) && ok;
    conda->setData(conda->index(3, CondaDependencyModel::Text), u"numpy>=1.26,<2"_s);

    // Saved as the next version; the versions tab compares it with the one before.
    QAbstractItemModel *pip = editor.pythonForm()->pip()->view()->model();
    pip->removeRow(3);
    pip->insertRow(3);
    pip->setData(pip->index(3, PipRequirementModel::Text), u"torchmetrics>=1.2"_s);
    editor.findChild<QLineEdit *>(u"shmSize"_s)->setText(u"32g"_s);
    Q_EMIT editor.findChild<QLineEdit *>(u"shmSize"_s)->textEdited(u"32g"_s);
    editor.save();
    editor.sections()->setCurrentIndex(3);
    ok = save(editor, out, u"env-versions.png"_s) && ok;
    editor.hide();

    // The editor where the user finds it: a tab in the middle of the window.
    QSettings settings(temp.filePath(u"settings.ini"_s), QSettings::IniFormat);
    ferry::workspace::RecentWorkspaces recent(settings);
    MainWindow window(settings, recent, {});
    window.resize(1800, 1000);
    window.show();
    if (!QTest::qWaitForWindowExposed(&window) || !window.openWorkspaceAt(root))
        return 1;
    window.openEnvironment(file);
    QTest::qWait(800);
    ok = save(window, out, u"env-window.png"_s) && ok;
    return ok ? 0 : 1;
}
