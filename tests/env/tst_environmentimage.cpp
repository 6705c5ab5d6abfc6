// The editor's image actions against the real Docker engine (the `docker` fixture): a build
// streams its log and progress and ends with the image present; a cancelled build stops; the
// devcontainer starts from the saved file.
#include "env/spechash.h"
#include "support/testmain.h"
#include "targets/containerengine.h"
#include "targets/devcontainer.h"
#include "ui/env/environmentdocument.h"
#include "ui/env/environmenteditor.h"
#include "ui/env/imagepanel.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace ferry::ui;

namespace {

QByteArray environmentText(const QString &name, const QString &steps)
{
    return QStringLiteral("ferry: 1\nname: %1\nversion: \"1\"\ndocker:\n  base_image: ferry-base:bookworm\n"
                          "  steps: |\n    %2\npython:\n  user_managed: true\n  interpreter: python3\n")
        .arg(name, steps)
        .toUtf8();
}

} // namespace

class TestEnvironmentImage : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QStringList m_images; // made here: removed at the end

    std::unique_ptr<EnvironmentEditor> editorFor(const QString &name, const QString &steps)
    {
        const QString path = m_dir.filePath(u"environments/"_s + name + u".yml"_s);
        QDir().mkpath(QFileInfo(path).absolutePath());
        QFile file(path);
        if (!file.open(QIODevice::WriteOnly) || file.write(environmentText(name, steps)) < 0)
            return nullptr;
        file.close();
        auto editor = std::make_unique<EnvironmentEditor>();
        editor->setWorkspaceRoot(m_dir.path());
        editor->setConfirm([](const QString &) { return true; });
        editor->open(path);
        editor->imagePanel()->setEngineProgram(u"docker"_s);
        m_images << ferry::env::imageReference(editor->document()->environment());
        return editor;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QProcess status;
        status.start(u"bash"_s, {QStringLiteral(FERRY_SOURCE_DIR "/tests/services/docker.sh"), u"status"_s});
        QVERIFY(status.waitForFinished(30000));
        QVERIFY2(status.exitCode() == 0, "no Docker engine: run the docker_service_start test first");
        qputenv("DOCKER_HOST", status.readAllStandardOutput().trimmed());
        qputenv("DOCKER_BUILDKIT", "0"); // the classic builder: "Step n/m" is the progress
        QVERIFY2(ferry::targets::ContainerEngine::open(u"docker"_s).value().imageExists(u"ferry-base:bookworm"_s),
                 "no base image: run 'tests/services/docker.sh base-image'");
    }

    void buildStreamsAndFinishes()
    {
        const QString marker = QString::number(QDateTime::currentMSecsSinceEpoch());
        auto editor = editorFor(u"editor-build"_s, u"RUN echo built-"_s + marker + u" > /built.txt"_s);
        QVERIFY(editor);
        ImagePanel *panel = editor->imagePanel();
        QSignalSpy checked(panel, &ImagePanel::imageChecked);
        QVERIFY(checked.wait(30000));
        QCOMPARE(checked.last().at(0).toBool(), false);
        QVERIFY2(panel->imageStatus().contains(u"not built yet"_s), qPrintable(panel->imageStatus()));
        auto *build = editor->findChild<QPushButton *>(u"buildImage"_s);
        QVERIFY(build->isEnabled());

        QSignalSpy finished(panel, &ImagePanel::finished);
        QTest::mouseClick(build, Qt::LeftButton);
        QVERIFY(panel->isBusy());
        QVERIFY(!build->isEnabled());
        QVERIFY(editor->findChild<QPushButton *>(u"cancelBuild"_s)->isEnabled());
        QVERIFY(finished.wait(300000));
        QVERIFY2(finished.first().at(0).toBool(), qPrintable(finished.first().at(1).toString() + panel->log()));
        QVERIFY2(panel->log().contains(u"Step 1/"_s), qPrintable(panel->log()));
        QVERIFY(panel->log().contains(u"built-"_s + marker));
        auto *progress = editor->findChild<QProgressBar *>();
        QCOMPARE(progress->value(), progress->maximum());
        QVERIFY(checked.wait(30000));
        QTRY_VERIFY(panel->imageStatus().contains(u"built, ready to run"_s));
        QVERIFY(ferry::targets::ContainerEngine::open(u"docker"_s).value().imageExists(m_images.last()));
        QVERIFY(build->isEnabled());
    }

    void cancelStopsTheBuild()
    {
        auto editor = editorFor(u"editor-cancel"_s, u"RUN sleep 120"_s);
        QVERIFY(editor);
        ImagePanel *panel = editor->imagePanel();
        QSignalSpy finished(panel, &ImagePanel::finished);
        QSignalSpy problems(panel, &ImagePanel::problem);
        panel->build();
        QTRY_VERIFY_WITH_TIMEOUT(panel->log().contains(u"sleep 120"_s), 120000);
        QElapsedTimer timer;
        timer.start();
        QTest::mouseClick(editor->findChild<QPushButton *>(u"cancelBuild"_s), Qt::LeftButton);
        QVERIFY(finished.wait(60000));
        QVERIFY(timer.elapsed() < 60000);
        QCOMPARE(finished.first().at(0).toBool(), false);
        QCOMPARE(editor->findChild<QProgressBar *>()->format(), u"Cancelled"_s);
        QVERIFY(!ferry::targets::ContainerEngine::open(u"docker"_s).value().imageExists(m_images.last()));
        QCOMPARE(problems.size(), 0); // the user's own cancel is no problem
    }

    // A step that fails ends the build as failed, and the reason reaches the Problems panel as
    // an Error (the window lists what the image panel reports).
    void aFailedBuildIsAProblem()
    {
        auto editor = editorFor(u"editor-fails"_s, u"RUN echo about-to-fail && exit 3"_s);
        QVERIFY(editor);
        ImagePanel *panel = editor->imagePanel();
        QSignalSpy finished(panel, &ImagePanel::finished);
        QSignalSpy problems(panel, &ImagePanel::problem);
        panel->build();
        QVERIFY(finished.wait(300000));
        QCOMPARE(finished.first().at(0).toBool(), false);
        QVERIFY2(panel->log().contains(u"about-to-fail"_s), qPrintable(panel->log()));
        QCOMPARE(editor->findChild<QProgressBar *>()->format(), u"Failed"_s);
        QCOMPARE(problems.size(), 1);
        const auto error = problems.first().at(0).value<ferry::Error>();
        QVERIFY2(error.message.startsWith(u"Image: "_s), qPrintable(error.toString()));
        QVERIFY(!ferry::targets::ContainerEngine::open(u"docker"_s).value().imageExists(m_images.last()));
    }

    void devcontainerStartsFromTheFile()
    {
        auto editor = editorFor(u"editor-dev"_s, u"RUN echo dev"_s);
        QVERIFY(editor);
        ImagePanel *panel = editor->imagePanel();
        QSignalSpy finished(panel, &ImagePanel::finished);
        auto *start = editor->findChild<QPushButton *>(u"startDevcontainer"_s);
        QTRY_VERIFY(start->isEnabled());
        QTest::mouseClick(start, Qt::LeftButton);
        QVERIFY(finished.wait(600000));
        QVERIFY2(finished.first().at(0).toBool(), qPrintable(finished.first().at(1).toString() + panel->log()));
        QVERIFY2(panel->log().contains(u"Devcontainer "_s), qPrintable(panel->log()));
        QVERIFY(QFileInfo::exists(m_dir.filePath(u".devcontainer/ferry-editor-dev/devcontainer.json"_s)));
        m_images << m_images.last() + u"-dev"_s;
        const auto down = ferry::targets::devcontainerDown(ferry::targets::ContainerEngine::open(u"docker"_s).value(),
                                                           editor->document()->path(), m_dir.path());
        QVERIFY2(down && !down->isEmpty(), down ? "nothing to remove" : qPrintable(down.error().toString()));
    }

    void cleanupTestCase()
    {
        const auto engine = ferry::targets::ContainerEngine::open(u"docker"_s).value();
        for (const QString &image : std::as_const(m_images))
            engine.run({u"rmi"_s, u"-f"_s, image});
    }
};

FERRY_TEST_MAIN(TestEnvironmentImage)
#include "tst_environmentimage.moc"
