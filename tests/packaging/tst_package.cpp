// The Debian package: built with cpack from this build, unpacked, and its files, metadata
// and installed binary checked.
#include "support/testenv.h"
#include "support/testmain.h"

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
        const QString log =
            run(QStringLiteral(CPACK_COMMAND),
                {u"-G"_s, u"DEB"_s, u"--config"_s, (ferry::test::buildDir() + QStringLiteral("/CPackConfig.cmake")),
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
        QTest::newRow("mime types") << u"usr/share/mime/packages/dev.ferry.Ferry.xml"_s;
    }
    void installsTheFiles()
    {
        QFETCH(QString, path);
        QVERIFY2(QFileInfo(m_root + u'/' + path).isFile(), qPrintable(path));
    }

    // The desktop entry opens notebooks and Ferry's own environment and sweep files, and never
    // claims every YAML, CSV or text file; the installed MIME data tells Ferry's files from other
    // YAML by name or by their first line.
    void fileTypesOpenInFerry()
    {
        const QString desktop = run(u"cat"_s, {m_root + u"/usr/share/applications/dev.ferry.Ferry.desktop"_s});
        QVERIFY2(desktop.contains(u"MimeType=application/x-ipynb+json;application/x-ferry-environment;"
                                  u"application/x-ferry-sweep;\n"_s),
                 qPrintable(desktop));
        for (const QString &generic : {u"application/x-yaml"_s, u"text/csv"_s, u"text/plain"_s, u"application/json"_s})
            QVERIFY2(!desktop.contains(generic), qPrintable(generic + u" is not Ferry's to open"_s));
        QVERIFY(desktop.contains(u"Exec=ferry %F"_s));
        int code = -1;
        const QString mime = m_root + u"/usr/share/mime"_s;
        QVERIFY2(run(u"update-mime-database"_s, {mime}, &code).isEmpty() || code == 0, "update-mime-database failed");
        QCOMPARE(code, 0);
        // A fresh process reads XDG_DATA_DIRS: the package's data before the system's.
        QTemporaryDir files;
        QFile environment(files.filePath(u"mnist.ferry.yml"_s));
        QVERIFY(environment.open(QIODevice::WriteOnly));
        environment.write("ferry: 1\nname: mnist\n");
        environment.close();
        QFile unnamed(files.filePath(u"environment"_s)); // no extension: the content decides
        QVERIFY(unnamed.open(QIODevice::WriteOnly));
        unnamed.write("ferry: 1\nname: mnist\n");
        unnamed.close();
        QFile other(files.filePath(u"compose.yml"_s));
        QVERIFY(other.open(QIODevice::WriteOnly));
        other.write("services: {}\n");
        other.close();
        QFile sweep(files.filePath(u"grid.ferry-sweep.yml"_s));
        QVERIFY(sweep.open(QIODevice::WriteOnly));
        sweep.write("script: train.py\n");
        sweep.close();
        QFile unnamedSweep(files.filePath(u"sweep"_s)); // no extension: the content decides
        QVERIFY(unnamedSweep.open(QIODevice::WriteOnly));
        unnamedSweep.write("ferry-sweep: 1\nscript: train.py\n");
        unnamedSweep.close();
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(u"XDG_DATA_DIRS"_s, m_root + u"/usr/share:/usr/share"_s);
        const QString types = run(QStringLiteral(FERRY_MIME_PROBE),
                                  {environment.fileName(), unnamed.fileName(), other.fileName(),
                                   files.filePath(u"a.ipynb"_s), sweep.fileName(), unnamedSweep.fileName()},
                                  &code, env);
        QCOMPARE(code, 0);
        QCOMPARE(types.split(u'\n', Qt::SkipEmptyParts),
                 (QStringList{u"application/x-ferry-environment"_s, u"application/x-ferry-environment"_s,
                              u"application/x-yaml"_s, u"application/x-ipynb+json"_s, u"application/x-ferry-sweep"_s,
                              u"application/x-ferry-sweep"_s}));
    }

    // `dpkg -i` on a clean Debian 12 (the debootstrapped base image, in the test engine), then
    // `apt-get -f install` for the Depends from Debian's mirror; the installed ferry runs.
    void installsOnACleanDebian()
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        if (env.value(u"DOCKER_HOST"_s).isEmpty()) { // the docker fixture started it; ask where
            int code = -1;
            const QString host =
                run(u"bash"_s, {QStringLiteral(FERRY_SOURCE_DIR) + u"/tests/services/docker.sh"_s, u"status"_s}, &code);
            QVERIFY2(code == 0, qPrintable(host));
            env.insert(u"DOCKER_HOST"_s, host.trimmed().split(u'\n').last());
        }
        int code = -1;
        const QString script =
            // dpkg without fsync in this throwaway container: the same files, a third less time.
            u"set -e; echo force-unsafe-io >/etc/dpkg/dpkg.cfg.d/unsafe-io; "
            u"for f in /var/cache/apt/host-archives/*.deb; do [ -e \"$f\" ] && ln -s \"$f\" /var/cache/apt/archives/; "
            u"done; true; "
            u"apt-get update -qq; "
            u"dpkg -i /deb/%1 >/dev/null 2>&1 || true; "
            u"DEBIAN_FRONTEND=noninteractive apt-get -f install -y -qq >/dev/null; "
            u"dpkg-query -W -f='${Status}\\n' ferry; ferry --version; "
            // What a double-click on an environment file runs (Exec=ferry %F).
            u"mkdir -p /tmp/p/environments; printf 'ferry: 1\\nname: x\\n' > /tmp/p/environments/x.yml; "
            u"QT_QPA_PLATFORM=offscreen ferry --exit-after-first-frame /tmp/p/environments/x.yml; "
            u"test -d /tmp/p/.ferry/runs && echo opened its workspace; "
            u"ferry doctor --json"_s.arg(QFileInfo(m_deb).fileName());
        const QString out = run(u"docker"_s,
                                // This machine's cache of downloaded .debs: each Depends is downloaded once per machine
                                // (tests/packaging/fresh-machine.sh shares it); installing them still happens here.
                                {u"run"_s, u"--rm"_s, u"--network"_s, u"host"_s, u"-v"_s,
                                 QFileInfo(m_deb).absolutePath() + u":/deb:ro"_s, u"-v"_s,
                                 u"/var/cache/apt/archives:/var/cache/apt/host-archives:ro"_s, u"ferry-base:bookworm"_s,
                                 u"sh"_s, u"-c"_s, script},
                                &code, env);
        QVERIFY2(code == 0, qPrintable(out));
        QVERIFY2(out.contains(u"install ok installed"_s), qPrintable(out));
        QVERIFY2(out.contains(u"ferry 0."_s), qPrintable(out));
        QVERIFY2(out.contains(u"opened its workspace"_s), qPrintable(out));
        const qsizetype json = out.indexOf(u'{');
        QVERIFY2(json >= 0, qPrintable(out));
        const QJsonObject trainer = QJsonDocument::fromJson(out.mid(json).toUtf8()).object()[u"trainer"_s].toObject();
        QCOMPARE(trainer[u"plugin"_s].toString(), u"/usr/lib/ferry/plugins/ferry_trainer.so"_s);
        QCOMPARE(trainer[u"selfTest"_s].toString(), u"ok"_s); // libtorch and OpenBLAS came with Depends
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

FERRY_TEST_GUILESS_MAIN(TestPackage)
#include "tst_package.moc"
