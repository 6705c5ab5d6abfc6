#include "env/pip/requirementsfile.h"
#include "support/testmain.h"

#include <QDirIterator>
#include <QFile>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

#include <algorithm>

using namespace Qt::StringLiterals;
using namespace ferry::env;

namespace {

const QString dataDir = QStringLiteral(FERRY_TEST_DATA "/env/requirements");

QString requirementsData(const QString &name)
{
    return dataDir + u'/' + name;
}

// "R requests[socks]>=2.31": the kind, then the canonical form.
QString dump(const PipRequirement &r)
{
    static const QString kinds = u"REAV"_s;
    return kinds.at(static_cast<int>(r.kind)) + u' ' + r.canonical();
}

QStringList dump(const QList<PipRequirement> &list)
{
    QStringList out;
    for (const PipRequirement &r : list)
        out << dump(r);
    return out;
}

QStringList dump(const Diagnostics &diagnostics)
{
    QStringList out;
    for (const Diagnostic &d : diagnostics)
        out << d.toString().section(u'\n', 0, 0).remove(dataDir + u'/');
    return out;
}

QStringList sortedCanonical(const RequirementsFile &file)
{
    QStringList out;
    for (const PipRequirement &r : file.requirements)
        out << r.canonical();
    out.sort();
    return out;
}

const QString sha1 = u"sha256:92d6037539857d8206b8f6ae472e8b77db8058fec5937a1ef3f54304089edbb9"_s;
const QString sha2 = u"sha256:539cc1d13202e33ca466e88b2807e29f4c13049d6d87031a3c110744495cb082"_s;
const QString sha3 = u"sha256:90b77e79eaa3eba6de819a0c442c0b4ceefc341a7a2ab77d7562bf49f425c5c2"_s;

// One requirement's meaning, and ways to spell it.
struct Spec {
    QStringList nameParts; // joined by a separator, in some case
    QStringList extras;
    QList<std::pair<QString, QString>> specifiers; // operator, version
    QString markerVariable;                        // empty: no marker
    QString markerValue;
    QStringList hashes;

