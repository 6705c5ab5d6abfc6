// The notebook import dialog a dropped .ipynb opens: the proposal shows before anything is
// written, a constant can be left out, and Convert writes a script Python compiles.
#include "support/testmain.h"
#include "ui/notebook/notebookimportdialog.h"

#include <QDialogButtonBox>
#include <QFile>
#include <QLineEdit>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using ferry::ui::NotebookImportDialog;

namespace {

QString fixture(const QString &name)
{
    return QStringLiteral(FERRY_TEST_DATA) + u"/notebooks/"_s + name;
}

QPushButton *convertButton(const NotebookImportDialog &dialog)
{
    const auto *box = dialog.findChild<QDialogButtonBox *>();
    for (QAbstractButton *button : box->buttons()) {
        if (box->buttonRole(button) == QDialogButtonBox::AcceptRole)
            return qobject_cast<QPushButton *>(button);
    }
    return nullptr;
}

} // namespace

class TestNotebookImportDialog : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void proposalThenWrite()
    {
        QTemporaryDir dir;
        const QString output =
            NotebookImportDialog::defaultOutputPath(fixture(u"linear_regression.ipynb"_s), dir.path());
        QCOMPARE(output, dir.filePath(u"linear_regression.py"_s));
        NotebookImportDialog dialog(fixture(u"linear_regression.ipynb"_s), output);
        QVERIFY(!convertButton(dialog)->isEnabled()); // nothing to convert before the notebook is read
        QSignalSpy ready(&dialog, &NotebookImportDialog::ready);
        QVERIFY(ready.wait(20000));
        QVERIFY(dialog.isReady());
        QVERIFY(convertButton(dialog)->isEnabled());
        QTableWidget *table = dialog.hyperparameterTable();
        QCOMPARE(table->rowCount(), 8);
        QCOMPARE(table->item(0, 0)->text(), u"lr"_s);
        QCOMPARE(table->item(0, 2)->text(), u"0.05"_s);
        QCOMPARE(table->item(3, 0)->text(), u"seed"_s);
        QVERIFY(dialog.scriptText().contains(u"\"--seed\""_s));
        QVERIFY(!QFile::exists(output)); // shown, not written

        table->item(3, 0)->setCheckState(Qt::Unchecked); // "seed" stays a plain constant
        QVERIFY(!dialog.scriptText().contains(u"\"--seed\""_s));
        QVERIFY(dialog.scriptText().contains(u"\"--lr\""_s));

        const auto written = dialog.write();
        QVERIFY2(written, written ? "" : qPrintable(written.error().toString()));
        QCOMPARE(*written, output);
        QFile file(output);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QString script = QString::fromUtf8(file.readAll());
        QVERIFY(!script.contains(u"\"--seed\""_s));
        QVERIFY(script.contains(u"seed: int = 7"_s));
        QProcess python;
        python.start(u"/usr/bin/python3"_s, {u"-m"_s, u"py_compile"_s, output});
        QVERIFY(python.waitForFinished(60000));
        QCOMPARE(python.exitCode(), 0);
    }

    void refusesWhatItCannotConvert_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("message");
        QTest::newRow("nbformat 3") << u"nbformat3.ipynb"_s << u"nbformat 3 notebooks are not supported"_s;
        QTest::newRow("R") << u"r_kernel.ipynb"_s << u"the notebook's language is R"_s;
        QTest::newRow("missing") << u"nope.ipynb"_s << u"no such notebook"_s;
    }
    void refusesWhatItCannotConvert()
    {
        QFETCH(QString, name);
        QFETCH(QString, message);
        QTemporaryDir dir;
        NotebookImportDialog dialog(fixture(name), dir.filePath(u"out.py"_s));
        QSignalSpy failed(&dialog, &NotebookImportDialog::failed);
        QVERIFY(failed.wait(20000));
        const auto error = failed.first().first().value<ferry::Error>();
        QVERIFY2(error.toString().contains(message), qPrintable(error.toString()));
        QVERIFY(!dialog.isReady());
        QVERIFY(!convertButton(dialog)->isEnabled());
        QVERIFY(!dialog.write());
        QVERIFY(!QFile::exists(dir.filePath(u"out.py"_s)));
    }
};

FERRY_TEST_MAIN(TestNotebookImportDialog)
#include "tst_notebookimportdialog.moc"
