// The environment editor's surroundings (issue 7), offscreen: templates and new environments,
// imported files, the image actions' states, the terminal command, and the window's wiring.
#include "support/editor.h"
#include "support/testmain.h"

#include "common/textfile.h"
#include "env/environmentvalidator.h"
#include "env/formats.h"
#include "env/spechash.h"
#include "ui/document/documentarea.h"
#include "ui/env/dependencymodels.h"
#include "ui/env/environmenteditors.h"
#include "ui/env/environmenttemplates.h"
#include "ui/env/imagepanel.h"
#include "ui/env/newenvironmentdialog.h"
#include "ui/env/terminallauncher.h"
#include "ui/problems/problemsmodel.h"
#include "ui/window/mainwindow.h"
#include "ui/workspace/workspaceoverview.h"
#include "workspace/recentworkspaces.h"

#include <QDialogButtonBox>
#include <QFile>
#include <QLabel>
#include <QListView>
#include <QListWidget>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QUndoStack>

using namespace Qt::StringLiterals;
using namespace ferry::ui;
using namespace ferry::test;

class TestEnvironmentEditorParts : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void templatesAndNewEnvironments()
    {
        for (const EnvironmentTemplate &t : environmentTemplates()) {
            const auto env = environmentFromTemplate(t.id, u"mine"_s);
            QVERIFY2(env, qPrintable(t.id));
            QCOMPARE(env->name, u"mine"_s);
            QVERIFY(!env->docker.baseImage.isEmpty());
            const ferry::env::Findings findings = ferry::env::validate(*env);
            QVERIFY2(std::none_of(findings.cbegin(), findings.cend(),
                                  [](const ferry::env::Finding &p) { return p.isError(); }),
                     qPrintable(t.id));
        }
        QVERIFY(!environmentFromTemplate(u"nope"_s, u"x"_s));

        QTemporaryDir dir;
        EnvironmentEditor editor;
        const QString path = dir.filePath(u"environments/cuda.yml"_s);
        QDir().mkpath(dir.filePath(u"environments"_s));
        editor.startNew(*environmentFromTemplate(u"pytorch-cuda"_s, u"cuda"_s), path);
        QVERIFY(editor.document()->isDirty());
        QVERIFY(editor.save());
        QCOMPARE(editor.document()->path(), QFileInfo(path).absoluteFilePath());
        QCOMPARE(ferry::env::readEnvironment(path).environment.docker.gpu, ferry::env::GpuMode::On);
    }

    void newEnvironmentDialog()
    {
        QTemporaryDir dir;
        QVERIFY(writeFile(dir.filePath(u"vision.yml"_s), kVision));
        NewEnvironmentDialog dialog(dir.path());
        auto *name = dialog.findChild<QLineEdit *>(u"name"_s);
        auto *ok = dialog.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok);
        auto *message = dialog.findChild<QLabel *>(u"message"_s);
        QVERIFY(!ok->isEnabled());
        QTest::keyClicks(name, u"Bad Name"_s);
        QVERIFY(!ok->isEnabled());
        QVERIFY(message->text().contains(u"lower-case"_s));
        name->clear();
        QTest::keyClicks(name, u"vision"_s);
        QVERIFY(!ok->isEnabled());
        QVERIFY(message->text().contains(u"exists already"_s));
        QTest::keyClicks(name, u"-cuda"_s);
        QVERIFY(ok->isEnabled());
        QCOMPARE(dialog.templateId(), u"python"_s);
        dialog.findChild<QListWidget *>(u"templates"_s)->setCurrentRow(2);
        QCOMPARE(dialog.templateId(), u"pytorch-cuda"_s);
        QCOMPARE(dialog.targetPath(), QDir(dir.path()).filePath(u"vision-cuda.yml"_s));
        QVERIFY(dialog.sourceFile().isEmpty());
    }

    void importedFileSavesAsFerryFile()
    {
        QTemporaryDir dir;
        DocumentArea area;
        EnvironmentEditors editors(&area);
        editors.setWorkspaceRoot(dir.path());
        EnvironmentEditor *editor = editors.open(dataPath(u"conda/basic.yml"_s));
        QCOMPARE(editors.open(dataPath(u"conda/basic.yml"_s)), editor); // once
        QVERIFY(editor->document()->path().isEmpty());
        QCOMPARE(editor->document()->environment().name, u"mnist"_s);
        editor->setChooseSavePath([](const QString &suggested) { return suggested; });
        QVERIFY(editor->save());
        QCOMPARE(editor->document()->path(), dir.filePath(u"environments/mnist.yml"_s));
        QVERIFY(ferry::readTextFile(editor->document()->path())->startsWith(u"ferry: 1"_s));
        QVERIFY(ferry::readTextFile(dataPath(u"conda/basic.yml"_s))->startsWith(u"name: mnist"_s)); // untouched
    }

    void fileWithErrors()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(u"environments/errors.yml"_s);
        QVERIFY(QDir().mkpath(dir.filePath(u"environments"_s)));
        QVERIFY(QFile::copy(dataPath(u"ferry/errors.yml"_s), path));
        DocumentArea area;
        EnvironmentEditors editors(&area);
        ProblemsPanel problems;
        connect(&editors, &EnvironmentEditors::problemsChanged, &problems, &ProblemsPanel::setProblems);
        EnvironmentEditor *editor = editors.open(path);
        QStringList texts;
        for (int i = 0; i < problems.count(); ++i)
            texts << problems.text(i);
        // What reading found, with file and line, and what the fields show.
        const auto rowsAt = [&](int line) {
            QList<QModelIndex> rows;
            for (int i = 0; i < problems.count(); ++i) {
                const QModelIndex row = problems.model()->index(i);
                if (row.data(ProblemsModel::PathRole).toString() == path &&
                    row.data(ProblemsModel::LineRole).toInt() == line)
                    rows << row;
            }
            return rows;
        };
        QVERIFY2(rowsAt(9).size() == 1, qPrintable(texts.join(u'\n'))); // the password
        QVERIFY2(!texts.filter(u"errors.yml: shm_size: "_s).isEmpty(), qPrintable(texts.join(u'\n')));
        // Issue 15: a field's finding keeps its hint and points at the line that holds the value
        // (the file is saved as shown), and the list opens the file there.
        QModelIndex shm;
        for (const QModelIndex &row : rowsAt(6)) {
            if (row.data(ProblemsModel::MessageRole).toString().startsWith(u"shm_size: "_s))
                shm = row;
        }
        QVERIFY2(shm.isValid(), qPrintable(texts.join(u'\n')));
        QVERIFY(!shm.data(ProblemsModel::HintRole).toString().isEmpty());
        QSignalSpy open(&problems, &ProblemsPanel::openRequested);
        problems.findChild<QListView *>(u"problemsList"_s)->setCurrentIndex(shm);
        problems.findChild<QPushButton *>(u"openProblem"_s)->click();
        QCOMPARE(open.size(), 1);
        QCOMPARE(open.first().at(0).toString(), path);
        QCOMPARE(open.first().at(1).toInt(), 6);
        // Saving would lose what could not be read: asked first.
        QStringList questions;
        editor->setConfirm([&](const QString &q) {
            questions << q;
            return false;
        });
        QVERIFY(!editor->save());
        QCOMPARE(questions.size(), 1);
        QVERIFY(questions.first().contains(u"had errors when it was read"_s));
        QVERIFY(ferry::readTextFile(path)->contains(u"password: hunter2"_s)); // untouched
        // Closing the editor takes its problems off the list.
        Q_EMIT area.tabCloseRequested(0);
        QCOMPARE(editors.editors().size(), 0);
        QCOMPARE(problems.count(), 0);
    }

    void imageActionStates()
    {
        ImageActionInputs in;
        ImageActionStates s = ferry::ui::imageActionStates(in);
        QVERIFY(!s.build && !s.devcontainer && !s.terminal && !s.cancel);
        QVERIFY(s.hint.contains(u"Docker or Podman"_s));
        in.engineFound = true;
        s = ferry::ui::imageActionStates(in);
        QVERIFY(s.build && !s.devcontainer);
        QVERIFY(s.hint.contains(u"Save"_s));
        in.hasFile = true;
        s = ferry::ui::imageActionStates(in);
        QVERIFY(s.build && s.devcontainer && !s.terminal);
        in.busy = true;
        s = ferry::ui::imageActionStates(in);
        QVERIFY(!s.build && !s.devcontainer && s.cancel);
        in.busy = false;
        in.containerRunning = true;
        s = ferry::ui::imageActionStates(in);
        QVERIFY(!s.terminal && s.hint.contains(u"$TERMINAL"_s));
        in.terminalFound = true;
        QVERIFY(ferry::ui::imageActionStates(in).terminal);

        // The panel with an engine that is not installed: no build, and it says so.
        Fixture f;
        ImagePanel *panel = f.editor.imagePanel();
        QSignalSpy checked(panel, &ImagePanel::imageChecked);
        panel->setEngineProgram(u"/nonexistent/docker"_s);
        QVERIFY(checked.wait(5000));
        QVERIFY(!f.child<QPushButton>(u"buildImage"_s)->isEnabled());
        QVERIFY2(panel->imageStatus().contains(u"no container engine"_s), qPrintable(panel->imageStatus()));
        QVERIFY(panel->imageStatus().contains(ferry::env::imageReference(f.env())));
    }

    void terminalCommands()
    {
        const QStringList shell = containerShellCommand(u"docker"_s, u"abc123"_s, u"vscode"_s, u"/workspaces/x"_s);
        QCOMPARE(shell.mid(0, 7),
                 (QStringList{u"docker"_s, u"exec"_s, u"-it"_s, u"-u"_s, u"vscode"_s, u"-w"_s, u"/workspaces/x"_s}));
        QCOMPARE(shell.at(7), u"abc123"_s);
        QHash<QString, QString> installed{{u"gnome-terminal"_s, u"/usr/bin/gnome-terminal"_s},
                                          {u"xterm"_s, u"/usr/bin/xterm"_s},
                                          {u"kitty"_s, u"/usr/bin/kitty"_s}};
        auto which = [&](const QString &name) { return installed.value(name); };
        QString terminal;
        auto environment = [&](const QString &name) { return name == "TERMINAL"_L1 ? terminal : QString(); };
        TerminalCommand c = terminalCommand({u"docker"_s, u"exec"_s}, environment, which);
        QCOMPARE(c.program, u"/usr/bin/gnome-terminal"_s);
        QCOMPARE(c.arguments, (QStringList{u"--"_s, u"docker"_s, u"exec"_s}));
        terminal = u"kitty"_s; // the user's choice first
        c = terminalCommand({u"docker"_s}, environment, which);
        QCOMPARE(c.program, u"/usr/bin/kitty"_s);
        QCOMPARE(c.arguments, QStringList{u"docker"_s});
        installed.remove(u"gnome-terminal"_s);
        installed.remove(u"kitty"_s);
        terminal.clear();
        c = terminalCommand({u"sh"_s}, environment, which);
        QCOMPARE(c.program, u"/usr/bin/xterm"_s);
        QCOMPARE(c.arguments, (QStringList{u"-e"_s, u"sh"_s}));
        installed.clear();
        QVERIFY(terminalCommand({u"sh"_s}, environment, which).program.isEmpty());
    }

    void windowOpensEnvironments()
    {
        QTemporaryDir dir;
        QSettings settings(dir.filePath(u"settings.ini"_s), QSettings::IniFormat);
        ferry::workspace::RecentWorkspaces recent(settings);
        MainWindow window(settings, recent, {});
        window.show();
        const QString root = dir.filePath(u"ws"_s);
        QVERIFY(writeFile(root + u"/environments/vision.yml"_s, kVision));
        QVERIFY(window.openWorkspaceAt(root));
        QVERIFY(window.documentArea()->documents().isEmpty());

        // Double-click in the workspace overview.
        auto *overview = window.findChild<WorkspaceOverview *>();
        QVERIFY(overview);
        Q_EMIT overview->entryActivated(WorkspaceOverview::Kind::Environment, root + u"/environments/vision.yml"_s);
        EnvironmentEditors *editors = window.environmentEditors();
        QCOMPARE(editors->editors().size(), 1);
        EnvironmentEditor *editor = editors->currentEditor();
        QVERIFY(editor && editor->isVisible()); // a tab of the middle of the window, in view
        QCOMPARE(editor->document()->environment().name, u"vision"_s);

        // Its problems reach the window's list, and leave it when fixed.
        QAbstractItemModel *conda = editor->findChild<TableEditor *>(u"conda"_s)->view()->model();
        QVERIFY(conda->setData(conda->index(0, CondaDependencyModel::Text), u"numpy >=1 a b"_s));
        QTRY_VERIFY(window.problems()->count() == 1);
        QVERIFY(window.problems()->text(0).contains(u"conda row 1"_s));
        editor->document()->undoStack()->undo();
        QCOMPARE(window.problems()->count(), 0);

        // A dropped conda file is imported into the workspace and opened.
        const QString conda2 = dir.filePath(u"incoming/environment.yml"_s);
        QVERIFY(QDir().mkpath(dir.filePath(u"incoming"_s)));
        QVERIFY(QFile::copy(dataPath(u"conda/basic.yml"_s), conda2));
        drop(&window, {conda2});
        QTRY_VERIFY2(editors->editors().size() == 2, qPrintable(window.problems()->text(0)));
        QCOMPARE(editors->currentEditor()->document()->path(), root + u"/environments/mnist.yml"_s);
    }
};

FERRY_TEST_MAIN(TestEnvironmentEditorParts)
#include "tst_environmenteditorparts.moc"
