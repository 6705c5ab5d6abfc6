// Issue 19: `ferry runs import` is an archive extraction from elsewhere (docs/security.md). Each
// case takes a real bundle (a real run, exported by the real `ferry`), crafts it as an attacker
// would share it (libarchive writes names, links and sizes exactly as asked), imports it with the
// real `ferry runs import`, and checks the exit code, the message, that the files the bundle aimed
// at are unchanged or absent, and that the workspace holds nothing of it: no run, no run folder,
// no object, no staging folder.
#include "snapshot/treeobject.h"
#include "support/bundle.h"
#include "support/cli.h"
#include "support/cost.h"
#include "support/files.h"
#include "support/testmain.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <archive.h>
#include <archive_entry.h>

#include <memory>

#include <sys/stat.h>

using namespace Qt::StringLiterals;
using namespace ferry;

namespace {

using Entry = test::TarEntry;
using Entries = QList<Entry>;
using test::filesUnder;
using test::indexOf;
using test::jsonOf;
using test::readTarGz;
using test::writeTarGz;

// A tar whose one entry's header declares `declared` bytes (base-256, as GNU tar writes sizes
// over 8 GiB) and holds none, gzip-compressed: a size no writer would let through.
bool writeHugeDeclaration(const QString &path, const QByteArray &name, qint64 declared)
{
    QByteArray header(512, '\0');
    header.replace(0, name.size(), name);
    header.replace(100, 8, "0000644");
    header.replace(108, 8, "0000000");
    header.replace(116, 8, "0000000");
    header[124] = char(0x80);
    for (int i = 0; i < 8; ++i)
        header[135 - i] = char((declared >> (8 * i)) & 0xff);
    header.replace(136, 12, "00000000000");
    header[156] = '0';
    header.replace(257, 8,
                   QByteArray("ustar\0"
                              "00",
                              8));
    header.replace(148, 8, "        ");
    unsigned sum = 0;
    for (const char c : header)
        sum += static_cast<unsigned char>(c);
    header.replace(148, 7, QByteArray(QByteArray::number(sum, 8).rightJustified(6, '0') + '\0'));
    return test::writeGzip(path, header + QByteArray(1024, '\0'));
}

} // namespace

class TestRunBundleImport : public QObject {
    Q_OBJECT

    QTemporaryDir m_root;
    Entries m_good;
    QString m_runId;

    QString victim() const { return m_root.filePath(u"victim.txt"_s); }
    QString outside() const { return m_root.filePath(u"outside"_s); }
    QString workspace() const { return m_root.filePath(u"ws"_s); }
    QString bundle() const { return m_root.filePath(u"downloads/evil.tar.gz"_s); }

    // The cases that need the good bundle, changed.
    Entries withSpec(const std::function<void(QJsonObject &spec, QJsonObject &manifest)> &change) const
    {
        return test::withSpec(m_good, change);
    }

    void checkNothingImported()
    {
        QCOMPARE(test::readFile(victim()), QByteArray("the user's file\n"));
        QVERIFY(!QFileInfo::exists(workspace() + u"/planted"_s));
        QVERIFY(!QFileInfo::exists(outside() + u"/log"_s));
        QCOMPARE(filesUnder(workspace() + u"/.ferry/objects"_s), QStringList());
        QCOMPARE(QDir(workspace() + u"/.ferry/runs"_s).entryList(QDir::AllEntries | QDir::NoDotAndDotDot),
                 QStringList());
        QCOMPARE(QDir(workspace() + u"/.ferry"_s).entryList({u"import-*"_s}, QDir::AllEntries | QDir::Hidden),
                 QStringList());
        const auto list = test::runFerry(workspace(), {u"runs"_s, u"list"_s, u"--json"_s});
        QCOMPARE(test::jsonArray(list).size(), 0);
    }

private Q_SLOTS:
    void initTestCase()
    {
        const QString source = m_root.filePath(u"source"_s);
        test::writeFileOrStop(
            source + u"/train.py"_s,
            "import json, os\nfor s in range(3):\n    print(json.dumps({'step': s, 'loss': 1 / (s + 3)}))\n"
            "seen = {k: os.environ.get(k) for k in ('HF_TOKEN', 'LD_PRELOAD', 'PYTHONPATH', 'PLAIN')}\n"
            "seen['channels'] = sorted(k for k in os.environ if k.startswith('SM_CHANNEL_'))\n"
            "print('seen', json.dumps(seen, sort_keys=True))\n");
        test::writeFileOrStop(source + u"/lib/helper.py"_s, "X = 1\n");
        const auto run = test::runFerry(source, {u"run"_s, u"train.py"_s, u"--hp"_s, u"lr=0.1"_s, u"--follow"_s});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        m_runId =
            test::jsonArray(test::runFerry(source, {u"runs"_s, u"list"_s, u"--json"_s})).first()[u"id"_s].toString();
        const QString good = m_root.filePath(u"good.tar.gz"_s);
        const auto exported = test::runFerry(source, {u"runs"_s, u"export"_s, m_runId, u"--bundle"_s, good});
        QVERIFY2(exported.exitCode == 0, qPrintable(exported.err));
        m_good = readTarGz(good);
        QVERIFY(indexOf(m_good, "objects/") >= 0 && indexOf(m_good, "run/log") >= 0);
    }