    QString line(QRandomGenerator &random) const
    {
        const auto pick = [&](const QStringList &choices) { return choices.at(random.bounded(choices.size())); };
        const auto space = [&] { return pick({QString(), u" "_s, u"  "_s, u"\t"_s}); };
        QString name = nameParts.join(pick({u"-"_s, u"_"_s, u"."_s, u"-_"_s}));
        name = pick({name, name.toUpper(), name.toLower()});
        QString text = name;
        if (!extras.isEmpty()) {
            QStringList shuffled = extras;
            std::shuffle(shuffled.begin(), shuffled.end(), random);
            if (random.bounded(2))
                shuffled << shuffled.first(); // a repeated extra means nothing more
            for (QString &extra : shuffled)
                extra = random.bounded(2) ? extra.toUpper().replace(u'-', u'_') : extra;
            text += space() + u'[' + shuffled.join(u',' + space()) + u']';
        }
        QList<std::pair<QString, QString>> specs = specifiers;
        std::shuffle(specs.begin(), specs.end(), random);
        QStringList parts;
        for (const auto &[op, version] : specs) {
            // Equal PEP 440 spellings (not for ~=, which keeps zeros, or ===, which compares text).
            QString spelled = version;
            if (op != u"~="_s && op != u"==="_s && !version.endsWith(u".*"_s))
                spelled = pick({version, version + u".0"_s, u"v"_s + version});
            parts << op + space() + spelled;
        }
        if (!parts.isEmpty()) {
            const QString joined = parts.join(space() + u',' + space());
            text += space() + (random.bounded(4) == 0 ? u'(' + joined + u')' : joined);
        }
        if (!markerVariable.isEmpty()) {
            const QString quote = pick({u"'"_s, u"\""_s});
            QString variable = markerVariable;
            if (variable == u"os_name"_s && random.bounded(2))
                variable = u"os.name"_s;
            QString marker = variable + space() + u"==" + space() + quote + markerValue + quote;
            if (random.bounded(3) == 0)
                marker = u'(' + marker + u')';
            text += u' ' + space() + u';' + space() + marker;
        }
        QStringList shuffledHashes = hashes;
        std::shuffle(shuffledHashes.begin(), shuffledHashes.end(), random);
        for (const QString &hash : shuffledHashes)
            text += pick({u" --hash="_s, u" --hash "_s, u"\t--hash="_s}) + hash;
        return text;
    }
};

QList<Spec> generatedSpecs(int count)
{
    QRandomGenerator random(20240508);
    const QStringList words = {u"torch"_s, u"scikit"_s, u"learn"_s, u"zope"_s, u"interface"_s,
                               u"py"_s,    u"yaml"_s,   u"data"_s,  u"tool"_s, u"x"_s};
    const QStringList ops = {u"=="_s, u"!="_s, u">="_s, u"<="_s, u"<"_s, u">"_s, u"~="_s, u"==="_s};
    QList<Spec> specs;
    for (int i = 0; i < count; ++i) {
        Spec spec;
        spec.nameParts = {words.at(random.bounded(words.size())), u"p%1"_s.arg(i)};
        for (int e = random.bounded(3); e > 0; --e)
            spec.extras << u"extra-%1"_s.arg(random.bounded(5));
        spec.extras.removeDuplicates();
        for (int s = random.bounded(3); s > 0; --s) {
            const QString op = ops.at(random.bounded(ops.size()));
            QString version = u"%1.%2"_s.arg(random.bounded(5)).arg(random.bounded(20));
            if ((op == u"=="_s || op == u"!="_s) && random.bounded(3) == 0)
                version += u".*"_s;
            // `===` takes the text up to the next space, a comma included ("===1.0, >=2" is an
            // error in packaging), so it stands alone.
            const bool alone =
                op == u"==="_s || (!spec.specifiers.isEmpty() && spec.specifiers.first().first == u"==="_s);
            if (op == u"==="_s)
                spec.specifiers.clear();
            if (!alone || spec.specifiers.isEmpty()) {
                if (std::none_of(spec.specifiers.begin(), spec.specifiers.end(),
                                 [&](const auto &p) { return p.first == op; }))
                    spec.specifiers << std::pair{op, version};
            }
        }
        if (random.bounded(2)) {
            spec.markerVariable = random.bounded(2) ? u"os_name"_s : u"python_version"_s;
            spec.markerValue = u"v%1"_s.arg(random.bounded(4));
        }
        if (random.bounded(4) == 0)
            spec.hashes = random.bounded(2) ? QStringList{sha1, sha2} : QStringList{sha3};
        specs << spec;
    }
    return specs;
}

RequirementsFile parseSpecs(QList<Spec> specs, quint32 seed)
{
    QRandomGenerator random(seed);
    std::shuffle(specs.begin(), specs.end(), random);
    QStringList lines;
    for (const Spec &spec : specs) {
        lines << spec.line(random);
        if (random.bounded(5) == 0)
            lines << u"# a comment"_s << QString();
    }
    return parseRequirementsText(lines.join(random.bounded(2) ? u"\n"_s : u"\r\n"_s), u"generated.txt"_s);
}

} // namespace

