// Review L15 in the window: the launch dialog shows a check box, unchecked, naming the run
// arguments of the chosen environment that undo the container's isolation; only a click puts
// the permission into the run spec, and choosing another environment takes it back.
#include "support/testmain.h"
#include "ui/launch/launchdialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace ferry;

class TestLaunchRunArguments : public QObject {
    Q_OBJECT

    QTemporaryDir m_ws;

    void write(const QString &name, const QByteArray &text)
    {
        QDir().mkpath(QFileInfo(m_ws.filePath(name)).absolutePath());
        QFile f(m_ws.filePath(name));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(text);
    }

private Q_SLOTS:
    void onlyAClickAllowsThem()
    {
        write(u"train.py"_s, "print('hi')\n");
        write(u"environments/cloned.yml"_s,
              "ferry: 1\nname: cloned\nversion: \"1\"\ndocker:\n  base_image: python:3.11\n"
              "  run_arguments: [--privileged, -v, \"/:/host\"]\n");
        write(u"environments/plain.yml"_s, "ferry: 1\nname: plain\nversion: \"1\"\ndocker:\n  base_image: python:3.11\n"
                                           "  run_arguments: [--shm-size=2g]\n");
        QSettings settings(m_ws.filePath(u"settings.ini"_s), QSettings::IniFormat);
        ui::LaunchDialog dialog(settings, m_ws.path());
        dialog.setScript(m_ws.filePath(u"train.py"_s));
        auto *environment = dialog.findChild<QComboBox *>(u"environment"_s);
        auto *allow = dialog.findChild<QCheckBox *>(u"allowRunArguments"_s);
        QVERIFY(environment && allow);

        environment->setCurrentIndex(environment->findData(m_ws.filePath(u"environments/cloned.yml"_s)));
        QVERIFY(!allow->isHidden());
        QVERIFY(!allow->isChecked());
        QVERIFY2(allow->text().contains(u"--privileged"_s) && allow->text().contains(u"-v /:/host"_s),
                 qPrintable(allow->text()));
        QVERIFY(!dialog.spec().target.options.contains(u"allowRunArguments"_s));
        allow->setChecked(true);
        QVERIFY(dialog.spec().target.options.value(u"allowRunArguments"_s).toBool());

        environment->setCurrentIndex(environment->findData(m_ws.filePath(u"environments/plain.yml"_s)));
        QVERIFY(allow->isHidden());
        QVERIFY(!dialog.spec().target.options.contains(u"allowRunArguments"_s));
        environment->setCurrentIndex(environment->findData(m_ws.filePath(u"environments/cloned.yml"_s)));
        QVERIFY(!allow->isChecked()); // the earlier click is not carried back
    }
};

FERRY_TEST_MAIN(TestLaunchRunArguments)
#include "tst_launchrunarguments.moc"
