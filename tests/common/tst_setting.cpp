#include "common/setting.h"
#include "support/testmain.h"

#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using ferry::Setting;

class TestSetting : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void defaultUntilSetThenStoredValue()
    {
        QTemporaryDir dir;
        QSettings settings(dir.filePath(u"s.ini"_s), QSettings::IniFormat);
        const Setting<int> threads{"trainer/threads", 4};
        const Setting<QString> name{"ui/name", u"Ferry"_s};
        QCOMPARE(threads.get(settings), 4);
        QCOMPARE(name.get(settings), u"Ferry"_s);
        threads.set(settings, 1);
        name.set(settings, u"Other"_s);
        QCOMPARE(threads.get(settings), 1);
        QCOMPARE(settings.value(u"trainer/threads"_s).toInt(), 1);
        threads.reset(settings);
        QCOMPARE(threads.get(settings), 4);
        QCOMPARE(name.get(settings), u"Other"_s);
    }

    void unreadableValueFallsBackToDefault()
    {
        QTemporaryDir dir;
        QSettings settings(dir.filePath(u"s.ini"_s), QSettings::IniFormat);
        settings.setValue(u"trainer/threads"_s, u"many"_s); // e.g. edited by hand
        settings.sync();
        QSettings reread(dir.filePath(u"s.ini"_s), QSettings::IniFormat);
        const Setting<int> threads{"trainer/threads", 4};
        QCOMPARE(threads.get(reread), 4);
    }
};

FERRY_TEST_APPLESS_MAIN(TestSetting)
#include "tst_setting.moc"
