// M2 (review security-2026-12-01): the window's delete of an SSH run asks what happens to its
// folder on the host (data copies, model). Runs made with `ferry run --target ssh:...` on the
// real test sshd; RunActions::remove answers the question: "here and on the host" removes the
// host's folder, "keep it on the host" leaves it, Cancel deletes nothing.
#include "store/runstore.h"
#include "support/testenv.h"
#include "support/testmain.h"
#include "ui/runs/runactions.h"

#include "support/remote.h"
#include "support/targets.h"

#include <QApplication>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QTemporaryDir>
#include <QTimer>

using namespace Qt::StringLiterals;
using namespace ferry;
using ferry::test::ferryCli;
using ferry::test::kHost;
using ferry::test::SshSandbox;

namespace {

QString finishedRun(const SshSandbox &sandbox, const QTemporaryDir &ws)
{
    QFile script(ws.filePath(u"hello.py"_s));
    if (!script.exists() && script.open(QIODevice::WriteOnly)) {
        script.write("print('hello')\n");
        script.close();
    }
    const auto ran = ferryCli(sandbox, ws.path(),
                              {u"run"_s, u"hello.py"_s, u"--target"_s, u"ssh:"_s + kHost, u"--remote-dir"_s,
                               ws.filePath(u"host"_s), u"--follow"_s});
    return ran.exitCode == 0 ? ran.out.section(u'\n', 0, 0).trimmed() : QString();
}

// Answers the next question with the button whose text starts with `answer` (empty: Cancel).
void answerNextQuestion(const QString &answer)
{
    QTimer::singleShot(0, [answer] {
        auto *box = qobject_cast<QMessageBox *>(QApplication::activeModalWidget());
        if (!box)
            return answerNextQuestion(answer); // not shown yet
        for (QAbstractButton *button : box->buttons()) {
            if (answer.isEmpty() ? box->buttonRole(button) == QMessageBox::RejectRole
                                 : button->text().startsWith(answer)) {
                button->click();
                return;
            }
        }
    });
}

} // namespace

class TestRemoteDeleteWindow : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void deleteAsksAboutTheHostFolder()
    {
        const SshSandbox sandbox;
        QTemporaryDir ws;
        const QString cancelled = finishedRun(sandbox, ws);
        const QString kept = finishedRun(sandbox, ws);
        const QString removed = finishedRun(sandbox, ws);
        QVERIFY(!cancelled.isEmpty() && !kept.isEmpty() && !removed.isEmpty());
        // The window's process reaches the host as the CLI did (the sandbox's settings).
        const QProcessEnvironment env = sandbox.environment();
        for (const QString &name : {u"FERRY_SSH_CONFIG"_s, u"XDG_CONFIG_HOME"_s, u"XDG_RUNTIME_DIR"_s})
            qputenv(name.toUtf8().constData(), env.value(name).toUtf8());

        auto store = run::RunStore::open(run::RunStore::pathInWorkspace(ws.path()));
        QVERIFY(store);
        QSettings settings(ws.filePath(u"settings.ini"_s), QSettings::IniFormat);
        QWidget window;
        ui::RunActions actions(settings, ferry::test::ferryBinary(), &window);
        actions.setWorkspace(store->get(), ws.path(), ws.filePath(u".ferry/runs"_s));
        QStringList problems;
        connect(&actions, &ui::RunActions::problem, this, [&](const ferry::Error &p) { problems << p.toString(); });
        const auto hostFolder = [&](const QString &id) { return ws.filePath(u"host/"_s + id); };
        const auto stored = [&](const QString &id) { return (*store)->run(id).has_value(); };

        answerNextQuestion({});
        actions.remove(cancelled);
        QVERIFY(stored(cancelled));
        QVERIFY(QFile::exists(hostFolder(cancelled) + u"/log"_s));

        answerNextQuestion(u"Delete here, keep"_s);
        actions.remove(kept);
        QVERIFY(QTest::qWaitFor([&] { return !stored(kept); }, 60000)); // the store's writer deletes it
        QVERIFY(QFile::exists(hostFolder(kept) + u"/log"_s));

        answerNextQuestion(u"Delete here and on the host"_s);
        actions.remove(removed);
        QVERIFY(QTest::qWaitFor([&] { return !stored(removed); }, 60000));
        QVERIFY2(!QFileInfo::exists(hostFolder(removed)), "the folder on the host is gone");
        QVERIFY(QFile::exists(hostFolder(cancelled) + u"/log"_s));
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(u'\n')));
    }
};

FERRY_TEST_MAIN(TestRemoteDeleteWindow)
#include "tst_remotedeletewindow.moc"
