// The notebook's hidden state made visible, with a real ipykernel (Debian's): a cell run again
// marks the cells that read what it binds stale and Run Stale Cells (Shift+R) runs them; the
// variables pane lists the kernel's variables after each cell; the queries leave no trace in the
// user's namespace; Tab completes from the kernel (code points converted, a stale reply dropped)
// and Shift+Tab shows what the kernel says of a name.
#include "ui/notebook/cellwidget.h"
#include "ui/notebook/codeassist.h"
#include "ui/notebook/codeeditor.h"
#include "ui/notebook/inspectpopup.h"
#include "ui/notebook/namespacewatcher.h"
#include "ui/notebook/notebookeditor.h"
#include "ui/notebook/outputarea.h"
#include "ui/notebook/variablespane.h"

#include "support/kernel.h"
#include "support/testmain.h"

#include <QAbstractItemView>
#include <QAction>
#include <QApplication>
#include <QCompleter>
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using ferry::ui::CellWidget;
using ferry::ui::NotebookEditor;

namespace {

QString streamsOf(const CellWidget *cell)
{
    QString text;
    for (const QJsonValue &o : cell->outputArea()->outputs()) {
        const QJsonObject output = o.toObject();
        if (output.value(u"output_type"_s).toString() == u"stream"_s)
            text += ferry::ui::OutputArea::plainText(output.value(u"text"_s).toString());
        else if (output.value(u"output_type"_s).toString() == u"error"_s)
            text += output.value(u"ename"_s).toString() + u'\n';
    }
    return text;
}

QByteArray notebookOf(const QStringList &sources)
{
    QJsonArray cells;
    int n = 0;
    for (const QString &source : sources) {
        cells.append(QJsonObject{{u"id"_s, u"c%1"_s.arg(n++)},
                                 {u"cell_type"_s, u"code"_s},
                                 {u"source"_s, source},
                                 {u"metadata"_s, QJsonObject()},
                                 {u"outputs"_s, QJsonArray()},
                                 {u"execution_count"_s, QJsonValue::Null}});
    }
    return QJsonDocument(
               QJsonObject{
                   {u"nbformat"_s, 4}, {u"nbformat_minor"_s, 5}, {u"metadata"_s, QJsonObject()}, {u"cells"_s, cells}})
        .toJson();
}

} // namespace