    void init()
    {
        QDir(workspace()).removeRecursively();
        QVERIFY(QDir().mkpath(workspace()));
        QVERIFY(QDir().mkpath(outside()));
        QVERIFY(QDir().mkpath(QFileInfo(bundle()).absolutePath()));
        test::writeFileOrStop(victim(), "the user's file\n");
        QFile::remove(bundle());
    }

    void refusedAndNothingIsLeft_data()
    {
        QTest::addColumn<Entries>("entries");
        QTest::addColumn<QString>("message");
        const QByteArray evil = "import os; os.system('echo owned')\n";
        const QByteArray climb = "../../../victim.txt"; // from <ws>/.ferry/import-XXXXXX
        QTest::newRow("an entry named with ..") << (Entries{{climb, evil}} + m_good) << u"leads out of its folder"_s;
        QTest::newRow("an entry named with .. to a new file")
            << (m_good + Entries{{"../../planted", evil}}) << u"entry named '../../planted'"_s;
        QTest::newRow("an absolute entry")
            << (m_good + Entries{{QFile::encodeName(victim()), evil}}) << u"leads out of its folder"_s;
        QTest::newRow("a symbolic link, then a file through it")
            << (Entries{{"run", {}, Entry::Symlink, QFile::encodeName(outside())}, {"run/log", evil}} + m_good)
            << u"'run' in the bundle is a symbolic link; a bundle holds only files"_s;
        QTest::newRow("a symbolic link at a part's name")
            << (Entries{{"run/log", {}, Entry::Symlink, QFile::encodeName(victim())}} + m_good)
            << u"'run/log' in the bundle is a symbolic link"_s;
        Entries hardLink = m_good;
        hardLink[indexOf(hardLink, "run/log")] = Entry{"run/log", {}, Entry::Hardlink, "spec.json"};
        QTest::newRow("a hard link") << hardLink << u"'run/log' in the bundle is a hard link"_s;
        Entries badObject = m_good;
        badObject[indexOf(badObject, "objects/")].content += "# one more line\n";
        QTest::newRow("an object whose bytes are not its hash")
            << badObject << u"does not hold the bytes its name says"_s;
        QTest::newRow("an entry that is no part of a bundle")
            << (m_good + Entries{{"evil.sh", evil}}) << u"'evil.sh' is not part of a run bundle"_s;
        QTest::newRow("an entry twice") << (m_good + Entries{{"run/log", evil}}) << u"'run/log' appears twice"_s;
        QTest::newRow("not a bundle") << Entries{{"run/log", "hello\n"}} << u"not a run bundle"_s;
        Entries malformed = m_good;
        malformed[indexOf(malformed, "spec.json")].content = "{ \"id\": ";
        QTest::newRow("a malformed spec") << malformed << u"its spec.json is not a JSON object"_s;
        QTest::newRow("a run id that climbs out") << withSpec([](QJsonObject &spec, QJsonObject &manifest) {
            spec[u"id"_s] = u"../../planted"_s;
            QJsonObject run = manifest[u"run"_s].toObject();
            run[u"id"_s] = u"../../planted"_s;
            manifest[u"run"_s] = run;
        }) << u"its run id '../../planted' is not one Ferry makes"_s;
        QTest::newRow("a parameter name a script would run") << withSpec([](QJsonObject &spec, QJsonObject &) {
            spec[u"hyperparameters"_s] = QJsonArray{QJsonObject{{u"name"_s, u"lr; rm -rf ~"_s}, {u"value"_s, u"1"_s}}};
        }) << u"its spec is not valid: hyperparameter name 'lr; rm -rf ~' is not allowed"_s;
        QTest::newRow("a manifest of another run") << withSpec([](QJsonObject &, QJsonObject &manifest) {
            QJsonObject run = manifest[u"run"_s].toObject();
            run[u"id"_s] = u"20260101-000000-other-0000"_s;
            manifest[u"run"_s] = run;
        }) << u"its manifest and its spec name different runs"_s;
        QTest::newRow("a run still running") << withSpec([](QJsonObject &, QJsonObject &manifest) {
            QJsonObject run = manifest[u"run"_s].toObject();
            run[u"status"_s] = u"running"_s;
            manifest[u"run"_s] = run;
        }) << u"status 'running' is not one of an ended run"_s;
        // A folder listing that names a file "../../../victim.txt": a rerun would write it there.
        const QByteArray listing = snapshot::treeObject(
            {snapshot::TreeEntry{'f', 5, snapshot::objectHash("owned"), QString::fromUtf8(climb)}});
        const QString tree = snapshot::objectHash(listing);
        Entries climbing = withSpec([&](QJsonObject &spec, QJsonObject &manifest) {
            QJsonObject snap = spec[u"snapshot"_s].toObject();
            snap[u"tree"_s] = tree;
            spec[u"snapshot"_s] = snap;
            QJsonObject declared = manifest[u"snapshot"_s].toObject();
            declared[u"tree"_s] = tree;
            manifest[u"snapshot"_s] = declared;
        });
        const auto objectName = [](const QString &hash) {
            return (u"objects/"_s + hash.left(2) + u'/' + hash.mid(2)).toUtf8();
        };
        climbing << Entry{objectName(tree), listing} << Entry{objectName(snapshot::objectHash("owned")), "owned"};
        QTest::newRow("a snapshot naming a file ../../../victim.txt")
            << climbing << u"names '../../../victim.txt' (a name must be one part, once)"_s;
        QTest::newRow("a newer format") << withSpec([](QJsonObject &, QJsonObject &manifest) {
            manifest[u"format"_s] = 99;
        }) << u"bundle format 99; this Ferry reads format 1"_s;
    }

