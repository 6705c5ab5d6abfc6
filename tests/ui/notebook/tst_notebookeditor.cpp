// The notebook in the window (ui/notebook/notebookeditor.h), driven with keys as a user of
// JupyterLab would, with a real ipykernel (Debian's) under its keeper: command and edit mode,
// cell operations and their undo, Run All, then the saved notebook against `jupyter nbconvert
// --execute` on the same notebook (tests/data/notebooks/compare_executed.py); cells queued while
// the kernel starts, an interrupted sleep, a restart.
#include "ui/chart/losschartpanel.h"
#include "ui/notebook/cellmetrics.h"
#include "ui/notebook/cellwidget.h"
#include "ui/notebook/codeeditor.h"
#include "ui/notebook/notebookeditor.h"
#include "ui/notebook/outputarea.h"

#include "kernelhost/kernelhost.h"
#include "store/runstore.h"
#include "ui/launch/launchdialog.h"
#include "ui/runs/runactions.h"

#include "support/files.h"
#include "support/kernel.h"
#include "support/process.h"
#include "support/testmain.h"

#include <QAbstractButton>
#include <QApplication>
#include <QDir>
#include <QDirIterator>
#include <QDropEvent>
#include <QFileInfo>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QMessageBox>
#include <QMimeData>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

using namespace Qt::StringLiterals;
using ferry::notebook::CellKind;
using ferry::ui::CellWidget;
using ferry::ui::NotebookEditor;

namespace {

QString textOf(const QJsonArray &outputs)
{
    QString text;
    for (const QJsonValue &o : outputs) {
        const QJsonObject output = o.toObject();
        if (output.value(u"output_type"_s).toString() == u"stream"_s)
            text += ferry::ui::OutputArea::plainText(output.value(u"text"_s).toString());
        else if (output.value(u"output_type"_s).toString() == u"error"_s)
            text += output.value(u"ename"_s).toString() + u'\n';
        else
            text += output.value(u"data"_s).toObject().value(u"text/plain"_s).toString() + u'\n';
    }
    return text;
}

} // namespace