class TestNotebookState : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    std::unique_ptr<NotebookEditor> m_editor;

    QString kernelsDir() const { return m_dir.filePath(u"ws/.ferry/kernels"_s); }
    CellWidget *cell(int i) const { return m_editor->cells().at(i); }
    void start(int i, const QString &source)
    {
        cell(i)->editor()->setPlainText(source);
        m_editor->setCurrentIndex(i);
        m_editor->runCurrent();
    }
    // Runs cell `i` with `source`; true once it ended well. (A fast cell's reply used to come
    // before its execute_input, which comes through the journal: the cell stayed "[*]".)
    bool run(int i, const QString &source)
    {
        start(i, source);
        if (QTest::qWaitFor([&] { return cell(i)->run() == CellWidget::Run::Done; }, 60000))
            return true;
        qWarning("cell %d did not end: state %d, kernel %s, output %s", i, int(cell(i)->run()),
                 qPrintable(m_editor->kernel().stateText()), qPrintable(streamsOf(cell(i))));
        return false;
    }
    // The scratch cell's editor holding `text`, the cursor at its end, focused.
    ferry::ui::CodeEditor *typed(const QString &text)
    {
        ferry::ui::CodeEditor *editor = cell(4)->editor();
        m_editor->setCurrentIndex(4);
        m_editor->enterEditMode();
        editor->setPlainText(text);
        editor->moveCursor(QTextCursor::End);
        return editor;
    }
    QString variableType(const QString &name) const
    {
        const auto *model = m_editor->variablesPane()->model();
        const int row = model->row(name);
        return row < 0 ? QString() : model->variables().at(row).type;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        const QString books = m_dir.filePath(u"books"_s);
        QVERIFY(QDir().mkpath(books));
        const QString book = books + u"/state.ipynb"_s;
        QFile file(book);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(notebookOf({u"x = 1"_s, u"print(x)"_s, u"items = [1, 2, 3]"_s, u"import os"_s, u""_s}));
        file.close();
        m_editor = std::make_unique<NotebookEditor>(kernelsDir(), ferry::test::ferryBinary());
        m_editor->resize(1000, 700);
        QVERIFY(m_editor->open(book));
        m_editor->setKernelChoice(ferry::test::writeDebianPythonEnvironment(books + u"/debian.yml"_s), u"local"_s);
        m_editor->show();
        QVERIFY(QTest::qWaitForWindowActive(m_editor.get()));
    }

    void cleanupTestCase()
    {
        m_editor.reset();
        QCOMPARE(ferry::test::stopKernelsIn(kernelsDir()), QStringList());
    }

    // x bound again above `print(x)`: the cell that read it is marked, its prompt says which name;
    // Shift+R in command mode runs it, and it prints the new value, unmarked.
    void aCellThatBindsAgainMakesItsReaderStale()
    {
        QVERIFY(run(0, u"x = 1"_s));
        QVERIFY(run(1, u"print(x)"_s));
        QCOMPARE(streamsOf(cell(1)), u"1\n"_s);
        QVERIFY(cell(1)->staleNames().isEmpty());
        QVERIFY(run(0, u"x = 2"_s));
        QTRY_COMPARE_WITH_TIMEOUT(cell(1)->staleNames(), QStringList{u"x"_s}, 10000);
        QVERIFY(cell(0)->staleNames().isEmpty());
        QVERIFY(cell(2)->staleNames().isEmpty());
        const auto *prompt = cell(1)->findChild<QWidget *>(u"prompt"_s);
        QVERIFY(prompt->toolTip().contains(u"stale: x changed"_s));
        QCOMPARE(m_editor->namespaceWatcher().cellsToRun(), QStringList{cell(1)->id()});

        m_editor->enterCommandMode();
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_R, Qt::ShiftModifier);
        QTRY_COMPARE_WITH_TIMEOUT(streamsOf(cell(1)), u"2\n"_s, 30000);
        QTRY_VERIFY_WITH_TIMEOUT(cell(1)->staleNames().isEmpty(), 10000);
        QCOMPARE(cell(1)->kind(), ferry::notebook::CellKind::Code); // Shift+R is not R (raw)
    }

    // The pane (toggled from the toolbar) lists what the kernel holds after each cell: x an int,
    // items a list of 3, also when the kernel was busy with the next cell (the query waits behind
    // it; two cells in a row ask twice at most); after `del x`, no x.
    void theVariablesPaneFollowsTheKernel()
    {
        auto *toggle = m_editor->findChild<QAction *>(u"showVariables"_s);
        QVERIFY(toggle);
        toggle->trigger();
        QVERIFY(m_editor->variablesPane()->isVisible());
        QTRY_COMPARE_WITH_TIMEOUT(variableType(u"x"_s), u"int"_s, 10000); // listed when shown
        QTRY_VERIFY_WITH_TIMEOUT(!m_editor->namespaceWatcher().pending(), 10000);
        const int sent = m_editor->namespaceWatcher().queriesSent();
        start(2, u"items = [1, 2, 3]"_s);
        start(4, u"import time\ntime.sleep(0.5)\nlate = len(items)"_s);
        QTRY_COMPARE_WITH_TIMEOUT(variableType(u"late"_s), u"int"_s, 10000);
        QCOMPARE(variableType(u"items"_s), u"list"_s);
        QTRY_VERIFY_WITH_TIMEOUT(!m_editor->namespaceWatcher().pending(), 10000);
        QVERIFY2(m_editor->namespaceWatcher().queriesSent() - sent <= 2,
                 qPrintable(QString::number(m_editor->namespaceWatcher().queriesSent() - sent)));
        const auto *model = m_editor->variablesPane()->model();
        QCOMPARE(model->variables().at(model->row(u"items"_s)).length, qint64(3));
        QCOMPARE(ferry::ui::KernelVariablesModel::shapeText(model->variables().at(model->row(u"items"_s))), u"3"_s);
        QCOMPARE(model->row(u"os"_s), -1); // modules are no variables
        QVERIFY(run(4, u"del x"_s));
        QTRY_COMPARE_WITH_TIMEOUT(model->row(u"x"_s), -1, 10000);
        QVERIFY(model->row(u"items"_s) >= 0);
        QTRY_COMPARE_WITH_TIMEOUT(cell(1)->staleNames(), QStringList{u"x"_s}, 10000); // `del x` changed x
    }

    // The queries (a dozen by now) left nothing behind: the user's namespace holds what the cells
    // bound and IPython's own names, nothing else, and no query counted as an execution.
    void theQueriesLeaveNoTrace()
    {
        const int sent = m_editor->namespaceWatcher().queriesSent();
        QVERIFY(run(4, u"import re"_s));
        const int count = cell(4)->executionCount();
        // The query after the cell ran in the kernel.
        QTRY_VERIFY_WITH_TIMEOUT(!m_editor->namespaceWatcher().pending(), 10000);
        QVERIFY(m_editor->namespaceWatcher().queriesSent() > sent);
        QVERIFY(run(4, u"print([n for n in dir() if not re.fullmatch('_i*[0-9]*|_+|__[a-z]+__|_[dio]h', n)])"_s));
        QCOMPARE(streamsOf(cell(4)),
                 u"['In', 'Out', 'exit', 'get_ipython', 'items', 'late', 'quit', 're', 'time']\n"_s);
        QCOMPARE(cell(4)->executionCount(), count + 1);
    }

    // Tab after a word: one match is inserted, several show in a popup that narrows as you type;
    // positions count code points, as the protocol does (two emoji before the word).
    void completionFromTheKernel()
    {
        ferry::ui::CodeEditor *editor = typed(u"# \U0001F600\U0001F600\nimpor"_s);
        QTest::keyClick(editor, Qt::Key_Tab);
        QTRY_COMPARE_WITH_TIMEOUT(editor->toPlainText(), u"# \U0001F600\U0001F600\nimport"_s, 10000);

        QVERIFY(run(3, u"import os"_s));
        editor = typed(u"os.pa"_s);
        QAbstractItemView *popup = m_editor->codeAssist().completer()->popup();
        QTest::keyClick(editor, Qt::Key_Tab);
        QTRY_VERIFY_WITH_TIMEOUT(popup->isVisible(), 10000);
        QVERIFY(m_editor->codeAssist().completer()->completionCount() >= 2);
        QTest::keyClick(popup, Qt::Key_T); // os.pat: path first
        QCOMPARE(editor->toPlainText(), u"os.pat"_s);
        QVERIFY(popup->isVisible());
        QCOMPARE(popup->currentIndex().data().toString(), u"path"_s);
        QTest::keyClick(popup, Qt::Key_Return);
        QCOMPARE(editor->toPlainText(), u"os.path"_s);
        QVERIFY(!popup->isVisible());
    }

    // A reply for a text that changed since the request (typed on) is dropped: nothing inserted.
    void aStaleCompletionIsDropped()
    {
        ferry::ui::CodeEditor *editor = typed(u"impor"_s);
        QSignalSpy dropped(&m_editor->codeAssist(), &ferry::ui::CodeAssist::replyDropped);
        QTest::keyClick(editor, Qt::Key_Tab);
        QTest::keyClick(editor, Qt::Key_X); // before the kernel answers
        QVERIFY(dropped.wait(10000));
        QTest::qWait(100);
        QCOMPARE(editor->toPlainText(), u"imporx"_s);
        QVERIFY(!m_editor->codeAssist().completer()->popup()->isVisible());
    }

    // Shift+Tab: the kernel's help on the name, plain text; the next key closes it.
    void inspectShowsTheDocstring()
    {
        ferry::ui::CodeEditor *editor = typed(u"len("_s);
        QTest::keyClick(editor, Qt::Key_Backtab, Qt::ShiftModifier);
        ferry::ui::InspectPopup *popup = m_editor->codeAssist().inspectPopup();
        QTRY_VERIFY_WITH_TIMEOUT(popup->isVisible(), 10000);
        QVERIFY2(popup->text().contains(u"Return the number of items in a container."_s), qPrintable(popup->text()));
        QVERIFY(!popup->text().contains(u'\x1b'));
        QTest::keyClick(editor, Qt::Key_Escape);
        QVERIFY(!popup->isVisible());
        QVERIFY(m_editor->editing()); // Esc closed the help, not edit mode
    }
};

FERRY_TEST_MAIN(TestNotebookState)
#include "tst_notebookstate.moc"