    void refusedAndNothingIsLeft()
    {
        QFETCH(Entries, entries);
        QFETCH(QString, message);
        QVERIFY(writeTarGz(bundle(), entries));
        const auto r = test::runFerry(workspace(), {u"runs"_s, u"import"_s, bundle()});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
        QVERIFY2(r.err.contains(bundle()), qPrintable(r.err)); // the bundle is named
        checkNothingImported();
    }

    // A header declaring a terabyte: refused by its declaration, before a byte is inflated.
    void aHugeDeclaredSizeIsRefused()
    {
        QVERIFY(writeHugeDeclaration(bundle(), "metrics.csv", qint64(1) << 40));
        const auto r = test::runFerry(workspace(), {u"runs"_s, u"import"_s, bundle()});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(u"'metrics.csv' in the archive declares 1099511627776 bytes"_s), qPrintable(r.err));
        checkNothingImported();
    }

    // 400 MB of zeros in a bundle of well under a megabyte: refused once what it inflates to
    // passes 256 MiB and 100 times its size; what was staged goes.
    void aGzipBombIsRefused()
    {
        Entries bomb = m_good;
        const QByteArray zeros(200 * 1000 * 1000, '\0');
        bomb[indexOf(bomb, "run/log")].content = zeros;
        if (const qsizetype output = indexOf(bomb, "run/output.tar.gz"); output >= 0)
            bomb[output].content = zeros;
        else
            bomb << Entry{"run/output.tar.gz", zeros};
        QVERIFY(writeTarGz(bundle(), bomb));
        QVERIFY(QFileInfo(bundle()).size() < 1000 * 1000);
        const auto r = test::runFerry(workspace(), {u"runs"_s, u"import"_s, bundle()});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(u"more than Ferry reads from an archive"_s), qPrintable(r.err));
        checkNothingImported();
    }

    // A folder already at the run's name (not in the store): refused, and what is in it stays.
    void aRunFolderOfThatIdIsLeftAlone()
    {
        const QString folder = workspace() + u"/.ferry/runs/"_s + m_runId;
        test::writeFileOrStop(folder + u"/notes.txt"_s, "mine\n");
        QVERIFY(writeTarGz(bundle(), m_good));
        const auto r = test::runFerry(workspace(), {u"runs"_s, u"import"_s, bundle()});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(u"is in this workspace already"_s), qPrintable(r.err));
        QCOMPARE(QDir(folder).entryList(QDir::AllEntries | QDir::NoDotAndDotDot), QStringList{u"notes.txt"_s});
        QCOMPARE(filesUnder(workspace() + u"/.ferry/objects"_s), QStringList());
        // The same bundle imports once the folder is gone: the crafted cases fail for their craft.
        QVERIFY(QDir(folder).removeRecursively());
        const auto imported = test::runFerry(workspace(), {u"runs"_s, u"import"_s, bundle()});
        QVERIFY2(imported.exitCode == 0, qPrintable(imported.err));
        QCOMPARE(imported.out.trimmed(), m_runId);
    }

