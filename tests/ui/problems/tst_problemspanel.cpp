// The Problems panel keeps the structure core gives a problem: severity, source, file, line and
// hint; the same problem twice is one row that counts; a row with a file opens it at its line.
#include "support/testmain.h"
#include "ui/problems/fileatlineview.h"
#include "ui/problems/problemsmodel.h"
#include "ui/problems/problemspanel.h"

#include <QFile>
#include <QListView>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace ferry;
using namespace ferry::ui;

class TestProblemsPanel : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void theSameProblemTwiceIsOneRowThatCounts()
    {
        ProblemsPanel panel;
        QSignalSpy counts(&panel, &ProblemsPanel::countChanged);
        const Error error{u"cannot reach gpu1"_s, {}, 0, 0, u"check the host"_s};
        panel.report(u"Run"_s, error);
        panel.report(u"Train"_s, Error{u"no dataset"_s, {}, 0, 0, {}});
        panel.report(u"Run"_s, error);
        QCOMPARE(panel.count(), 2);
        QCOMPARE(panel.text(0), u"Run: cannot reach gpu1  ×2"_s); // moved to the top, counted
        QCOMPARE(panel.text(1), u"Train: no dataset"_s);
        const QModelIndex top = panel.model()->index(0);
        QCOMPARE(top.data(ProblemsModel::OccurrencesRole).toInt(), 2);
        QCOMPARE(top.data(ProblemsModel::HintRole).toString(), u"check the host"_s);
        QVERIFY(top.data(Qt::ToolTipRole).toString().contains(u"check the host"_s));
        QCOMPARE(counts.size(), 2); // a repeat is no new row
    }

    void severityAndPlaceSurviveToTheScreen()
    {
        ProblemsPanel panel;
        panel.report(u"Import"_s, Error{u"stray token"_s, u"/w/environment.yml"_s, 7, 3, u"remove it"_s},
                     Diagnostic::Severity::Warning);
        const QModelIndex row = panel.model()->index(0);
        QCOMPARE(row.data(ProblemsModel::SeverityRole).toInt(), int(Diagnostic::Severity::Warning));
        QCOMPARE(row.data(ProblemsModel::PathRole).toString(), u"/w/environment.yml"_s);
        QCOMPARE(row.data(ProblemsModel::LineRole).toInt(), 7);
        QCOMPARE(panel.text(0), u"Import: stray token (/w/environment.yml:7)"_s);
        // The same message at another line is another problem.
        panel.report(u"Import"_s, Error{u"stray token"_s, u"/w/environment.yml"_s, 9, 3, {}},
                     Diagnostic::Severity::Warning);
        QCOMPARE(panel.count(), 2);
    }

    void aSourcesListReplacesItsOwnOnly()
    {
        ProblemsPanel panel;
        panel.add(u"something went wrong"_s);
        const Diagnostics two{{Diagnostic::Severity::Error, Error{u"bad version"_s, u"/w/a.yml"_s, 2, 0, {}}},
                              {Diagnostic::Severity::Error, Error{u"bad name"_s, u"/w/a.yml"_s, 1, 0, {}}}};
        panel.setProblems(u"/w/a.yml"_s, two);
        QCOMPARE(panel.count(), 3);
        QVERIFY(panel.text(0).contains(u"bad version"_s)); // in the order given, above what was there
        panel.setProblems(u"/w/a.yml"_s, {two.first()});
        QCOMPARE(panel.count(), 2);
        panel.setProblems(u"/w/a.yml"_s, {});
        QCOMPARE(panel.count(), 1);
        QCOMPARE(panel.text(0), u"something went wrong"_s);
        panel.clear();
        QCOMPARE(panel.count(), 0);
    }

    void aRowWithAFileOpensItAtItsLine()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(u"environment.yml"_s);
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("name: demo\nversion: 1\npython:\n  version: '3.x'\n");
        file.close();

        ProblemsPanel panel;
        panel.add(u"no file here"_s);
        panel.report(u"/w"_s, Error{u"python.version is not a version"_s, path, 4, 12, {}});
        QSignalSpy open(&panel, &ProblemsPanel::openRequested);
        auto *list = panel.findChild<QListView *>(u"problemsList"_s);
        auto *button = panel.findChild<QPushButton *>(u"openProblem"_s);
        QVERIFY(list && button);
        list->setCurrentIndex(panel.model()->index(1)); // the one without a file
        QVERIFY(!button->isEnabled());
        list->setCurrentIndex(panel.model()->index(0));
        QVERIFY(button->isEnabled());
        button->click();
        QCOMPARE(open.size(), 1);
        QCOMPARE(open.first().at(0).toString(), path);
        QCOMPARE(open.first().at(1).toInt(), 4);

        FileAtLineView view;
        QVERIFY(view.show(path, 4));
        QCOMPARE(view.currentLine(), 4);
        QVERIFY(view.windowTitle().contains(u"line 4"_s));
        QVERIFY(view.text().contains(u"version: '3.x'"_s));
    }

    void aLinkIsNotFollowed()
    {
        QTemporaryDir dir;
        const QString secret = dir.filePath(u"secret"_s);
        QFile file(secret);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("TOKEN=hunter2\n");
        file.close();
        const QString link = dir.filePath(u"environment.yml"_s);
        QVERIFY(QFile::link(secret, link));
        FileAtLineView view;
        QVERIFY(!view.show(link, 1));
        QVERIFY(!view.text().contains(u"hunter2"_s));
    }
};

FERRY_TEST_MAIN(TestProblemsPanel)
#include "tst_problemspanel.moc"
