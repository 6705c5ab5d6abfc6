#include "support/testmain.h"
#include "workspace/recentworkspaces.h"

#include <QDir>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using ferry::workspace::RecentWorkspaces;

class TestRecentWorkspaces : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString folder(const QString &name)
    {
        QDir(m_dir.path()).mkpath(name);
        return QDir::cleanPath(m_dir.filePath(name));
    }
    QString settingsFile() const { return m_dir.filePath(u"settings.ini"_s); }

private Q_SLOTS:
    void init() { QFile::remove(settingsFile()); }

    void newestFirstWithoutDuplicates()
    {
        QSettings settings(settingsFile(), QSettings::IniFormat);
        RecentWorkspaces recent(settings);
        recent.add(folder(u"a"_s));
        recent.add(folder(u"b"_s));
        recent.add(folder(u"a"_s) + u"/"_s); // same folder, spelled differently
        recent.add(folder(u"b"_s) + u"/../a"_s);
        QCOMPARE(recent.paths(), (QStringList{folder(u"a"_s), folder(u"b"_s)}));
    }

    void keepsAtMostTheLimit()
    {
        QSettings settings(settingsFile(), QSettings::IniFormat);
        RecentWorkspaces recent(settings, 3);
        for (const QString &name : {u"1"_s, u"2"_s, u"3"_s, u"4"_s, u"5"_s})
            recent.add(folder(name));
        QCOMPARE(recent.paths(), (QStringList{folder(u"5"_s), folder(u"4"_s), folder(u"3"_s)}));
    }

    void skipsVanishedFolders()
    {
        QSettings settings(settingsFile(), QSettings::IniFormat);
        RecentWorkspaces recent(settings);
        recent.add(folder(u"stays"_s));
        recent.add(folder(u"goes"_s));
        QVERIFY(QDir(folder(u"goes"_s)).removeRecursively());
        QCOMPARE(recent.paths(), QStringList{folder(u"stays"_s)});
    }

    void removeAndClear()
    {
        QSettings settings(settingsFile(), QSettings::IniFormat);
        RecentWorkspaces recent(settings);
        recent.add(folder(u"x"_s));
        recent.add(folder(u"y"_s));
        recent.remove(folder(u"y"_s) + u"/"_s);
        QCOMPARE(recent.paths(), QStringList{folder(u"x"_s)});
        recent.clear();
        QVERIFY(recent.paths().isEmpty());
    }

    void persistsAcrossSessions()
    {
        {
            QSettings settings(settingsFile(), QSettings::IniFormat);
            RecentWorkspaces(settings).add(folder(u"kept"_s));
        }
        QSettings settings(settingsFile(), QSettings::IniFormat);
        QCOMPARE(RecentWorkspaces(settings).paths(), QStringList{folder(u"kept"_s)});
    }
};

FERRY_TEST_APPLESS_MAIN(TestRecentWorkspaces)
#include "tst_recentworkspaces.moc"
