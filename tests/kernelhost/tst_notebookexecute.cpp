// `ferry notebook execute` against `jupyter nbconvert --to notebook --execute` (Debian's) on the same
// notebooks, cell by cell (tests/data/notebooks/compare_executed.py: the same output types, text,
// values, images, error names; ours passes nbformat.validate); a notebook that stops at its first
// error, one that is not nbformat 4, and a cell that never finishes.
#include "support/cli.h"
#include "support/kernel.h"
#include "support/testmain.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace ferry::test;

class TestNotebookExecute : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_ws;    // where ferry runs from (the kernels' workspace)
    QString m_books; // the notebooks, with numbers.txt beside them
    QString m_env;

    CliResult execute(const QStringList &args)
    {
        return runFerry(m_ws, QStringList{u"notebook"_s, u"execute"_s} + args + QStringList{u"--env"_s, m_env}, 180000);
    }
    QJsonArray cellsOf(const QString &path)
    {
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly))
            return {};
        return QJsonDocument::fromJson(file.readAll()).object().value(u"cells"_s).toArray();
    }
    bool noKernelsLeft()
    {
        return QDir(m_ws + u"/.ferry/kernels"_s).entryList(QDir::Dirs | QDir::NoDotAndDotDot).isEmpty();
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_ws = m_dir.filePath(u"ws"_s);
        m_books = m_dir.filePath(u"books"_s);
        QVERIFY(QDir().mkpath(m_ws) && QDir().mkpath(m_books));
        for (const QString &name : {u"explore.ipynb"_s, u"stops.ipynb"_s, u"numbers.txt"_s, u"nbformat3.ipynb"_s})
            QVERIFY(QFile::copy(QStringLiteral(FERRY_TEST_DATA "/notebooks/") + name, m_books + u'/' + name));
        m_env = ferry::test::writeDebianPythonEnvironment(m_dir.filePath(u"debian.yml"_s));
        QVERIFY(!m_env.isEmpty());
    }

    void matchesNbconvert()
    {
        const QString ours = m_dir.filePath(u"ferry.ipynb"_s);
        const CliResult ran = execute({m_books + u"/explore.ipynb"_s, u"--allow-errors"_s, u"-o"_s, ours});
        QVERIFY2(ran.exitCode == 0, qPrintable(ran.err));
        QVERIFY(noKernelsLeft());
        const CliResult theirs =
            runProgram(u"/usr/bin/jupyter-nbconvert"_s,
                       {u"--to"_s, u"notebook"_s, u"--execute"_s, u"--allow-errors"_s, u"--output"_s,
                        m_dir.filePath(u"nbconvert"_s), m_books + u"/explore.ipynb"_s},
                       m_ws);
        QVERIFY2(theirs.exitCode == 0, qPrintable(theirs.err));
        const CliResult compared =
            runProgram(u"/usr/bin/python3"_s, {QStringLiteral(FERRY_TEST_DATA "/notebooks/compare_executed.py"), ours,
                                               m_dir.filePath(u"nbconvert.ipynb"_s)});
        QVERIFY2(compared.exitCode == 0, qPrintable(compared.out + compared.err));
        QCOMPARE(compared.out.trimmed(), u"9 code cells alike"_s);
    }

    void stopsAtTheFirstError()
    {
        const QString ours = m_dir.filePath(u"stops-out.ipynb"_s);
        const CliResult ran = execute({m_books + u"/stops.ipynb"_s, u"-o"_s, ours});
        QCOMPARE(ran.exitCode, 1);
        QVERIFY2(ran.err.contains(u"cell 2 raised ZeroDivisionError: division by zero"_s), qPrintable(ran.err));
        const QJsonArray cells = cellsOf(ours);
        QCOMPARE(cells.size(), 3);
        QCOMPARE(cells[0].toObject().value(u"outputs"_s).toArray()[0].toObject().value(u"text"_s).toString(),
                 u"first\n"_s);
        QCOMPARE(cells[1].toObject().value(u"outputs"_s).toArray()[0].toObject().value(u"ename"_s).toString(),
                 u"ZeroDivisionError"_s);
        QVERIFY(cells[2].toObject().value(u"outputs"_s).toArray().isEmpty());
        QVERIFY(cells[2].toObject().value(u"execution_count"_s).isNull());
        QVERIFY(noKernelsLeft());
    }

    void refusesWhatIsNotNbformat4()
    {
        const QString ours = m_dir.filePath(u"old-out.ipynb"_s);
        const CliResult ran = execute({m_books + u"/nbformat3.ipynb"_s, u"-o"_s, ours});
        QCOMPARE(ran.exitCode, 1);
        QVERIFY2(ran.err.contains(u"nbformat 3"_s), qPrintable(ran.err));
        QVERIFY(!QFileInfo::exists(ours));
        QVERIFY(noKernelsLeft());
    }

    void interruptsACellPastItsTimeout()
    {
        const QString book = m_dir.filePath(u"sleeps.ipynb"_s);
        QFile file(book);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(R"JSON({"nbformat": 4, "nbformat_minor": 4, "metadata": {}, "cells": [
            {"cell_type": "code", "metadata": {}, "execution_count": null, "outputs": [], "source": "print('going')"},
            {"cell_type": "code", "metadata": {}, "execution_count": null, "outputs": [], "source": "import time\ntime.sleep(600)"},
            {"cell_type": "code", "metadata": {}, "execution_count": null, "outputs": [], "source": "print('never')"}]})JSON");
        file.close();
        const CliResult ran = execute({book, u"--timeout"_s, u"2"_s, u"-o"_s, m_dir.filePath(u"sleeps-out.ipynb"_s)});
        QCOMPARE(ran.exitCode, 1);
        QVERIFY2(ran.err.contains(u"cell 2: the cell did not finish within 2 s: it was interrupted"_s),
                 qPrintable(ran.err));
        const QJsonArray cells = cellsOf(m_dir.filePath(u"sleeps-out.ipynb"_s));
        QCOMPARE(cells[0].toObject().value(u"outputs"_s).toArray().size(), 1);
        QVERIFY(cells[2].toObject().value(u"outputs"_s).toArray().isEmpty());
        QVERIFY(noKernelsLeft());
    }
};

FERRY_TEST_GUILESS_MAIN(TestNotebookExecute)
#include "tst_notebookexecute.moc"
