// An environment editor on a realistic environment, with scripted answers instead of dialogs, for
// the editor's tests.
#pragma once

// Shared by the environment editor's tests: an editor on a copy of a realistic environment, with
// answers instead of dialogs, and small helpers to drive it.
#include "support/env.h"
#include "support/files.h"

#include "env/environment.h"
#include "ui/env/environmentdocument.h"
#include "ui/env/environmenteditor.h"
#include "ui/env/environmentpreview.h"
#include "ui/env/tableeditor.h"
#include "ui/problems/problemspanel.h"

#include <QApplication>
#include <QDir>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFile>
#include <QFileInfo>
#include <QLineEdit>
#include <QMimeData>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QUrl>

namespace ferry::test {

using namespace Qt::StringLiterals;
using env::Environment;
using ui::EnvironmentDocument;
using ui::EnvironmentEditor;
using ui::ProblemsPanel;
using ui::TableEditor;

inline const char *kVision = R"(ferry: 1
name: vision
version: "3"
description: Image classification
docker:
  base_image: nvidia/cuda:12.1.1-runtime-ubuntu22.04
  shm_size: 2g
  gpu: "on"
python:
  version: "3.10"
  channels: [pytorch, conda-forge]
  conda:
    - numpy>=1.24
    - pytorch=2.1
    - pillow
  pip:
    - timm==0.9.2
    - wandb
variables:
  WANDB_MODE: offline
)";

// An editor on a copy of the vision environment, with answers instead of dialogs.
struct Fixture {
    QTemporaryDir dir;
    QString path = dir.filePath(u"environments/vision.yml"_s);
    EnvironmentEditor editor;
    ProblemsPanel problems;
    QStringList questions;
    bool answer = true;

    Fixture()
    {
        if (!writeFile(path, kVision))
            qFatal("cannot write %s", qPrintable(path));
        QObject::connect(&editor, &EnvironmentEditor::problemsChanged, &problems, &ProblemsPanel::setProblems);
        editor.setConfirm([this](const QString &q) {
            questions << q;
            return answer;
        });
        editor.setWorkspaceRoot(dir.path());
        editor.preview()->setDelay(10);
        const auto diagnostics = editor.open(path);
        if (ferry::env::hasErrors(diagnostics))
            qFatal("%s", qPrintable(describe(diagnostics)));
        editor.resize(1400, 900);
        editor.show();
    }
    EnvironmentDocument *doc() { return editor.document(); }
    const Environment &env() { return editor.document()->environment(); }
    template <typename T> T *child(const QString &name)
    {
        T *widget = editor.findChild<T *>(name);
        if (!widget)
            qFatal("no %s", qPrintable(name));
        return widget;
    }
    QAbstractItemModel *model(const QString &table) { return child<TableEditor>(table)->view()->model(); }
    QTableView *view(const QString &table) { return child<TableEditor>(table)->view(); }
    QStringList problemTexts() const
    {
        QStringList texts;
        for (int i = 0; i < problems.count(); ++i)
            texts << problems.text(i);
        return texts;
    }
};

inline QStringList condaTexts(const Environment &env)
{
    QStringList texts;
    for (const auto &spec : env.python.condaDependencies)
        texts << spec.text;
    return texts;
}

inline QStringList pipTexts(const Environment &env)
{
    QStringList texts;
    for (const auto &r : env.python.pipRequirements)
        texts << r.toLine();
    return texts;
}

inline void drop(QWidget *target, const QStringList &files)
{
    QMimeData mime;
    QList<QUrl> urls;
    for (const QString &f : files)
        urls << QUrl::fromLocalFile(f);
    mime.setUrls(urls);
    QDragEnterEvent enter(QPoint(20, 20), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(target, &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent dropEvent(QPointF(20, 20), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(target, &dropEvent);
}

// The editor a table opened for the current cell.
inline QLineEdit *cellEditor(QTableView *view)
{
    for (QLineEdit *edit : view->viewport()->findChildren<QLineEdit *>())
        if (edit->isVisible())
            return edit;
    return nullptr;
}

} // namespace ferry::test