class TestRequirementsFile : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void files_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QStringList>("requirements");
        QTest::addColumn<QStringList>("constraints");
        QTest::addColumn<QStringList>("diagnostics");

        QTest::newRow("basic") << u"basic.txt"_s
                               << QStringList{u"R requests[socks]>=2.31"_s,
                                              u"R numpy==1.26.*"_s,
                                              u"R pandas<3,>=2 ; python_version >= \"3.9\""_s,
                                              u"R django~=4.2"_s,
                                              u"R typing-extensions ; python_version < \"3.10\""_s,
                                              u"R pip @ https://github.com/pypa/pip/archive/22.0.zip#egg=pip"_s}
                               << QStringList() << QStringList();
        QTest::newRow("nested includes and constraints")
            << u"nested/main.txt"_s
            << QStringList{u"R base-a>=1"_s, u"R base-b[extra]"_s, u"R app==1"_s, u"R shared-tool==0.1"_s,
                           u"R pytest>=7"_s}
            << QStringList{u"R base-a==1.4.2"_s, u"R urllib3<2"_s} << QStringList();
        // pip reads `-r` inside a constraints file as requirements (req_file.py), and so does Ferry.
        QTest::newRow("-r inside -c") << u"include-from-constraints/main.txt"_s
                                      << QStringList{u"R extra-req==3"_s, u"R main==1"_s}
                                      << QStringList{u"R c-pin==2"_s} << QStringList();
        QTest::newRow("cycle") << u"cycle/a.txt"_s
                               << QStringList{u"V -r a.txt"_s, u"R from-c==1"_s, u"R from-b==1"_s, u"R from-a==1"_s}
                               << QStringList()
                               << QStringList{u"cycle/c.txt:1:1: error: include cycle: cycle/a.txt -> cycle/b.txt -> "
                                              "cycle/c.txt -> cycle/a.txt"_s};
        QTest::newRow("includes itself") << u"cycle/self.txt"_s << QStringList{u"R self==1"_s, u"V -r self.txt"_s}
                                         << QStringList()
                                         << QStringList{u"cycle/self.txt:2:1: error: include cycle: cycle/self.txt -> "
                                                        "cycle/self.txt"_s};
        QTest::newRow("missing include")
            << u"missing-include.txt"_s << QStringList{u"R before==1"_s, u"V -r does-not-exist.txt"_s, u"R after==1"_s}
            << QStringList()
            << QStringList{u"missing-include.txt:2:1: error: included file not found: does-not-exist.txt"_s};
        QTest::newRow("hashes") << u"hashes.txt"_s
                                << QStringList{u"R certifi==2023.7.22 --hash="_s + sha2 + u" --hash="_s + sha1,
                                               u"R idna==3.4 --hash="_s + sha3,
                                               u"R wheel==0.41.2 --config-settings=--build-option=--x "
                                               "--global-option='--no user cfg'"_s}
                                << QStringList() << QStringList();
        QTest::newRow("editable") << u"editable.txt"_s
                                  << QStringList{u"E -e ./src/mypkg"_s,
                                                 u"E -e git+https://github.com/org/repo.git@v1.2#egg=repo"_s,
                                                 u"E -e .[dev,test]"_s, u"E -e ./path with spaces"_s,
                                                 u"E -e ../sibling --config-settings=editable_mode=compat"_s}
                                  << QStringList() << QStringList();
        QTest::newRow("archives")
            << u"archives.txt"_s
            << QStringList{u"A ./dist/mypkg-1.0-py3-none-any.whl"_s,
                           u"A https://example.com/packages/other-2.0.tar.gz"_s,
                           u"A /opt/wheels/pkg.zip"_s,
                           u"A git+https://github.com/org/tool.git@main#egg=tool"_s,
                           u"A file:///srv/wheels/local-1.0-py3-none-any.whl"_s,
                           u"A local-1.0-py3-none-any.whl"_s,
                           u"A ./vendored/project"_s,
                           u"A https://example.com/pkg-1.0.whl; python_version > \"3.8\" --hash=sha256:"_s +
                               QString(64, u'0'),
                           u"V named @ ./not-a-url.whl"_s}
            << QStringList() << QStringList{u"archives.txt:9:9: error: Invalid URL: ./not-a-url.whl"_s};
        QTest::newRow("continuations")
            << u"continuations.txt"_s
            << QStringList{u"R requests==2.31 ; python_version >= \"3.8\" and platform_machine == \"x86_64\""_s,
                           u"R numpy==1.26"_s, u"R last-line-continues"_s}
            << QStringList() << QStringList();
        const QStringList alphaBeta = {u"R alpha==1"_s, u"R beta"_s};
        QTest::newRow("crlf") << u"crlf.txt"_s
                              << QStringList{u"R alpha==1"_s, u"R beta>=2 ; os_name == \"nt\""_s, u"R gamma"_s}
                              << QStringList() << QStringList();
        QTest::newRow("utf-8 bom") << u"bom.txt"_s << alphaBeta << QStringList() << QStringList();
        QTest::newRow("utf-16 bom") << u"utf16.txt"_s << alphaBeta << QStringList() << QStringList();
        QTest::newRow("tabs") << u"tabs.txt"_s
                              << QStringList{u"R alpha==1"_s, u"R beta>=2 ; os_name == \"nt\""_s,
                                             u"R gamma==1 --hash="_s + sha3}
                              << QStringList() << QStringList();
        QTest::newRow("empty") << u"empty.txt"_s << QStringList() << QStringList() << QStringList();
        QTest::newRow("comments only") << u"comments-only.txt"_s << QStringList() << QStringList() << QStringList();
        QTest::newRow("${VAR}")
            << u"envvars.txt"_s
            << QStringList{u"A https://${ARTIFACT_HOST}/wheels/private-1.0-py3-none-any.whl"_s,
                           u"R private @ https://${ARTIFACT_HOST}/wheels/private-1.0-py3-none-any.whl"_s,
                           u"V torch==${TORCH_VERSION}"_s, u"V -r ${EXTRA_REQUIREMENTS}"_s, u"E -e ${PROJECT_DIR}"_s}
            << QStringList()
            << QStringList{u"envvars.txt:4:8: warning: kept as written: pip expands ${...} before reading the "
                           "requirement"_s,
                           u"envvars.txt:5:1: warning: -r ${EXTRA_REQUIREMENTS} is kept as written: Ferry does not "
                           "expand ${...}"_s};
        QTest::newRow("verbatim")
            << u"verbatim.txt"_s
            << QStringList{u"V --frobnicate"_s, u"V numpy==1.26.0 --weird-option=1"_s,
                           u"V -r https://example.com/requirements.txt"_s, u"R scipy"_s}
            << QStringList()
            << QStringList{u"verbatim.txt:1:1: warning: kept as written: '--frobnicate' is not an option pip accepts "
                           "in requirements files"_s,
                           u"verbatim.txt:2:15: warning: kept as written: '--weird-option' is not an option pip "
                           "accepts in requirements files"_s,
                           u"verbatim.txt:3:1: warning: -r https://example.com/requirements.txt is kept as written: "
                           "Ferry does not download requirements files"_s};
        QTest::newRow("bad lines")
            << u"bad.txt"_s
            << QStringList{u"R good==1"_s,
                           u"V numpy=1.26"_s,
                           u"V requests[socks"_s,
                           u"V pandas==2.0 python_version > \"3.8\""_s,
                           u"V torch --hash=md5:abc"_s,
                           u"V -r"_s,
                           u"V -e requests"_s,
                           u"V fine==2.0 extra-word"_s,
                           u"R short==1 --hash=sha256:abc"_s}
            << QStringList()
            << QStringList{
                   u"bad.txt:2:6: error: Expected end or semicolon (after name and no valid version specifier)"_s,
                   u"bad.txt:3:15: error: Expected closing RIGHT_BRACKET"_s,
                   // reported on the continuation line where the problem is
                   u"bad.txt:5:5: error: Expected end or semicolon (after version specifier)"_s,
                   u"bad.txt:6:7: error: pip allows the hash algorithms sha256, sha384 and sha512, not 'md5'"_s,
                   u"bad.txt:7:3: error: -r needs a value"_s,
                   u"bad.txt:8:1: error: 'requests' is not a valid editable requirement"_s,
                   u"bad.txt:9:11: error: Expected end or semicolon (after version specifier)"_s,
                   u"bad.txt:10:12: warning: a sha256 digest is 64 hexadecimal digits; no file can match this one"_s};
    }
    void files()
    {
        QFETCH(QString, file);
        const RequirementsFile parsed = readRequirementsFile(requirementsData(file));
        QTEST(dump(parsed.requirements), "requirements");
        QTEST(dump(parsed.constraints), "constraints");
        QTEST(dump(parsed.diagnostics), "diagnostics");
        for (const Diagnostic &d : parsed.diagnostics)
            QVERIFY2(!d.where.hint.isEmpty(), qPrintable(d.toString()));
    }

    void options()
    {
        const RequirementsFile parsed = readRequirementsFile(requirementsData(u"options.txt"_s));
        QVERIFY(parsed.diagnostics.isEmpty());
        const PipOptions &o = parsed.options;
        QCOMPARE(o.indexUrl, u"https://pypi.example.com/simple"_s);
        QCOMPARE(o.extraIndexUrls,
                 QStringList({u"https://download.pytorch.org/whl/cu121"_s, u"https://extra.example.com/simple"_s}));
        QCOMPARE(o.findLinks, QStringList({u"./wheelhouse"_s, u"https://example.com/links"_s}));
        QCOMPARE(o.trustedHosts, QStringList{u"pypi.example.com"_s});
        QVERIFY(o.pre);
        QVERIFY(o.noIndex);
        QCOMPARE(o.other, QStringList({u"--no-binary :all:"_s, u"--prefer-binary"_s, u"--only-binary=numpy,scipy"_s}));
        QCOMPARE(dump(parsed.requirements), QStringList{u"R torch==2.1+cu121"_s});

        const RequirementsFile env = readRequirementsFile(requirementsData(u"envvars.txt"_s));
        QCOMPARE(env.options.indexUrl, u"https://${PIP_USER}:${PIP_TOKEN}@pypi.example.com/simple"_s);
    }

    void secondIndexUrlWarns()
    {
        const RequirementsFile parsed =
            parseRequirementsText(u"-i https://a/simple\n--index-url=https://b/simple\n"_s, u"two.txt"_s);
        QCOMPARE(parsed.options.indexUrl, u"https://b/simple"_s);
        QCOMPARE(dump(parsed.diagnostics),
                 QStringList{u"two.txt:2:1: warning: this --index-url replaces https://a/simple"_s});
    }

    // parse -> write -> parse gives the same model, for every example file.
    void roundTrip_data()
    {
        QTest::addColumn<QString>("file");
        QDirIterator it(dataDir, {u"*.txt"_s}, QDir::Files, QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QString path = it.next();
            QTest::newRow(qPrintable(QString(path).remove(dataDir + u'/'))) << path;
        }
    }
    void roundTrip()
    {
        QFETCH(QString, file);
        const RequirementsFile first = readRequirementsFile(file);
        const QString written = writeRequirementsText(first.requirements, first.options);
        const RequirementsFile second = parseRequirementsText(written, file);
        QCOMPARE(dump(second.requirements), dump(first.requirements));
        QVERIFY(second.requirements == first.requirements);
        QVERIFY(second.options == first.options);
        QCOMPARE(writeRequirementsText(second.requirements, second.options), written);

        // Models built in code carry no text: they are written from their fields.
        QList<PipRequirement> built = first.requirements;
        for (PipRequirement &r : built) {
            if (r.kind != PipRequirement::Kind::Verbatim) {
                r.text.clear();
                r.requirement.text.clear();
            }
        }
        const RequirementsFile rebuilt = parseRequirementsText(writeRequirementsText(built, first.options), file);
        QCOMPARE(dump(rebuilt.requirements), dump(first.requirements));
    }

    // A stale text never hides an edit: toLine() writes the fields when the text says otherwise.
    void editedModelIsWrittenFromFields()
    {
        const RequirementsFile parsed = parseRequirementsText(u"Requests[socks] >= 2.0 ; os_name == 'nt'\n"_s, {});
        PipRequirement edited = parsed.requirements.first();
        edited.requirement.specifier = u"==2.31.0"_s;
        edited.hashes << sha1;
        QCOMPARE(edited.toLine(), u"Requests[socks]==2.31.0 ; os_name == \"nt\" --hash="_s + sha1);
    }

    // The canonical list (what the image hash sees) ignores order and spelling...
    void canonicalIgnoresOrderAndSpelling()
    {
        const QList<Spec> specs = generatedSpecs(300);
        const RequirementsFile reference = parseSpecs(specs, 1);
        QVERIFY2(reference.diagnostics.isEmpty(), qPrintable(dump(reference.diagnostics).join(u'\n')));
        QCOMPARE(reference.requirements.size(), 300);
        for (quint32 seed = 2; seed < 22; ++seed) {
            const RequirementsFile other = parseSpecs(specs, seed);
            QVERIFY2(other.diagnostics.isEmpty(), qPrintable(dump(other.diagnostics).join(u'\n')));
            QCOMPARE(sortedCanonical(other), sortedCanonical(reference));
        }
    }

    // ...but any real change to any requirement changes it.
    void canonicalSeesEveryChange_data()
    {
        QTest::addColumn<int>("change");
        QTest::newRow("version") << 0;
        QTest::newRow("name") << 1;
        QTest::newRow("extra added") << 2;
        QTest::newRow("marker value") << 3;
        QTest::newRow("marker added") << 4;
        QTest::newRow("hash") << 5;
        QTest::newRow("operator") << 6;
        QTest::newRow("specifier dropped") << 7;
    }
    void canonicalSeesEveryChange()
    {
        QFETCH(int, change);
        const QList<Spec> specs = generatedSpecs(120);
        const QStringList reference = sortedCanonical(parseSpecs(specs, 1));
        for (qsizetype i = 0; i < specs.size(); ++i) {
            QList<Spec> changed = specs;
            Spec &s = changed[i];
            switch (change) {
            case 0:
                if (s.specifiers.isEmpty())
                    continue;
                s.specifiers.first().second.prepend(u"1"_s);
                break;
            case 1:
                s.nameParts.last() += u"x"_s;
                break;
            case 2:
                s.extras << u"added"_s;
                break;
            case 3:
                if (s.markerVariable.isEmpty())
                    continue;
                s.markerValue += u"x"_s;
                break;
            case 4:
                if (!s.markerVariable.isEmpty())
                    continue;
                s.markerVariable = u"sys_platform"_s;
                s.markerValue = u"linux"_s;
                break;
            case 5:
                if (s.hashes.isEmpty())
                    continue;
                s.hashes.last().chop(1);
                s.hashes.last() += u"f"_s;
                break;
            case 6:
                if (s.specifiers.isEmpty() || s.specifiers.first().first != u">="_s)
                    continue;
                s.specifiers.first().first = u">"_s;
                break;
            case 7:
                if (s.specifiers.isEmpty())
                    continue;
                s.specifiers.removeFirst();
                break;
            }
            const RequirementsFile parsed = parseSpecs(changed, 5);
            QVERIFY(parsed.diagnostics.isEmpty());
            QVERIFY2(sortedCanonical(parsed) != reference, qPrintable(u"change %1 of entry %2"_s.arg(change).arg(i)));
        }
    }

    void badFiles_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("message");
        QTest::newRow("directory") << u"directory"_s << u"is a folder, not a requirements file"_s;
        QTest::newRow("binary") << u"binary"_s << u"binary data (a NUL byte at offset 8), not a requirements file"_s;
        QTest::newRow("50 MB") << u"huge"_s << u"too large: 50 MB (requirements files are at most 10 MB)"_s;
        QTest::newRow("missing") << u"missing"_s << u"no such file"_s;
        QTest::newRow("no name") << u"empty"_s << u"no file name given"_s;
        QTest::newRow("pipe") << u"fifo"_s << u"not a regular file (a device, pipe or socket)"_s;
        QTest::newRow("device") << u"device"_s << u"not a regular file (a device, pipe or socket)"_s;
        QTest::newRow("unreadable") << u"unreadable"_s << u"cannot read: "_s;
        QTest::newRow("not utf-8") << u"latin1"_s << u"not UTF-8 text (first bad byte on line 2)"_s;
    }
    void badFiles()
    {
        QFETCH(QString, kind);
        QFETCH(QString, message);
        QTemporaryDir dir;
        QString path = dir.filePath(kind);
        if (kind == u"directory"_s) {
            path = dir.path();
        } else if (kind == u"binary"_s) {
            path = requirementsData(u"binary.bin"_s);
        } else if (kind == u"huge"_s) {
            QFile file(path);
            QVERIFY(file.open(QIODevice::WriteOnly));
            const QByteArray chunk = QByteArray("numpy==1.26.0\n").repeated(1024 * 1024 / 14 + 1).left(1024 * 1024);
            for (int i = 0; i < 50; ++i)
                QCOMPARE(file.write(chunk), chunk.size());
        } else if (kind == u"empty"_s) {
            path.clear();
        } else if (kind == u"fifo"_s) {
            QCOMPARE(::mkfifo(QFile::encodeName(path).constData(), 0600), 0);
        } else if (kind == u"device"_s) {
            path = u"/dev/zero"_s;
        } else if (kind == u"unreadable"_s) {
            QFile file(path);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write("numpy\n");
            file.close();
            QVERIFY(file.setPermissions({}));
            // With privileges that read any file, take one that fails on read instead.
            if (file.open(QIODevice::ReadOnly))
                path = u"/proc/self/mem"_s;
        } else if (kind == u"latin1"_s) {
            QFile file(path);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write("numpy\ncaf\xe9\n");
        }

        const RequirementsFile parsed = readRequirementsFile(path);
        QCOMPARE(parsed.diagnostics.size(), 1);
        const Diagnostic &d = parsed.diagnostics.first();
        QVERIFY(d.isError());
        QVERIFY2(d.where.message.startsWith(message), qPrintable(d.where.message));
        QCOMPARE(d.where.path, path);
        QVERIFY(!d.where.hint.isEmpty());
        QVERIFY(parsed.requirements.isEmpty());
    }

    // A bad included file is reported at the -r line that names it.
    void badIncludeIsReportedWhereIncluded()
    {
        QTemporaryDir dir;
        QFile main(dir.filePath(u"main.txt"_s));
        QVERIFY(main.open(QIODevice::WriteOnly));
        main.write("ok==1\n-r sub\n");
        main.close();
        QVERIFY(QDir(dir.path()).mkdir(u"sub"_s));
        const RequirementsFile parsed = readRequirementsFile(main.fileName());
        QCOMPARE(parsed.diagnostics.size(), 1);
        QCOMPARE(parsed.diagnostics.first().where.line, 2);
        QCOMPARE(parsed.diagnostics.first().where.message,
                 u"cannot include %1: is a folder, not a requirements file"_s.arg(dir.filePath(u"sub"_s)));
    }

    // Includes that repeat without a cycle (each file naming the next one twice) stop early.
    void repeatedIncludesStayQuick()
    {
        QTemporaryDir dir;
        for (int i = 0; i < 30; ++i) {
            QFile file(dir.filePath(u"r%1.txt"_s.arg(i)));
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(u"pkg%1==1\n-r r%2.txt\n-r r%2.txt\n"_s.arg(i).arg(i + 1).toUtf8());
        }
        QFile last(dir.filePath(u"r30.txt"_s));
        QVERIFY(last.open(QIODevice::WriteOnly));
        last.close();
        // Without stopping early, 2^30 reads (tests/bench/parsers.sh times it).
        const RequirementsFile parsed = readRequirementsFile(dir.filePath(u"r0.txt"_s));
        QVERIFY(hasErrors(parsed.diagnostics));
        QVERIFY(dump(parsed.diagnostics).first().endsWith(u"error: more than 1000 included files"_s));
    }

    void pipLines_data()
    {
        QTest::addColumn<QString>("line");
        QTest::addColumn<QString>("expected"); // dump(), or "error COLUMN: MESSAGE"
        QTest::newRow("requirement") << u"Requests [socks] >= 2.0  # comment"_s << u"R requests[socks]>=2"_s;
        QTest::newRow("hashes sorted") << u"idna==3.4 --hash %1 --hash=%2"_s.arg(sha1, sha2)
                                       << u"R idna==3.4 --hash=%1 --hash=%2"_s.arg(sha2, sha1);
        QTest::newRow("editable") << u"-e git+https://h/r.git#egg=r"_s << u"E -e git+https://h/r.git#egg=r"_s;
        QTest::newRow("archive") << u"https://h/p-1.0.tar.gz"_s << u"A https://h/p-1.0.tar.gz"_s;
        QTest::newRow("option line") << u"--extra-index-url https://h/simple"_s
                                     << u"V --extra-index-url https://h/simple"_s;
        QTest::newRow("env var") << u"pkg==${V}"_s << u"V pkg==${V}"_s;
        QTest::newRow("conda pin")
            << u"numpy=1.26"_s << u"error 6: Expected end or semicolon (after name and no valid version specifier)"_s;
        // pip reads a malformed digest (it fails at install time): a warning in a file, kept here.
        QTest::newRow("short digest") << u"numpy --hash=sha256:abc"_s << u"R numpy --hash=sha256:abc"_s;
        QTest::newRow("unknown hash")
            << u"numpy --hash=md5:abc"_s
            << u"error 7: pip allows the hash algorithms sha256, sha384 and sha512, not 'md5'"_s;
        QTest::newRow("empty") << u"   # only a comment"_s << u"error 1: empty requirement"_s;
        QTest::newRow("unknown option") << u"--frobnicate"_s << u"V --frobnicate"_s;
        QTest::newRow("unclosed quote") << u"pkg --global-option=\"x"_s
                                        << u"error 21: cannot split the options: unclosed quote or lone backslash"_s;
    }
    void pipLines()
    {
        QFETCH(QString, line);
        const auto parsed = parsePipLine(line);
        const QString actual =
            parsed ? dump(*parsed) : u"error %1: %2"_s.arg(parsed.error().column).arg(parsed.error().message);
        QTEST(actual, "expected");
    }

    // pip drops a word after the options that is no option (optparse keeps it as a positional
    // argument, req_file.py ignores those): azureml-examples' AutoML conda file has
    // `-r https://.../validated_win32_requirements.txt [--no-deps]`. Accepted, with a warning.
    void strayWordAfterTheOptions()
    {
        const QString include = u"-r https://example.com/validated_requirements.txt [--no-deps]"_s;
        const QString hashed = u"numpy==1.26 --hash=%1 stray"_s.arg(sha1);
        const RequirementsFile parsed =
            parseRequirementsText(include + u'\n' + hashed + u"\n--pre scipy\n"_s, u"r.txt"_s);
        QVERIFY2(!hasErrors(parsed.diagnostics), qPrintable(dump(parsed.diagnostics).join(u'\n')));
        QCOMPARE(dump(parsed.requirements), (QStringList{u"V "_s + include, u"R numpy==1.26 --hash="_s + sha1}));
        QVERIFY(parsed.options.pre);
        const QString ignored = u"after the options is ignored: pip drops words that are not options"_s;
        QCOMPARE(dump(parsed.diagnostics),
                 (QStringList{u"r.txt:1:%1: warning: '[--no-deps]' %2"_s.arg(include.indexOf(u'[') + 1).arg(ignored),
                              u"r.txt:1:1: warning: -r https://example.com/validated_requirements.txt is kept as "
                              "written: Ferry does not download requirements files"_s,
                              u"r.txt:2:%1: warning: 'stray' %2"_s.arg(hashed.indexOf(u"stray"_s) + 1).arg(ignored),
                              u"r.txt:3:7: warning: 'scipy' %1"_s.arg(ignored)}));
        // One entry of an environment file's pip list reads the same way.
        const auto line = parsePipLine(include);
        QVERIFY2(line, qPrintable(line ? QString() : line.error().message));
        QCOMPARE(dump(*line), u"V "_s + include);
    }

    void writesOptionsFirst()
    {
        PipOptions options;
        options.indexUrl = u"https://h/simple"_s;
        options.extraIndexUrls << u"https://x/y z"_s;
        options.pre = true;
        options.other << u"--prefer-binary"_s;
        const auto numpy = parsePipLine(u"numpy==1.26"_s);
        QVERIFY(numpy);
        const QString text = writeRequirementsText({*numpy}, options);
        QCOMPARE(text, u"--index-url https://h/simple\n--extra-index-url 'https://x/y z'\n--pre\n--prefer-binary\n"
                       "numpy==1.26\n"_s);
        const RequirementsFile back = parseRequirementsText(text, {});
        QVERIFY(back.options == options);
        QCOMPARE(writeRequirementsText({}, {}), QString());
    }
};

FERRY_TEST_APPLESS_MAIN(TestRequirementsFile)
#include "tst_requirementsfile.moc"
