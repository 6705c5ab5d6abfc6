// The Debian package: built with cpack from this build, unpacked, and its files, metadata
// and installed binary checked.
#include <QDir>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;

namespace {

QString run(const QString &program, const QStringList &arguments, int *exitCode = nullptr,
            const QProcessEnvironment &env = QProcessEnvironment::systemEnvironment())
{
    QProcess process;
    process.setProcessEnvironment(env);
    process.setProcessChannelMode(QProcess::MergedChannels);
    process.start(program, arguments);
    if (!process.waitForFinished(540000))
        process.kill();
    if (exitCode)
        *exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    return QString::fromLocal8Bit(process.readAll());
}

} // namespace

class TestPackage : public QObject {
    Q_OBJECT

    QTemporaryDir m_out;
    QString m_deb;
    QString m_root;

private Q_SLOTS:
    void initTestCase()
    {
        int code = -1;
        const QString log = run(QStringLiteral(CPACK_COMMAND),
                                {u"-G"_s, u"DEB"_s, u"--config"_s, QStringLiteral(FERRY_BUILD_DIR "/CPackConfig.cmake"),
                                 u"-B"_s, m_out.path()},
                                &code);
        QVERIFY2(code == 0, qPrintable(log));
        const QStringList debs = QDir(m_out.path()).entryList({u"*.deb"_s}, QDir::Files);
        QCOMPARE(debs.size(), 1);
        m_deb = m_out.filePath(debs.first());
        m_root = m_out.filePath(u"root"_s);
        QVERIFY2(run(u"dpkg-deb"_s, {u"-x"_s, m_deb, m_root}, &code).isEmpty() && code == 0, "dpkg-deb -x failed");
    }

    void installsTheFiles_data()
    {
        QTest::addColumn<QString>("path");
        QTest::newRow("executable") << u"usr/bin/ferry"_s;
        QTest::newRow("core library") << u"usr/lib/ferry/libferry_core.so"_s;
        QTest::newRow("trainer plugin") << u"usr/lib/ferry/plugins/ferry_trainer.so"_s;
        QTest::newRow("desktop file") << u"usr/share/applications/dev.ferry.Ferry.desktop"_s;
        QTest::newRow("icon") << u"usr/share/icons/hicolor/scalable/apps/dev.ferry.Ferry.svg"_s;
        QTest::newRow("metainfo") << u"usr/share/metainfo/dev.ferry.Ferry.metainfo.xml"_s;
    }
    void installsTheFiles()
    {
        QFETCH(QString, path);
        QVERIFY2(QFileInfo(m_root + u'/' + path).isFile(), qPrintable(path));
    }

    void controlFields()
    {
        QCOMPARE(run(u"dpkg-deb"_s, {u"-f"_s, m_deb, u"Package"_s}).trimmed(), u"ferry"_s);
        const QString depends = run(u"dpkg-deb"_s, {u"-f"_s, m_deb, u"Depends"_s});
        // Linked (found by dpkg-shlibdeps) and loaded at run time (declared by hand).
        for (const QString &package : {u"libqt6core6"_s, u"libqt6widgets6"_s, u"libtorch1.13"_s,
                                       u"libopenblas0-pthread"_s, u"qt6-qpa-plugins"_s, u"libqt6sql6-sqlite"_s})
            QVERIFY2(depends.contains(package), qPrintable(package + u" missing from Depends: "_s + depends));
        QVERIFY2(!depends.contains(u"ferry"_s), qPrintable(depends)); // the private library is inside
    }

    void installedBinaryRunsAndFindsItsPlugin()
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove(u"FERRY_TRAINER_PLUGIN_DIR"_s);
        int code = -1;
        const QString binary = m_root + u"/usr/bin/ferry"_s;
        QVERIFY(run(binary, {u"--version"_s}, &code, env).startsWith(u"ferry "_s));
        QCOMPARE(code, 0);
        const QString ldd = run(u"ldd"_s, {binary});
        // Found through the RPATH inside the unpacked tree, not the build folder.
        QVERIFY2(ldd.contains(m_root + u"/usr/bin/../lib/ferry/libferry_core.so"_s), qPrintable(ldd));

        const QString out = run(binary, {u"doctor"_s, u"--json"_s}, &code, env);
        QCOMPARE(code, 0);
        const QJsonObject trainer = QJsonDocument::fromJson(out.toUtf8()).object()[u"trainer"_s].toObject();
        QCOMPARE(trainer[u"plugin"_s].toString(), m_root + u"/usr/lib/ferry/plugins/ferry_trainer.so"_s);
        QCOMPARE(trainer[u"selfTest"_s].toString(), u"ok"_s);
    }
};

QTEST_GUILESS_MAIN(TestPackage)
#include "tst_package.moc"