private:
    // ---- Second review (issue 33): an imported run is data, never a launch request.

    // A bundle that grants everything it can: the engine (H1), the run-arguments consent, host
    // trust, an identity and a passphrase secret (H3), secret names, a channel on /home, an
    // interpreter, LD_PRELOAD and PYTHONPATH (N6), a tag that climbs out (H2), a shared
    // predictable source folder (N4), and an environment whose variables run hidden code.
    Entries grantingBundle(const QString &kind, const QString &host = {}) const
    {
        return withSpec([&](QJsonObject &spec, QJsonObject &) {
            spec[u"target"_s] = QJsonObject{
                {u"kind"_s, kind},
                {u"host"_s, host},
                {u"options"_s, QJsonObject{{u"engine"_s, engineMarker()},
                                           {u"allowRunArguments"_s, true},
                                           {u"acceptHostKey"_s, u"SHA256:attackerattackerattackerattackerattacker00"_s},
                                           {u"identityFile"_s, QString(QDir::homePath() + u"/.ssh/id_ed25519"_s)},
                                           {u"passphraseSecret"_s, u"github-token"_s}}}};
            spec[u"sourceDir"_s] = u"/tmp/.X11-unix"_s;
            spec[u"interpreter"_s] = QString(outside() + u"/python"_s);
            spec[u"variables"_s] = QJsonArray{QJsonObject{{u"name"_s, u"LD_PRELOAD"_s}, {u"value"_s, u"/x.so"_s}}};
            spec[u"secretVariables"_s] =
                QJsonArray{QJsonObject{{u"name"_s, u"HF_TOKEN"_s}, {u"secret"_s, u"github-token"_s}}};
            spec[u"channels"_s] = QJsonArray{QJsonObject{{u"name"_s, u"training"_s}, {u"path"_s, u"/home"_s}}};
            spec[u"environmentFile"_s] = u"/tmp/.X11-unix/environments/e.yml"_s;
            spec[u"environmentTag"_s] = u"../../../../../victim"_s;
            spec[u"environmentSpec"_s] =
                u"ferry: 1\nname: granting\nversion: \"1\"\ndocker:\n  base_image: ferry-base:bookworm\n"
                u"  run_arguments: [\"-v\", \"/:/host\", \"--privileged\"]\n  gpu: \"off\"\n"
                u"python:\n  interpreter: python3\n  user_managed: true\n"
                u"variables:\n  LD_PRELOAD: /x.so\n  PYTHONPATH: /tmp/evil\n  PLAIN: visible\n"
                u"  HF_TOKEN: {secret: github-token}\n"_s;
        });
    }
    // The good bundle's train.py, as its snapshot holds it.
    QByteArray goodScript() const
    {
        for (const Entry &e : m_good) {
            if (e.name.startsWith("objects/") && e.content.startsWith("import json"))
                return e.content;
        }
        return {};
    }
    void initForeign()
    {
        test::writeFileOrStop(engineMarker(), "#!/bin/sh\ntouch '" + QFile::encodeName(marker()) + "'\n");
        QFile(engineMarker()).setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    }
    // A program named docker that leaves a marker when it runs (H1's engine).
    QString engineMarker() const { return outside() + u"/bin/docker"_s; }
    QString marker() const { return outside() + u"/engine-ran"_s; }
    QString importedId(const Entries &entries)
    {
        if (!writeTarGz(bundle(), entries))
            return {};
        const auto r = test::runFerry(workspace(), {u"runs"_s, u"import"_s, bundle()});
        return r.exitCode == 0 ? r.out.trimmed() : QString();
    }
    static int modeOf(const QString &path)
    {
        struct stat st {};
        return ::lstat(QFile::encodeName(path).constData(), &st) == 0 ? int(st.st_mode & 07777) : -1;
    }
    QStringList entriesOf(const QString &dir) const
    {
        return QDir(dir).entryList(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot);
    }
    // Nothing outside the workspace changed: the victim, the folder next to it, Ferry's known_hosts.
    void checkNothingOutside()
    {
        QCOMPARE(test::readFile(victim()), QByteArray("the user's file\n"));
        QCOMPARE(entriesOf(outside()), QStringList{u"bin"_s});
        QVERIFY(!QFileInfo::exists(marker()));
        QVERIFY(!QFileInfo::exists(qEnvironmentVariable("XDG_CONFIG_HOME") + u"/ferry/known_hosts"_s));
    }

