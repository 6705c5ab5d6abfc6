// The settings page for secrets against a real gnome-keyring (support/keyring.h): storing and
// deleting go through the keychain without blocking the window, the value leaves the form once
// stored, and a refusal shows inline.
#include "support/keyring.h"

#include "ui/secrets/secretspage.h"

#include <QApplication>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QProcess>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>

using namespace Qt::StringLiterals;
using ferry::secrets::SecretStore;
using ferry::ui::SecretsPage;

class TestSecretsPage : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void storeAndDelete()
    {
        QTemporaryDir dir;
        QSettings settings(dir.filePath(u"ferry.conf"_s), QSettings::IniFormat);
        SecretStore store(settings);
        SecretsPage page(store);
        QSignalSpy idle(&page, &SecretsPage::idle);
        QCOMPARE(page.nameList()->count(), 0);
        QVERIFY(!page.storeButton()->isEnabled());

        page.nameEdit()->setText(u"DOCKER_PASSWORD"_s);
        page.valueEdit()->setText(u"d0cker-pa55"_s);
        QCOMPARE(page.valueEdit()->echoMode(), QLineEdit::Password);
        QVERIFY(page.storeButton()->isEnabled());
        page.storeButton()->click();
        // The click returned before the keychain answered: the page is busy, not frozen.
        QVERIFY(page.isBusy());
        QVERIFY(!page.storeButton()->isEnabled());
        QVERIFY(idle.wait(30000));
        QVERIFY2(page.statusLabel()->text().contains(u"Stored DOCKER_PASSWORD"_s),
                 qPrintable(page.statusLabel()->text()));
        QCOMPARE(page.valueEdit()->text(), QString());
        QCOMPARE(page.nameList()->count(), 1);
        QCOMPARE(ferry::test::keychainLookup(u"DOCKER_PASSWORD"_s), u"d0cker-pa55"_s);

        page.nameList()->setCurrentRow(0);
        QVERIFY(page.deleteButton()->isEnabled());
        page.deleteButton()->click();
        QVERIFY(idle.wait(30000));
        QCOMPARE(page.nameList()->count(), 0);
        QCOMPARE(ferry::test::keychainLookup(u"DOCKER_PASSWORD"_s), QString());
    }

    void refusalShowsInline()
    {
        QTemporaryDir dir;
        QSettings settings(dir.filePath(u"ferry.conf"_s), QSettings::IniFormat);
        SecretStore store(settings);
        SecretsPage page(store);
        QSignalSpy idle(&page, &SecretsPage::idle);
        page.nameEdit()->setText(u"my token"_s);
        page.valueEdit()->setText(u"v"_s);
        page.storeButton()->click();
        QVERIFY(idle.wait(30000));
        QVERIFY2(page.statusLabel()->text().contains(u"'my token' is not a secret name"_s),
                 qPrintable(page.statusLabel()->text()));
        QCOMPARE(page.valueEdit()->text(), u"v"_s); // kept, so the user can fix the name
        QCOMPARE(page.nameList()->count(), 0);
    }
};

FERRY_KEYRING_TEST_MAIN_APP(QApplication, TestSecretsPage)

#include "tst_secretspage.moc"