class TestNotebookEditor : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_book;
    QString m_env;
    std::unique_ptr<NotebookEditor> m_editor;

    QString kernelsDir() const { return m_dir.filePath(u"ws/.ferry/kernels"_s); }
    // Idle with nothing to run, or dead (which the caller then says).
    bool kernelSettled() const
    {
        if (m_editor->kernel().state() == ferry::kernels::NotebookKernel::State::Dead)
            return true;
        return m_editor->kernel().state() == ferry::kernels::NotebookKernel::State::Idle &&
               m_editor->kernel().pendingCells().isEmpty();
    }
    void key(int k, Qt::KeyboardModifiers mods = Qt::NoModifier)
    {
        QTest::keyClick(QApplication::focusWidget(), Qt::Key(k), mods);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        const QString books = m_dir.filePath(u"books"_s);
        QVERIFY(QDir().mkpath(books));
        QVERIFY(QFile::copy(QStringLiteral(FERRY_TEST_DATA "/notebooks/numbers.txt"), books + u"/numbers.txt"_s));
        // explore.ipynb without its last cell: the error ends it, so Run All (which stops at an
        // error, as JupyterLab's does) and nbconvert run the same cells.
        m_book = books + u"/explore.ipynb"_s;
        const auto trimmed = ferry::test::runCommand(
            u"/usr/bin/python3"_s,
            {u"-c"_s,
             u"import json,sys; nb=json.load(open(sys.argv[1])); nb['cells'].pop(); "
             "json.dump(nb, open(sys.argv[2], 'w'), indent=1); open(sys.argv[2], 'a').write('\\n')"_s,
             QStringLiteral(FERRY_TEST_DATA "/notebooks/explore.ipynb"), m_book});
        QVERIFY2(trimmed.code == 0, trimmed.err.constData());
        m_env = ferry::test::writeDebianPythonEnvironment(books + u"/debian.yml"_s);
        m_editor = std::make_unique<NotebookEditor>(kernelsDir(), ferry::test::ferryBinary());
        m_editor->resize(900, 700);
        QVERIFY(m_editor->open(m_book));
        m_editor->show();
        QVERIFY(QTest::qWaitForWindowActive(m_editor.get()));
        m_editor->setFocus();
    }

    void cleanupTestCase()
    {
        m_editor.reset();
        // A run's snapshot is written read-only: writable again, for the temporary folder to go.
        for (QDirIterator it(m_dir.path(), QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot,
                             QDirIterator::Subdirectories);
             it.hasNext();)
            QFile::setPermissions(it.next(), QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        for (const QString &k : QDir(kernelsDir()).entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
            const auto stopped = ferry::kernels::stopKernel(kernelsDir() + u'/' + k, ferry::test::ferryBinary());
            QVERIFY2(stopped, qPrintable(stopped ? QString() : stopped.error().toString()));
        }
    }

    // It opens in command mode on the first cell, as JupyterLab's does; A/B insert, M/Y change
    // the type, D,D deletes, Z undoes each, Enter edits, Esc leaves.
    void cellOperationsWithTheKeys()
    {
        QCOMPARE(m_editor->currentIndex(), 0);
        QVERIFY(!m_editor->editing());
        const int cells = int(m_editor->cells().size());
        QCOMPARE(cells, 9);
        QVERIFY(!m_editor->isModified());
        key(Qt::Key_J);
        QCOMPARE(m_editor->currentIndex(), 1);
        key(Qt::Key_B);
        QCOMPARE(m_editor->cells().size(), cells + 1);
        QCOMPARE(m_editor->currentIndex(), 2);
        QVERIFY(m_editor->isModified());
        key(Qt::Key_M);
        QCOMPARE(m_editor->cells().at(2)->kind(), CellKind::Markdown);
        key(Qt::Key_Z);
        QCOMPARE(m_editor->cells().at(2)->kind(), CellKind::Code);
        key(Qt::Key_D);
        key(Qt::Key_D);
        QCOMPARE(m_editor->cells().size(), cells);
        key(Qt::Key_Z); // the inserted cell back
        QCOMPARE(m_editor->cells().size(), cells + 1);
        key(Qt::Key_Z); // and gone
        QCOMPARE(m_editor->cells().size(), cells);
        key(Qt::Key_Return);
        QVERIFY(m_editor->editing());
        QCOMPARE(QApplication::focusWidget(), m_editor->cells().at(m_editor->currentIndex())->editor());
        key(Qt::Key_Escape);
        QVERIFY(!m_editor->editing());
        QCOMPARE(m_editor->document().cells.at(1).source, u"x = 41\nprint(x + 1)"_s);
    }

    // Run All while the kernel is still starting: every cell waits its turn and runs; the saved
    // notebook has what nbconvert's has, cell by cell, and passes nbformat.validate.
    void runAllMatchesNbconvert()
    {
        m_editor->setKernelChoice(m_env, u"local"_s);
        m_editor->runAll();
        QTRY_VERIFY_WITH_TIMEOUT(kernelSettled(), 90000);
        QVERIFY2(m_editor->kernel().state() != ferry::kernels::NotebookKernel::State::Dead,
                 qPrintable(m_editor->kernel().stateText()));
        QCOMPARE(m_editor->cells().at(1)->executionCount(), 1);
        QCOMPARE(textOf(m_editor->cells().at(1)->outputArea()->outputs()), u"42\n"_s);
        QCOMPARE(m_editor->cells().last()->run(), CellWidget::Run::Failed);
        QVERIFY(m_editor->save());
        QVERIFY(!m_editor->isModified());
    }

    void savedNotebookMatchesNbconvert()
    {
        // nbconvert on the notebook as it was (its copy before the run), in its folder.
        const QString original = m_dir.filePath(u"books/original.ipynb"_s);
        const auto trimmed = ferry::test::runCommand(
            u"/usr/bin/python3"_s, {u"-c"_s,
                                    u"import json,sys; nb=json.load(open(sys.argv[1])); nb['cells'].pop(); "
                                    "json.dump(nb, open(sys.argv[2], 'w'), indent=1)"_s,
                                    QStringLiteral(FERRY_TEST_DATA "/notebooks/explore.ipynb"), original});
        QVERIFY(trimmed.code == 0);
        const auto converted =
            ferry::test::runCommand(u"/usr/bin/jupyter-nbconvert"_s,
                                    {u"--to"_s, u"notebook"_s, u"--execute"_s, u"--allow-errors"_s, u"--output"_s,
                                     m_dir.filePath(u"books/nbconvert"_s), original},
                                    m_dir.filePath(u"books"_s), {}, QProcessEnvironment::systemEnvironment(), 180000);
        QVERIFY2(converted.code == 0, converted.err.constData());
        const auto compared = ferry::test::runCommand(u"/usr/bin/python3"_s,
                                                      {QStringLiteral(FERRY_TEST_DATA "/notebooks/compare_executed.py"),
                                                       m_book, m_dir.filePath(u"books/nbconvert.ipynb"_s)});
        QVERIFY2(compared.code == 0, QByteArray(compared.out + compared.err).constData());
        QCOMPARE(compared.out.trimmed(), QByteArray("8 code cells alike"));
    }

    // A cell typed below (B, Enter) and run with Ctrl+Enter keeps the kernel's state; Shift+Enter on
    // the last cell runs it and adds one in edit mode; a sleep is interrupted (I, I); a restart
    // (0, 0) forgets the state.
    void typeRunInterruptRestart()
    {
        m_editor->setCurrentIndex(int(m_editor->cells().size()) - 1);
        m_editor->enterCommandMode();
        key(Qt::Key_B);
        key(Qt::Key_Return);
        QVERIFY(m_editor->editing());
        CellWidget *cell = m_editor->cells().last();
        QCOMPARE(QApplication::focusWidget(), cell->editor());
        QTest::keyClicks(cell->editor(), u"print(x * 3)"_s);
        key(Qt::Key_Return, Qt::ControlModifier);
        QTRY_COMPARE_WITH_TIMEOUT(textOf(cell->outputArea()->outputs()), u"123\n"_s, 30000);
        QVERIFY(!m_editor->editing());
        const qsizetype cells = m_editor->cells().size();
        key(Qt::Key_Return, Qt::ShiftModifier);
        QCOMPARE(m_editor->cells().size(), cells + 1);
        QVERIFY(m_editor->editing());
        cell = m_editor->cells().last();
        QCOMPARE(QApplication::focusWidget(), cell->editor());
        for (const QString &line : {u"import time"_s, u"print('asleep', flush=True)"_s, u"time.sleep(600)"_s}) {
            QTest::keyClicks(cell->editor(), line); // lines typed, and Enter between them
            if (!line.startsWith(u"time.sleep"_s))
                QTest::keyClick(cell->editor(), Qt::Key_Return);
        }
        key(Qt::Key_Return, Qt::ControlModifier);
        QTRY_VERIFY_WITH_TIMEOUT(textOf(cell->outputArea()->outputs()).contains(u"asleep"_s), 30000);
        key(Qt::Key_I);
        key(Qt::Key_I);
        QTRY_VERIFY_WITH_TIMEOUT(textOf(cell->outputArea()->outputs()).contains(u"KeyboardInterrupt"_s), 30000);
        QTRY_VERIFY_WITH_TIMEOUT(kernelSettled(), 30000);
        QVERIFY2(m_editor->kernel().state() != ferry::kernels::NotebookKernel::State::Dead,
                 qPrintable(m_editor->kernel().stateText()));

        key(Qt::Key_0);
        key(Qt::Key_0);
        QTRY_VERIFY_WITH_TIMEOUT(kernelSettled(), 60000);
        QVERIFY2(m_editor->kernel().state() != ferry::kernels::NotebookKernel::State::Dead,
                 qPrintable(m_editor->kernel().stateText()));
        m_editor->setCurrentIndex(int(m_editor->cells().size()) - 2); // print(x * 3)
        m_editor->runCurrent();
        cell = m_editor->cells().at(m_editor->cells().size() - 2);
        QCOMPARE(cell->source(), u"print(x * 3)"_s);
        QTRY_VERIFY_WITH_TIMEOUT(textOf(cell->outputArea()->outputs()).contains(u"NameError"_s), 30000);
    }

    // A restart asked elsewhere (`ferry kernel restart` while a cell sleeps): the cell's request is
    // lost with the old kernel, so the cell ends (aborted) instead of running forever; the kernel
    // comes back idle, its variables gone.
    void restartedElsewhereEndsTheRunningCell()
    {
        m_editor->setCurrentIndex(int(m_editor->cells().size()) - 1);
        CellWidget *cell = m_editor->cells().last();
        cell->editor()->setPlainText(u"y = 7\nimport time\nprint('sleeps', flush=True)\ntime.sleep(600)"_s);
        m_editor->runCurrent();
        QTRY_COMPARE_WITH_TIMEOUT(textOf(cell->outputArea()->outputs()), u"sleeps\n"_s, 30000);
        const ferry::test::KernelCli kernel{m_dir.filePath(u"ws"_s)};
        const ferry::test::CliResult restarted =
            kernel({u"restart"_s, QFileInfo(m_editor->kernel().folder()).fileName()});
        QVERIFY2(restarted.exitCode == 0, qPrintable(restarted.err));
        QTRY_VERIFY_WITH_TIMEOUT(cell->run() != CellWidget::Run::Running, 30000);
        QVERIFY2(!m_editor->kernel().pendingCells().contains(cell->id()),
                 qPrintable(u"run %1, kernel %2, outputs %3"_s.arg(int(cell->run()))
                                .arg(m_editor->kernel().stateText(), textOf(cell->outputArea()->outputs()))));
        QTRY_VERIFY_WITH_TIMEOUT(kernelSettled(), 30000);
        QVERIFY2(m_editor->kernel().state() != ferry::kernels::NotebookKernel::State::Dead,
                 qPrintable(m_editor->kernel().stateText()));
        cell->editor()->setPlainText(u"print(y)"_s);
        m_editor->runCurrent();
        QTRY_VERIFY_WITH_TIMEOUT(textOf(cell->outputArea()->outputs()).contains(u"NameError"_s), 30000);
    }

    // The notebook closed while a cell runs (its window gone, its kernel not): opened again, it
    // attaches to the kernel and the cell's output is whole, once, in order, with its count.
    void reopenedWhileItRunsReattaches()
    {
        CellWidget *cell = m_editor->cells().last();
        m_editor->setCurrentIndex(int(m_editor->cells().size()) - 1);
        cell->editor()->setPlainText(
            u"import time\nfor i in range(6):\n    print(i, flush=True)\n    time.sleep(0.4)"_s);
        const QString id = cell->id();
        QVERIFY(m_editor->save());
        m_editor->runCurrent();
        QTRY_VERIFY_WITH_TIMEOUT(textOf(cell->outputArea()->outputs()).startsWith(u"0\n"_s), 30000);
        m_editor.reset(); // the window closes; the kernel goes on
        QTest::qWait(1500);
        m_editor = std::make_unique<NotebookEditor>(kernelsDir(), ferry::test::ferryBinary());
        QVERIFY(m_editor->open(m_book));
        QCOMPARE(m_editor->kernel().state(), ferry::kernels::NotebookKernel::State::Starting); // attaching
        cell = m_editor->cells().last();
        QCOMPARE(cell->id(), id);
        QTRY_COMPARE_WITH_TIMEOUT(textOf(cell->outputArea()->outputs()), u"0\n1\n2\n3\n4\n5\n"_s, 30000);
        QTRY_COMPARE_WITH_TIMEOUT(cell->run(), CellWidget::Run::Done, 10000);
        QVERIFY(cell->executionCount() > 0);
        QCOMPARE(QDir(kernelsDir()).entryList(QDir::Dirs | QDir::NoDotAndDotDot).size(), 1); // the same kernel
    }

    // Unsaved edits survive a crash: the autosave beside the notebook is offered when it opens
    // again (the file itself untouched), and a save removes it.
    void autosaveRestoresAfterACrash()
    {
        const QString path = m_dir.filePath(u"books/crash.ipynb"_s);
        QVERIFY(QFile::copy(QStringLiteral(FERRY_TEST_DATA "/notebooks/stops.ipynb"), path));
        QFile::setPermissions(path, QFile::ReadOwner | QFile::WriteOwner);
        const QByteArray before = ferry::test::readFile(path);
        {
            NotebookEditor editor(kernelsDir(), ferry::test::ferryBinary());
            QVERIFY(editor.open(path));
            editor.cells().first()->editor()->setPlainText(u"# edited, never saved"_s);
            QVERIFY(editor.isModified());
            editor.autosaveNow();
        } // Ferry ends without saving
        QVERIFY(QFileInfo::exists(NotebookEditor::autosavePath(path)));
        QCOMPARE(ferry::test::readFile(path), before);
        NotebookEditor again(kernelsDir(), ferry::test::ferryBinary());
        int asked = 0;
        again.askRestore = [&](const QDateTime &) { return ++asked > 0; };
        QVERIFY(again.open(path));
        QCOMPARE(asked, 1);
        QCOMPARE(again.cells().first()->source(), u"# edited, never saved"_s);
        QVERIFY(again.isModified());
        QVERIFY(again.save());
        QVERIFY(!QFileInfo::exists(NotebookEditor::autosavePath(path)));
        QVERIFY(ferry::test::readFile(path).contains("# edited, never saved"));
    }

    // Run as Job (local): past the question about cells run out of order ("Launch Anyway"), the
    // launch dialog comes with the job's script, the notebook's environment and target; started,
    // the run runs the notebook's cells top to bottom and records the notebook and its cells.
    void runAsJobLocal()
    {
        const QString root = m_dir.filePath(u"books"_s);
        auto store = ferry::run::RunStore::open(ferry::run::RunStore::pathInWorkspace(root));
        QVERIFY(store);
        QSettings settings(m_dir.filePath(u"job-settings.ini"_s), QSettings::IniFormat);
        ferry::ui::RunActions actions(settings, ferry::test::ferryBinary(), m_editor.get());
        actions.setWorkspace(store->get(), root, root + u"/.ferry/runs"_s);
        connect(m_editor.get(), &NotebookEditor::jobRequested, &actions, [&](const ferry::ui::NotebookJob &job) {
            actions.startNotebookJob(job.script, {}, job.hyperparameters, job.environmentFile, job.target, job.notebook,
                                     job.cells);
        });
        QStringList answered;
        QTimer answer;
        connect(&answer, &QTimer::timeout, this, [&] {
            QWidget *modal = QApplication::activeModalWidget();
            if (auto *box = qobject_cast<QMessageBox *>(modal)) {
                for (QAbstractButton *button : box->buttons())
                    if (button->text() == u"Launch Anyway"_s) {
                        answered << u"question"_s;
                        button->click();
                    }
            } else if (auto *dialog = qobject_cast<ferry::ui::LaunchDialog *>(modal)) {
                answered << u"launch"_s;
                dialog->accept();
            }
        });
        answer.start(50);
        m_editor->cells().last()->editor()->setPlainText(u"y = 1"_s); // edited since it ran
        m_editor->runAsJob();
        answer.stop();
        QCOMPARE(answered, (QStringList{u"question"_s, u"launch"_s}));
        QTRY_VERIFY_WITH_TIMEOUT(!(*store)->runs().isEmpty(), 10000);
        const ferry::run::RunRecord record = (*store)->runs().first();
        const auto spec = ferry::run::RunSpec::fromJson(record.spec);
        QVERIFY(spec);
        QCOMPARE(spec->notebook, u"explore.ipynb"_s);
        QCOMPARE(spec->notebookCells.size(), 8 + 2); // the code cells, with the two typed in earlier tests
        QCOMPARE(spec->script, u"notebook-jobs/explore.py"_s);
        QCOMPARE(spec->environmentFile, m_env);
        const QString log = root + u"/.ferry/runs/"_s + record.id + u"/log"_s;
        // The cells in order, as a script: the first cell's print first, later cells' output after
        // it, until one stops it (here display(..., display_id=True), which is None outside IPython).
        QTRY_VERIFY2_WITH_TIMEOUT(ferry::test::readFile(log).contains("Traceback"),
                                  ferry::test::readFile(log).right(2000).constData(), 60000);
        const QByteArray ran = ferry::test::readFile(log);
        QVERIFY2(ran.startsWith("42\n") && ran.contains("step 4"), ran.constData());
    }

    // An image folder dropped on a cell: the preview's question answered, a cell below loads it
    // from where the kernel sees it (on this machine: where it is), and runs.
    void droppedFolderIsLoaded()
    {
        const QString pets = m_dir.filePath(u"books/pets"_s);
        for (const QString &file : {u"cat/a.png"_s, u"cat/b.png"_s, u"dog/c.png"_s}) {
            QImage image(4, 4, QImage::Format_RGB32);
            image.fill(Qt::blue);
            QVERIFY(QDir().mkpath(QFileInfo(pets + u'/' + file).absolutePath()));
            QVERIFY(image.save(pets + u'/' + file));
        }
        QString shown;
        m_editor->askInsert = [&](const QString &, const QString &code, const QString &problem) {
            shown = problem.isEmpty() ? code : problem;
            return true;
        };
        const qsizetype before = m_editor->cells().size();
        CellWidget *target = m_editor->cells().at(1);
        QMimeData mime;
        mime.setUrls({QUrl::fromLocalFile(pets)});
        QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(target, &enter);
        QVERIFY(enter.isAccepted());
        QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(target, &drop);
        QVERIFY2(m_editor->cells().size() == before + 1, qPrintable(u"asked: "_s + shown));
        CellWidget *cell = m_editor->cells().at(2);
        QCOMPARE(cell->source(), shown);
        QVERIFY2(shown.contains(u"Path(\"%1\")"_s.arg(pets)), qPrintable(shown));
        m_editor->setCurrentIndex(2);
        m_editor->runCurrent();
        QTRY_VERIFY_WITH_TIMEOUT(!cell->outputArea()->outputs().isEmpty(), 30000);
        QVERIFY2(textOf(cell->outputArea()->outputs()) == u"{'cat': 2, 'dog': 1}\n"_s,
                 QJsonDocument(cell->outputArea()->outputs()).toJson().constData());
    }

    // A cell that prints metrics (JSON lines, a Hugging Face dict) gets a live chart under it, the
    // chart of runs, with every point; run again, the chart starts over.
    void liveChartFromACell()
    {
        m_editor->setCurrentIndex(int(m_editor->cells().size()) - 1);
        m_editor->insertCell(true);
        CellWidget *cell = m_editor->cells().at(m_editor->currentIndex());
        cell->editor()->setPlainText(
            u"import json, time\nfor step in range(30):\n    print(json.dumps({'step': step, 'loss': 1 / (step + 1)}), "
            "flush=True)\n    time.sleep(0.01)\nprint({'eval_accuracy': 0.9, 'epoch': 1.0})"_s);
        m_editor->runCurrent();
        QTRY_VERIFY_WITH_TIMEOUT(cell->run() == CellWidget::Run::Done, 30000);
        QVERIFY(qobject_cast<ferry::ui::LossChartPanel *>(cell->chart()));
        auto *metrics = cell->findChild<ferry::ui::CellMetrics *>();
        QVERIFY(metrics);
        QCOMPARE(metrics->points(u"loss"_s), 30);
        QCOMPARE(metrics->points(u"eval_accuracy"_s), 1);
        m_editor->runCurrent();
        QTRY_VERIFY_WITH_TIMEOUT(cell->findChild<ferry::ui::CellMetrics *>() != metrics, 30000);
        QTRY_VERIFY_WITH_TIMEOUT(cell->run() == CellWidget::Run::Done, 30000);
        QCOMPARE(cell->findChild<ferry::ui::CellMetrics *>()->points(u"loss"_s), 30); // not 60
        QCOMPARE(cell->findChildren<ferry::ui::LossChartPanel *>().size(), 1);
    }

    // Cells moved (Ctrl+Shift+Up/Down), split at the cursor (Ctrl+Shift+-), merged (Shift+M), and
    // found and replaced across cells (Ctrl+F): each a cell operation Z undoes.
    void moveSplitMergeFindReplace()
    {
        NotebookEditor editor(kernelsDir(), ferry::test::ferryBinary());
        const QString path = m_dir.filePath(u"books/edit.ipynb"_s);
        QVERIFY(QFile::copy(QStringLiteral(FERRY_TEST_DATA "/notebooks/stops.ipynb"), path));
        QFile::setPermissions(path, QFile::ReadOwner | QFile::WriteOwner);
        QVERIFY(editor.open(path));
        editor.show();
        QVERIFY(QTest::qWaitForWindowActive(&editor));
        const auto sources = [&] {
            QStringList list;
            for (const CellWidget *cell : editor.cells())
                list << cell->source();
            return list;
        };
        const QStringList original = sources();
        QVERIFY(original.size() >= 3);
        editor.setCurrentIndex(0);
        editor.enterCommandMode();
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Down, Qt::ControlModifier | Qt::ShiftModifier);
        QCOMPARE(sources().at(1), original.at(0));
        QCOMPARE(sources().at(0), original.at(1));
        QCOMPARE(editor.currentIndex(), 1);
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Z);
        QCOMPARE(sources(), original);
        // Split: the first cell, in edit mode, at the start of its second line.
        editor.setCurrentIndex(0);
        editor.enterEditMode();
        editor.cells().at(0)->editor()->setPlainText(u"a = 1\nb = 2"_s);
        QTextCursor cursor = editor.cells().at(0)->editor()->textCursor();
        cursor.setPosition(6);
        editor.cells().at(0)->editor()->setTextCursor(cursor);
        QTest::keyClick(editor.cells().at(0)->editor(), Qt::Key_Minus, Qt::ControlModifier | Qt::ShiftModifier);
        QCOMPARE(editor.cells().at(0)->source(), u"a = 1"_s);
        QCOMPARE(editor.cells().at(1)->source(), u"b = 2"_s);
        editor.setCurrentIndex(0);
        editor.enterCommandMode();
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_M, Qt::ShiftModifier);
        QCOMPARE(editor.cells().at(0)->source(), u"a = 1\nb = 2"_s);
        // Ctrl+F: the find bar; "b = 2" found, replaced in every cell.
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_F, Qt::ControlModifier);
        auto *findText = editor.findChild<QLineEdit *>(u"findText"_s);
        QVERIFY(findText && findText->isVisible() && findText->hasFocus());
        findText->setText(u"b = 2"_s);
        editor.findChild<QLineEdit *>(u"replaceText"_s)->setText(u"b = 3"_s);
        QVERIFY(editor.findNext());
        QCOMPARE(editor.cells().at(editor.currentIndex())->editor()->textCursor().selectedText(), u"b = 2"_s);
        QCOMPARE(editor.replaceAll(), 1);
        QCOMPARE(editor.cells().at(0)->source(), u"a = 1\nb = 3"_s);
        findText->setText(u"no such text"_s);
        QVERIFY(!editor.findNext());
    }

    // Cells chosen as JupyterLab chooses them (Shift+J, Shift+click): D,D deletes them all (Z
    // brings them back); Run as Job of them is a script of those cells alone, recording their ids,
    // that runs in the notebook's folder (its relative paths) from wherever it is started.
    void chosenCellsAsAJob()
    {
        const QString folder = m_dir.filePath(u"books/sub"_s);
        QVERIFY(QDir().mkpath(folder));
        QVERIFY(QFile::copy(QStringLiteral(FERRY_TEST_DATA "/notebooks/numbers.txt"), folder + u"/numbers.txt"_s));
        auto book = ferry::notebook::NotebookDocument::blank(folder + u"/pick.ipynb"_s);
        book.cells.clear();
        const QList<std::pair<CellKind, QString>> cells{
            {CellKind::Code, u"import json"_s},
            {CellKind::Markdown, u"# Load the numbers"_s},
            {CellKind::Code, u"data = open(\"numbers.txt\").read().split()"_s},
            {CellKind::Code, u"print(\"sum\", sum(int(x) for x in data))"_s},
            {CellKind::Code, u"raise SystemExit(\"not chosen\")"_s}};
        for (const auto &[kind, source] : cells) {
            ferry::notebook::DocumentCell cell;
            cell.kind = kind;
            cell.id = ferry::notebook::DocumentCell::newId();
            cell.source = source;
            book.cells << cell;
        }
        QVERIFY(book.save(book.path));
        NotebookEditor editor(kernelsDir(), ferry::test::ferryBinary());
        QVERIFY(editor.open(book.path));
        editor.show();
        QVERIFY(QTest::qWaitForWindowActive(&editor));
        editor.setCurrentIndex(1);
        editor.enterCommandMode();
        key(Qt::Key_J, Qt::ShiftModifier);
        key(Qt::Key_Down, Qt::ShiftModifier);
        QCOMPARE(editor.selectedIndexes(), (QList<int>{1, 2, 3}));
        QCOMPARE(editor.currentIndex(), 3);
        key(Qt::Key_D);
        key(Qt::Key_D);
        QCOMPARE(editor.cells().size(), 2);
        key(Qt::Key_Z);
        QCOMPARE(editor.cells().size(), 5);
        // A click chooses one cell; Shift+click, from it to the cell clicked.
        QTest::mouseClick(editor.cells().at(1), Qt::LeftButton, Qt::NoModifier, QPoint(4, 4));
        QCOMPARE(editor.selectedIndexes(), (QList<int>{1}));
        QTest::mouseClick(editor.cells().at(3), Qt::LeftButton, Qt::ShiftModifier, QPoint(4, 4));
        QCOMPARE(editor.selectedIndexes(), (QList<int>{1, 2, 3}));
        const auto job = editor.prepareJob(editor.selectedIndexes());
        QVERIFY2(job, job ? "" : qPrintable(job.error().toString()));
        QCOMPARE(job->script, folder + u"/notebook-jobs/pick.cells-2-4.py"_s);
        QCOMPARE(job->cells, (QStringList{book.cells.at(2).id, book.cells.at(3).id}));
        // Started from the workspace's root, as a local run is: the chosen cells, in the notebook's folder.
        const auto ran = ferry::test::runCommand(u"/usr/bin/python3"_s, {job->script}, m_dir.filePath(u"books"_s));
        QVERIFY2(ran.code == 0, ran.err.constData());
        QCOMPARE(ran.out, QByteArray("sum 6\n"));
        // A markdown cell alone is no job.
        QVERIFY(!editor.prepareJob({1}));
    }
};

FERRY_TEST_MAIN(TestNotebookEditor)
#include "tst_notebookeditor.moc"
