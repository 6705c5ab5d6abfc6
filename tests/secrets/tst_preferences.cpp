// The settings dialog and what the settings change, with the keychain of a real gnome-keyring
// (support/keyring.h): typed settings written and read back, the engine checked, the editors'
// tools and the trainer's threads applied, the keychain's names offered to the environment
// editor, and a value typed into a secret variable stored in the keychain, not the file.
#include "support/keyring.h"

#include "secrets/secretstore.h"
#include "targets/containerengine.h"
#include "training/training.h"
#include "ui/document/documentarea.h"
#include "ui/env/environmenteditor.h"
#include "ui/env/environmenteditors.h"
#include "ui/env/terminallauncher.h"
#include "ui/settings/hostspage.h"
#include "ui/settings/preferences.h"
#include "ui/settings/settingsdialog.h"
#include "ui/train/trainpanel.h"

#include <QApplication>
#include <QComboBox>
#include <QFile>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QProcess>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>

using namespace Qt::StringLiterals;
using namespace ferry;

class TestPreferences : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

private Q_SLOTS:
    void dialogWritesTypedSettings()
    {
        QSettings settings(m_dir.filePath(u"a.conf"_s), QSettings::IniFormat);
        {
            ui::SettingsDialog dialog(settings);
            QCOMPARE(dialog.pageTitles(), QStringList{u"General"_s});
            dialog.engineBox()->setEditText(u"no-such-engine"_s);
            // Said by the one check every engine passes (ContainerEngine::open).
            QVERIFY2(dialog.engineStatus()->text().contains(
                         u"'no-such-engine' is not a container engine Ferry runs: only docker or podman"_s),
                     qPrintable(dialog.engineStatus()->text()));
            dialog.terminalEdit()->setText(u"/usr/bin/xterm"_s);
            dialog.threadsBox()->setValue(1);
            dialog.apply();
        }
        QCOMPARE(targets::kContainerEngineSetting.get(settings), u"no-such-engine"_s);
        QCOMPARE(ui::kTerminalSetting.get(settings), u"/usr/bin/xterm"_s);
        QCOMPARE(run::kTrainerThreadsSetting.get(settings), 1);
        ui::SettingsDialog again(settings);
        QCOMPARE(again.engineBox()->currentText(), u"no-such-engine"_s);
        QCOMPARE(again.terminalEdit()->text(), u"/usr/bin/xterm"_s);
        QCOMPARE(again.threadsBox()->value(), 1);
        // Back to automatic: the first entry, stored as empty.
        again.engineBox()->setCurrentIndex(0);
        again.apply();
        QCOMPARE(targets::kContainerEngineSetting.get(settings), QString());
    }

    void hostsPageKeepsSshDestinations()
    {
        ui::HostsPage page({u"gpu-box"_s});
        QSignalSpy check(&page, &ui::HostsPage::checkRequested);
        for (const QString &bad : {u"two words"_s, u"-oProxyCommand=sh"_s, u"gpu-box"_s, u""_s}) {
            page.hostEdit()->setText(bad);
            QVERIFY2(!page.addButton()->isEnabled(), qPrintable(bad));
            QTest::keyClick(page.hostEdit(), Qt::Key_Return);
        }
        QCOMPARE(page.hosts(), QStringList{u"gpu-box"_s});
        page.hostEdit()->setText(u"me@10.0.0.5"_s);
        QVERIFY(page.addButton()->isEnabled());
        page.addButton()->click();
        QCOMPARE(page.hosts(), (QStringList{u"gpu-box"_s, u"me@10.0.0.5"_s}));
        QVERIFY(page.hostEdit()->text().isEmpty());
        page.checkButton()->click(); // the new one is selected
        QCOMPARE(check.size(), 1);
        QCOMPARE(check.front().front().toString(), u"me@10.0.0.5"_s);
        page.hostList()->setCurrentRow(0);
        page.removeButton()->click();
        QCOMPARE(page.hosts(), QStringList{u"me@10.0.0.5"_s});
    }

    // Each host's login key: shown for the selected host, edited there, kept per host.
    void hostsPageKeepsEachHostsKey()
    {
        ui::HostsPage page({u"gpu-box"_s, u"cluster"_s},
                           {{u"gpu-box"_s, targets::SshKeySetting{u"/keys/gpu"_s, u"GPU_PASS"_s}}},
                           {u"OTHER_PASS"_s, u"GPU_PASS"_s});
        QVERIFY(!page.keyBox()->isEnabled()); // no host selected
        page.hostList()->setCurrentRow(0);
        QVERIFY(page.keyBox()->isEnabled());
        QCOMPARE(page.identityEdit()->text(), u"/keys/gpu"_s);
        QCOMPARE(page.passphraseBox()->currentText(), u"GPU_PASS"_s);
        QVERIFY(page.passphraseBox()->findText(u"OTHER_PASS"_s) >= 0); // the keychain's names are offered
        page.hostList()->setCurrentRow(1);
        QVERIFY(page.identityEdit()->text().isEmpty());
        QVERIFY(page.passphraseBox()->currentText().isEmpty());
        QTest::keyClicks(page.identityEdit(), u"/keys/cluster"_s);
        page.passphraseBox()->setCurrentIndex(page.passphraseBox()->findText(u"OTHER_PASS"_s));
        QCOMPARE(page.keys().value(u"cluster"_s), (targets::SshKeySetting{u"/keys/cluster"_s, u"OTHER_PASS"_s}));
        page.hostList()->setCurrentRow(0);
        QCOMPARE(page.identityEdit()->text(), u"/keys/gpu"_s);
        QCOMPARE(page.keys().size(), 2);
        page.removeButton()->click();
        QCOMPARE(page.keys().keys(), QStringList{u"cluster"_s});

        // As the settings keep them (a host's name may hold what settings keys cannot).
        QSettings settings(m_dir.filePath(u"keys.conf"_s), QSettings::IniFormat);
        const targets::SshKeySetting key{u"/keys/a b"_s, u"PASS"_s};
        targets::setSshKeySetting(settings, u"me@10.0.0.5/x"_s, key);
        QCOMPARE(targets::sshKeySetting(settings, u"me@10.0.0.5/x"_s), key);
        QVERIFY(targets::sshKeySetting(settings, u"me@10.0.0.5"_s).isEmpty());
        targets::setSshKeySetting(settings, u"me@10.0.0.5/x"_s, {});
        QVERIFY(targets::sshKeySetting(settings, u"me@10.0.0.5/x"_s).isEmpty());
    }

    void settingsAndSecretsReachTheParts()
    {
        QSettings settings(m_dir.filePath(u"b.conf"_s), QSettings::IniFormat);
        run::kTrainerThreadsSetting.set(settings, 1);
        secrets::SecretStore store(settings);
        QVERIFY(store.writeNow(u"REGISTRY_TOKEN"_s, u"t0ken"_s));

        QFile file(m_dir.filePath(u"env.yml"_s));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("ferry: 1\nname: env\ndocker:\n  base_image: python:3.11-slim\n");
        file.close();
        ui::DocumentArea area;
        ui::EnvironmentEditors editors(&area);
        ui::TrainPanel train(nullptr); // no trainer: nothing is trained here
        ui::Preferences preferences(settings, &store, &editors, &train);
        QCOMPARE(train.config().threads, 1);
        ui::EnvironmentEditor *editor = editors.open(file.fileName());
        QVERIFY(editor);
        auto *credential = editor->findChild<QComboBox *>(u"registryCredential"_s);
        QVERIFY(credential);
        QVERIFY(credential->findText(u"REGISTRY_TOKEN"_s) >= 0);

        // A value offered for a secret variable goes to the keychain; the names follow.
        QSignalSpy finished(&store, &secrets::SecretStore::finished);
        Q_EMIT editors.secretValueOffered(u"API_KEY"_s, u"canary-4711"_s);
        QVERIFY(finished.wait(30000));
        QCOMPARE(ferry::test::keychainLookup(u"API_KEY"_s), u"canary-4711"_s);
        QTRY_VERIFY(credential->findText(u"API_KEY"_s) >= 0);
    }

    void aKeychainFailureIsAProblem()
    {
        QSettings settings(m_dir.filePath(u"c.conf"_s), QSettings::IniFormat);
        secrets::SecretStore store(settings);
        ui::DocumentArea area;
        ui::EnvironmentEditors editors(&area);
        ui::TrainPanel train(nullptr); // no trainer: nothing is trained here
        ui::Preferences preferences(settings, &store, &editors, &train);
        QSignalSpy problem(&preferences, &ui::Preferences::problem);
        Q_EMIT editors.secretValueOffered(u"not a name"_s, u"v"_s);
        QVERIFY(problem.wait(30000));
        const auto error = problem.front().front().value<ferry::Error>();
        QVERIFY2(error.message.startsWith(u"Keychain: cannot store secret not a name"_s), qPrintable(error.toString()));
    }
};

FERRY_KEYRING_TEST_MAIN_APP(QApplication, TestPreferences)

#include "tst_preferences.moc"