private Q_SLOTS:
    // H1, H3, N6, N4 at import: what grants or trusts is kept aside as the original's and said;
    // what a rerun may reuse is kept; the tag is the one the environment has here.
    void importKeepsOnlyWhatARerunMayReuse()
    {
        initForeign();
        QVERIFY(writeTarGz(bundle(), grantingBundle(u"container"_s)));
        const auto r = test::runFerry(workspace(), {u"runs"_s, u"import"_s, bundle()});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err)); // an old bundle imports, with notices
        for (const QString &said : {u"target options (acceptHostKey, allowRunArguments, engine, identityFile, "
                                    u"passphraseSecret) are the original's"_s,
                                    u"data channels (training) are the original's"_s,
                                    u"keychain secrets (HF_TOKEN=github-token) are never read"_s,
                                    u"its image tag '../../../../../victim' is not the one"_s})
            QVERIFY2(r.err.contains(said), qPrintable(r.err));
        const QJsonObject shown =
            test::jsonObject(test::runFerry(workspace(), {u"runs"_s, u"show"_s, m_runId, u"--json"_s}));
        const QJsonObject spec = shown[u"spec"_s].toObject();
        QCOMPARE(spec[u"target"_s][u"options"_s].toObject(), QJsonObject());
        QCOMPARE(spec[u"channels"_s].toArray(), QJsonArray());
        QCOMPARE(spec[u"secretVariables"_s].toArray(), QJsonArray());
        QCOMPARE(spec[u"variables"_s].toArray(), QJsonArray());
        QCOMPARE(spec[u"interpreter"_s].toString(), u"python3"_s);
        QCOMPARE(spec[u"sourceDir"_s].toString(), QString());
        QVERIFY2(spec[u"environmentTag"_s].toString().startsWith(u"granting-1-"_s),
                 qPrintable(spec[u"environmentTag"_s].toString()));
        const QJsonObject original = spec[u"imported"_s][u"original"_s].toObject();
        QCOMPARE(original[u"targetOptions"_s][u"engine"_s].toString(), engineMarker());
        QCOMPARE(original[u"sourceDir"_s].toString(), u"/tmp/.X11-unix"_s);
        QCOMPARE(shown[u"environmentTag"_s].toString(), spec[u"environmentTag"_s].toString());
        checkNothingOutside();
    }

    // H1, H2, H3, N4, N6 on a rerun: asked first; then it runs the code with nothing the bundle
    // granted: no secret read, no channel, no hidden variable, no engine, its environment file
    // and code in a fresh private folder of the workspace, nothing written outside.
    void aForeignRerunTakesNothingThatGrants()
    {
        initForeign();
        const QString id = importedId(grantingBundle(u"local"_s));
        QVERIFY(!id.isEmpty());
        const auto asked = test::runFerry(workspace(), {u"runs"_s, u"rerun"_s, id});
        QCOMPARE(asked.exitCode, 1);
        for (const QString &said : {u"came from elsewhere"_s, u"interpreter: python3"_s, u"variables: PLAIN=visible"_s,
                                    u"keychain secrets: none"_s, u"target: local"_s, u"--accept-foreign"_s,
                                    u"left out its environment's variables LD_PRELOAD, PYTHONPATH"_s,
                                    u"secret variables HF_TOKEN (keychain secret github-token) are not given"_s})
            QVERIFY2(asked.err.contains(said), qPrintable(asked.err));
        QCOMPARE(entriesOf(workspace() + u"/.ferry/reruns"_s), QStringList());
        const auto rerun =
            test::runFerry(workspace(), {u"runs"_s, u"rerun"_s, id, u"--accept-foreign"_s, u"--follow"_s});
        QVERIFY2(rerun.exitCode == 0, qPrintable(rerun.err + rerun.out));
        QVERIFY2(rerun.out.contains(u"seen {\"HF_TOKEN\": null, \"LD_PRELOAD\": null, \"PLAIN\": \"visible\", "
                                    u"\"PYTHONPATH\": null, \"channels\": []}"_s),
                 qPrintable(rerun.out));
        // Its code and environment file: in one new folder of .ferry/reruns, private.
        const QStringList reruns = entriesOf(workspace() + u"/.ferry/reruns"_s);
        QCOMPARE(reruns.size(), 1);
        const QString folder = workspace() + u"/.ferry/reruns/"_s + reruns.first();
        QVERIFY2(entriesOf(folder).contains(u"environments"_s), qPrintable(entriesOf(folder).join(u' ')));
        QCOMPARE(entriesOf(folder + u"/environments"_s).size(), 1);
        QVERIFY(entriesOf(folder + u"/environments"_s).first().startsWith(u".ferry-env-granting-1-"_s));
        QCOMPARE(modeOf(folder), 0700);
        QCOMPARE(modeOf(workspace() + u"/.ferry/reruns"_s), 0700);
        checkNothingOutside();
    }

    // H3: a run that ran on a host there names no host here: its rerun asks for the target, and
    // nothing talks to the bundle's host or trusts its key.
    void aForeignRemoteRerunNamesItsHost()
    {
        initForeign();
        const QString id = importedId(grantingBundle(u"ssh"_s, u"attacker.example"_s));
        QVERIFY(!id.isEmpty());
        const auto r = test::runFerry(workspace(), {u"runs"_s, u"rerun"_s, id, u"--accept-foreign"_s});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(u"came from elsewhere and ran on ssh:attacker.example there: name where its rerun "
                                u"runs"_s),
                 qPrintable(r.err));
        QCOMPARE(entriesOf(workspace() + u"/.ferry/reruns"_s), QStringList());
        checkNothingOutside();
    }

    // Control characters and over-long values in any field are refused, naming the field.
    void controlCharactersAndLongValuesAreRefused_data()
    {
        QTest::addColumn<Entries>("entries");
        QTest::addColumn<QString>("message");
        QTest::newRow("a NUL in the tag (H2: the .yml suffix cut)") << withSpec([](QJsonObject &spec, QJsonObject &) {
            spec[u"environmentTag"_s] = QString(u"x/../../.bash_aliases"_s + QChar(0));
        }) << u"its spec.json, field 'environmentTag' holds a control character (U+0000): refused"_s;
        QTest::newRow("an escape in a parameter's value (L3)") << withSpec([](QJsonObject &spec, QJsonObject &) {
            spec[u"hyperparameters"_s] =
                QJsonArray{QJsonObject{{u"name"_s, u"lr"_s}, {u"value"_s, u"\x1b]52;c;b3duZWQ=\x07"_s}}};
        }) << u"field 'hyperparameters[0].value' holds a control character (U+001B)"_s;
        QTest::newRow("an escape in the run's name") << withSpec([](QJsonObject &, QJsonObject &manifest) {
            QJsonObject run = manifest[u"run"_s].toObject();
            run[u"name"_s] = u"\x1b[2Jowned"_s;
            manifest[u"run"_s] = run;
        }) << u"its ferry-bundle.json, field 'run.name' holds a control character (U+001B)"_s;
        QTest::newRow("an argument of 5000 characters") << withSpec([](QJsonObject &spec, QJsonObject &) {
            spec[u"arguments"_s] = QJsonArray{QString(5000, u'a')};
        }) << u"field 'arguments[0]' holds 5000 characters, more than 4096"_s;
        QTest::newRow("20000 arguments") << withSpec([](QJsonObject &spec, QJsonObject &) {
            QJsonArray many;
            for (int i = 0; i < 20000; ++i)
                many.append(u"-x"_s);
            spec[u"arguments"_s] = many;
        }) << u"field 'arguments' lists 20000 items, more than 10000"_s;
        QTest::newRow("a script that climbs out")
            << withSpec([](QJsonObject &spec, QJsonObject &) { spec[u"script"_s] = u"../../victim.py"_s; })
            << u"field 'script' '../../victim.py' is not a path inside the run's source folder"_s;
    }
    void controlCharactersAndLongValuesAreRefused() { refusedAndNothingIsLeft(); }

    // Snapshot trees that lie or explode (N3, M3): refused at import in linear time.
    void snapshotTreesAreChecked_data()
    {
        QTest::addColumn<Entries>("entries");
        QTest::addColumn<QString>("message");
        using snapshot::TreeEntry;
        const QByteArray code = "print('hi')\n";
        const QString codeHash = snapshot::objectHash(code);
        const auto tree = [](const QList<TreeEntry> &entries) { return snapshot::treeObject(entries); };
        // N3: a file whose listing says 1 GiB (a diff's cap then trusts it).
        const QByteArray lying = tree({TreeEntry{'f', qint64(1) << 30, codeHash, u"train.py"_s}});
        QTest::newRow("a file's size that lies (N3)")
            << test::withSnapshot(m_good, snapshot::objectHash(lying), {code, lying})
            << u"says 'train.py' holds 1073741824 bytes; it holds 12"_s;
        const QByteArray inner = tree({TreeEntry{'f', code.size(), codeHash, u"train.py"_s}});
        const QByteArray outer = tree({TreeEntry{'d', 5, snapshot::objectHash(inner), u"lib"_s}});
        QTest::newRow("a folder's size that lies (N3)")
            << test::withSnapshot(m_good, snapshot::objectHash(outer), {code, inner, outer})
            << u"says 'lib' holds 5 bytes; it holds 12"_s;
        const QByteArray small = tree({TreeEntry{'b', 100, QString(64, u'0'), u"big.bin"_s}});
        QTest::newRow("a file not kept that is small (N3)")
            << test::withSnapshot(m_good, snapshot::objectHash(small), {small}) << u"says 'big.bin' holds 100 bytes"_s;
        // M3, at 100 times the review's 6 levels of 64 folders and more: 8 levels of 128.
        QList<QByteArray> levels{tree({})};
        for (int level = 0; level < 8; ++level) {
            QList<TreeEntry> folders;
            for (int i = 0; i < 128; ++i)
                folders << TreeEntry{'d', 0, snapshot::objectHash(levels.last()), u"d%1"_s.arg(i)};
            levels << tree(folders);
        }
        QTest::newRow("folders of folders (M3)")
            << test::withSnapshot(m_good, snapshot::objectHash(levels.last()), levels)
            << u"the snapshot spells out more than 1000000 files and folders"_s;
    }
    void snapshotTreesAreChecked()
    {
        QFETCH(Entries, entries);
        QFETCH(QString, message);
        QVERIFY(writeTarGz(bundle(), entries));
        const auto m = test::measureFerry(QString::fromUtf8(QTest::currentDataTag()), workspace(),
                                          {u"runs"_s, u"import"_s, bundle()});
        QCOMPARE(m.result.exitCode, 1);
        QVERIFY2(m.result.err.contains(message), qPrintable(m.result.err));
        QVERIFY2(ferry::test::secondsWithin(m.seconds, 30) && m.mib < 500, "far past the bound: 30 s, 500 MiB");
        checkNothingImported();
    }

    // M1, N2, M7: a rerun writes a fresh private folder of its own, through no link: a tree's
    // ".ferry-snapshot" link to the user's file leaves that file alone; a file not kept is never
    // read for a run from elsewhere; files get no more than 0600 (0700 for programs).
    void theRerunFolderIsFreshAndPrivate()
    {
        initForeign();
        using snapshot::TreeEntry;
        const QByteArray script = goodScript();
        QVERIFY(!script.isEmpty());
        const QByteArray link = QFile::encodeName(victim());
        const QByteArray tool = "#!/bin/sh\n";
        const QByteArray top =
            snapshot::treeObject({TreeEntry{'f', script.size(), snapshot::objectHash(script), u"train.py"_s},
                                  TreeEntry{'l', link.size(), snapshot::objectHash(link), u".ferry-snapshot"_s},
                                  TreeEntry{'x', tool.size(), snapshot::objectHash(tool), u"tool.sh"_s}});
        const QString id = importedId(test::withSnapshot(m_good, snapshot::objectHash(top), {script, link, tool, top}));
        QVERIFY(!id.isEmpty());
        const auto rerun =
            test::runFerry(workspace(), {u"runs"_s, u"rerun"_s, id, u"--accept-foreign"_s, u"--follow"_s});
        QVERIFY2(rerun.exitCode == 0, qPrintable(rerun.err));
        const QString folder =
            workspace() + u"/.ferry/reruns/"_s + entriesOf(workspace() + u"/.ferry/reruns"_s).first();
        QCOMPARE(QFileInfo(folder + u"/.ferry-snapshot"_s).symLinkTarget(), victim()); // a link, made as one
        QCOMPARE(modeOf(folder + u"/train.py"_s), 0600);
        QCOMPARE(modeOf(folder + u"/tool.sh"_s), 0700);
        QCOMPARE(modeOf(workspace() + u"/.ferry/objects"_s), 0700);
        for (const QString &object : filesUnder(workspace() + u"/.ferry/objects"_s))
            QCOMPARE(modeOf(object), 0600);
        checkNothingOutside();

        // N2: a file not kept, in a run from elsewhere: never looked for, the error names it.
        QDir(workspace()).removeRecursively();
        QVERIFY(QDir().mkpath(workspace()));
        const QByteArray big =
            snapshot::treeObject({TreeEntry{'f', script.size(), snapshot::objectHash(script), u"train.py"_s},
                                  TreeEntry{'b', qint64(40) << 20, QString(64, u'a'), u"big.bin"_s}});
        const QString other = importedId(test::withSnapshot(m_good, snapshot::objectHash(big), {script, big}));
        QVERIFY(!other.isEmpty());
        const auto refused = test::runFerry(workspace(), {u"runs"_s, u"rerun"_s, other, u"--accept-foreign"_s});
        QCOMPARE(refused.exitCode, 1);
        QVERIFY2(refused.err.contains(u"big.bin (41943040 bytes) was not kept with the run's code, and this run came "
                                      u"from elsewhere"_s),
                 qPrintable(refused.err));
        QCOMPARE(entriesOf(workspace() + u"/.ferry/reruns"_s), QStringList()); // the half-written folder went
    }

    // H2, its third form: a clean tag, but the environment file's folder is a link in the
    // snapshot (to a folder of the user's): the environment file is not written through it.
    void theEnvironmentFileIsNotWrittenThroughALink()
    {
        initForeign();
        using snapshot::TreeEntry;
        const QByteArray script = goodScript();
        const QByteArray link = QFile::encodeName(outside());
        const QByteArray top =
            snapshot::treeObject({TreeEntry{'l', link.size(), snapshot::objectHash(link), u"environments"_s},
                                  TreeEntry{'f', script.size(), snapshot::objectHash(script), u"train.py"_s}});
        Entries entries = test::withSnapshot(m_good, snapshot::objectHash(top), {script, link, top});
        entries = test::withSpec(entries, [](QJsonObject &spec, QJsonObject &) {
            spec[u"sourceDir"_s] = u"/src"_s;
            spec[u"environmentFile"_s] = u"/src/environments/e.yml"_s;
            spec[u"environmentSpec"_s] = u"ferry: 1\nname: clean\nversion: \"1\"\npython:\n  interpreter: python3\n"
                                         u"  user_managed: true\n"_s;
        });
        const QString id = importedId(entries);
        QVERIFY(!id.isEmpty());
        const auto r = test::runFerry(workspace(), {u"runs"_s, u"rerun"_s, id, u"--accept-foreign"_s});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(u"cannot write the run's environment"_s) &&
                     r.err.contains(u"'environments' on the way is a link or no folder"_s),
                 qPrintable(r.err));
        QCOMPARE(entriesOf(workspace() + u"/.ferry/reruns"_s), QStringList()); // the prepared folder went
        checkNothingOutside();
    }

    // M2: the reruns folder is Ferry's own: one planted as a link, or open to others, is refused.
    void aPlantedRerunsFolderIsRefused()
    {
        initForeign();
        const QString id = importedId(m_good);
        QVERIFY(!id.isEmpty());
        const QString reruns = workspace() + u"/.ferry/reruns"_s;
        QVERIFY(QFile::link(outside(), reruns));
        auto r = test::runFerry(workspace(), {u"runs"_s, u"rerun"_s, id, u"--accept-foreign"_s});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(reruns), qPrintable(r.err));
        QCOMPARE(entriesOf(outside()), QStringList{u"bin"_s});
        QVERIFY(QFile::remove(reruns));
        QVERIFY(QDir().mkpath(reruns));
        QVERIFY(::chmod(QFile::encodeName(reruns).constData(), 0777) == 0);
        r = test::runFerry(workspace(), {u"runs"_s, u"rerun"_s, id, u"--accept-foreign"_s});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(reruns), qPrintable(r.err));
        QCOMPARE(entriesOf(reruns), QStringList());
    }
};

FERRY_TEST_GUILESS_MAIN(TestRunBundleImport)
#include "tst_runbundleimport.moc"
