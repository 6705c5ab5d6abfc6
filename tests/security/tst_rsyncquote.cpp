// L2 (review security-2026-12-01, issue 14 item 9): an ssh option path with a `'` works with
// rsync. rsync splits its `-e` command itself and knows no `'\''`, so a quote in the ssh
// config's, the known_hosts' or the key's path made every transfer fail. Here all three live
// in a folder named o'brien, and a whole `ferry run --target ssh:...` against the real test
// sshd uploads, runs and fetches its model back.
#include "support/testenv.h"
#include "support/testmain.h"
#include "targets/remoteshell.h"

#include "support/remote.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using ferry::test::kHost;
using ferry::test::sshdDir;
using ferry::test::SshSandbox;

class TestRsyncQuote : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void quotedOptionPathsWorkWithRsync()
    {
        const SshSandbox sandbox;
        QTemporaryDir ws;
        const QString obrien = ws.filePath(u"o'brien"_s);
        QVERIFY(QDir().mkpath(obrien + u"/config-home/ferry"_s));
        // The key, the config naming it and the known_hosts, all under the quote.
        QVERIFY(QFile::copy(sshdDir() + u"/id_ed25519"_s, obrien + u"/id_ed25519"_s));
        QVERIFY(QFile::setPermissions(obrien + u"/id_ed25519"_s, QFile::ReadOwner | QFile::WriteOwner));
        QVERIFY(QFile::copy(sshdDir() + u"/known_hosts"_s, obrien + u"/config-home/ferry/known_hosts"_s));
        QFile original(sshdDir() + u"/config"_s);
        QVERIFY(original.open(QIODevice::ReadOnly));
        QByteArray config;
        for (const QByteArray &line : original.readAll().split('\n')) {
            if (line.trimmed().startsWith("IdentityFile"))
                config += "  IdentityFile \"" + QFile::encodeName(obrien) + "/id_ed25519\"\n";
            else
                config += line + '\n';
        }
        QFile copy(obrien + u"/config"_s);
        QVERIFY(copy.open(QIODevice::WriteOnly));
        copy.write(config);
        copy.close();
        QFile script(ws.filePath(u"train.py"_s));
        QVERIFY(script.open(QIODevice::WriteOnly));
        script.write("import os\nopen(os.path.join(os.environ['SM_MODEL_DIR'], 'model.pth'), 'w').write('w')\n"
                     "print('trained')\n");
        script.close();

        QProcessEnvironment env = sandbox.environment();
        env.insert(u"FERRY_SSH_CONFIG"_s, obrien + u"/config"_s);
        env.insert(u"XDG_CONFIG_HOME"_s, obrien + u"/config-home"_s);
        QProcess ferry;
        ferry.setProcessEnvironment(env);
        ferry.setWorkingDirectory(ws.path());
        ferry.start(ferry::test::ferryBinary(),
                    {u"run"_s, u"train.py"_s, u"--target"_s, u"ssh:"_s + kHost, u"--remote-dir"_s,
                     ws.filePath(u"host"_s), u"--identity"_s, obrien + u"/id_ed25519"_s, u"--follow"_s});
        QVERIFY(ferry.waitForFinished(240000));
        const QString out = QString::fromUtf8(ferry.readAllStandardOutput());
        const QString err = QString::fromUtf8(ferry.readAllStandardError());
        QVERIFY2(!err.contains(u"Missing trailing"_s), qPrintable(err));
        QVERIFY2(ferry.exitCode() == 0, qPrintable(err));
        QVERIFY2(out.contains(u"trained"_s), qPrintable(out));
        const QString id = out.section(u'\n', 0, 0).trimmed();
        QVERIFY(QFile::exists(ws.filePath(u"host/"_s + id + u"/code/train.py"_s)));          // the upload
        QVERIFY(QFile::exists(ws.filePath(u".ferry/runs/"_s + id + u"/model/model.pth"_s))); // the fetch
        QVERIFY(QFile::exists(ws.filePath(u".ferry/runs/"_s + id + u"/model.tar.gz"_s)));
    }

    // The -e line itself: rsync reads each word back as it was (rsync parses it, no shell).
    void rsyncReadsTheWordsBack()
    {
        QTemporaryDir dir;
        const QString printer = dir.filePath(u"print-args"_s);
        QFile script(printer);
        QVERIFY(script.open(QIODevice::WriteOnly));
        script.write("#!/bin/sh\nfor a; do printf '[%s]\\n' \"$a\" >> \"$0.out\"; done\nexit 1\n");
        script.close();
        QVERIFY(script.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner));
        const QStringList words{printer, u"o'brien"_s, u"two words"_s, u"\"dq\""_s, u""_s, u"it''s"_s};
        const auto line = ferry::targets::rsyncCommandLine(words);
        QVERIFY(line);
        QProcess rsync;
        rsync.start(u"rsync"_s, {u"-e"_s, *line, u"--"_s, dir.filePath(u"x"_s), u"somehost:/x"_s});
        QVERIFY(rsync.waitForFinished(30000));
        QFile out(printer + u".out"_s);
        QVERIFY2(out.open(QIODevice::ReadOnly), qPrintable(QString::fromUtf8(rsync.readAllStandardError())));
        const QList<QByteArray> got = out.readAll().split('\n');
        QVERIFY(got.size() >= 5);
        QCOMPARE(got.at(0), QByteArray("[o'brien]"));
        QCOMPARE(got.at(1), QByteArray("[two words]"));
        QCOMPARE(got.at(2), QByteArray("[\"dq\"]"));
        QCOMPARE(got.at(3), QByteArray("[]"));
        QCOMPARE(got.at(4), QByteArray("[it''s]"));
    }
};

FERRY_TEST_GUILESS_MAIN(TestRsyncQuote)
#include "tst_rsyncquote.moc"
