#include "env/conda/matchspec.h"
#include "support/testmain.h"

#include <QFile>
#include <QRandomGenerator>
#include <QTest>

#include <algorithm>

using namespace Qt::StringLiterals;
using ferry::env::MatchSpec;
using ferry::env::parseMatchSpec;

namespace {

QString field(const QString &value)
{
    return value == u"-"_s ? QString() : value;
}

// The rows of tests/data/env/matchspec/cases.txt whose first field is `kind`, split at tabs.
QList<QStringList> cases(const QString &kind)
{
    QFile file(QStringLiteral(FERRY_TEST_DATA) + u"/env/matchspec/cases.txt"_s);
    if (!file.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(file.fileName()));
    QList<QStringList> rows;
    const QStringList lines = QString::fromUtf8(file.readAll()).split(u'\n');
    for (const QString &line : lines) {
        const QStringList fields = line.split(u'\t');
        if (!line.startsWith(u'#') && fields.first() == kind)
            rows << fields.mid(1);
    }
    return rows;
}

// Random specs, written down part by part so that each can be spelled in several ways.
struct Constraint {
    QString op; // "==", "fuzzy", ">=", "<", "!=", ">", "<="
    QString version;

    QString canonical() const
    {
        if (op == u"fuzzy"_s)
            return version + u".*"_s;
        return op + version;
    }
};

struct Parts {
    QString channel;
    QString subdir;
    QString name;
    QList<Constraint> constraints;
    QString build;
    QList<std::pair<QString, QString>> others;

    // What canonical() must give, worked out independently of the parser.
    QString expectedCanonical() const
    {
        QString out;
        if (!channel.isEmpty() || !subdir.isEmpty())
            out += (channel.isEmpty() ? u"*"_s : channel) + (subdir.isEmpty() ? QString() : u'/' + subdir) + u"::"_s;
        out += name;
        QStringList atoms;
        for (const Constraint &c : constraints)
            atoms << c.canonical();
        atoms.sort();
        atoms.removeDuplicates();
        if (!atoms.isEmpty() || !build.isEmpty())
            out += u' ' + (atoms.isEmpty() ? u"*"_s : atoms.join(u','));
        if (!build.isEmpty())
            out += u' ' + build;
        auto sorted = others;
        std::sort(sorted.begin(), sorted.end());
        QStringList keys;
        for (const auto &[key, value] : sorted)
            keys << key + u"='"_s + value + u'\'';
        if (!keys.isEmpty())
            out += u'[' + keys.join(u',') + u']';
        return out;
    }
};

class SpecGenerator {
public:
    explicit SpecGenerator(quint32 seed) : m_rng(seed) {}

    template <typename T> const T &pick(const QList<T> &list) { return list.at(m_rng.bounded(list.size())); }
    bool chance(int percent) { return m_rng.bounded(100) < percent; }

    QString version()
    {
        QStringList parts;
        for (int i = 0, n = 1 + m_rng.bounded(3); i < n; ++i)
            parts << QString::number(m_rng.bounded(30));
        QString v = parts.join(u'.');
        if (chance(15))
            v += pick<QString>({u"rc1"_s, u"a2"_s, u".post1"_s, u"+cpu"_s});
        return v;
    }

    Parts parts()
    {
        Parts p;
        p.channel = pick<QString>({{},
                                   {},
                                   u"conda-forge"_s,
                                   u"pytorch"_s,
                                   u"nvidia/label/cuda-12.1.0"_s,
                                   u"https://repo.example.org/chan"_s});
        p.subdir = chance(25) ? pick<QString>({u"linux-64"_s, u"osx-arm64"_s, u"noarch"_s, u"win-64"_s}) : QString();
        p.name = pick<QString>({u"numpy"_s, u"scipy"_s, u"python-dateutil"_s, u"_openmp_mutex"_s, u"r-base"_s,
                                u"libstdcxx-ng"_s, u"py-opencv"_s});
        QStringList versions;
        for (int i = 0, n = m_rng.bounded(4); i < n; ++i) {
            QString v = version();
            if (!versions.contains(v)) { // distinct versions: a mutation always changes the set
                versions << v;
                p.constraints << Constraint{pick<QString>({u"=="_s, u"fuzzy"_s, u">="_s, u"<"_s, u"!="_s, u">"_s}), v};
            }
        }
        p.build =
            chance(40) ? pick<QString>({u"py38_0"_s, u"cuda*"_s, u"*_cpu"_s, u"h12345_1"_s, u"py310h*"_s}) : QString();
        for (const QString &key : {u"md5"_s, u"license"_s, u"sha256"_s}) {
            if (chance(15))
                p.others.append({key, key == u"license"_s ? u"BSD 3-Clause"_s : QString::number(m_rng.generate(), 16)});
        }
        return p;
    }

    // One of the many ways to write `c` (`bracketed`: inside [version='...']).
    QString spell(const Constraint &c, bool mayUseEquals)
    {
        const QString sp = chance(30) ? u" "_s : QString();
        if (c.op == u"=="_s)
            return pick<QString>({u"=="_s + c.version, c.version, u"=="_s + sp + c.version});
        if (c.op == u"fuzzy"_s) {
            QList<QString> ways = {c.version + u".*"_s, c.version + u'*'};
            if (mayUseEquals)
                ways << u'=' + sp + c.version;
            return pick(ways);
        }
        if (c.op == u">="_s && chance(20))
            return u">="_s + c.version + u".*"_s; // conda ignores the .*
        return c.op + sp + c.version;
    }

    QString expression(const Parts &p, bool topLevel)
    {
        // `=1.17 build` alone means exactly 1.17 to conda, so only write `=` where it keeps meaning 1.17.*.
        const bool mayUseEquals = !(topLevel && p.constraints.size() == 1 && !p.build.isEmpty());
        QList<Constraint> order = p.constraints;
        std::shuffle(order.begin(), order.end(), m_rng);
        QStringList atoms;
        for (const Constraint &c : order)
            atoms << spell(c, mayUseEquals);
        return atoms.join(pick<QString>({u","_s, u", "_s, u" , "_s}));
    }

    QString spell(const Parts &p)
    {
        QString name = p.name;
        if (chance(20))
            name[0] = name[0].toUpper();
        QList<std::pair<QString, QString>> brackets = p.others;
        QString out;
        const bool channelInBrackets = chance(30);
        const QString channel =
            (p.channel.isEmpty() ? u"*"_s : p.channel) + (p.subdir.isEmpty() ? QString() : u'/' + p.subdir);
        if (!p.channel.isEmpty() || !p.subdir.isEmpty()) {
            if (channelInBrackets)
                brackets.append({u"channel"_s, channel});
            else
                out += channel + u"::"_s;
        }
        out += name;
        if (chance(35)) { // version and build inside the brackets
            if (!p.constraints.isEmpty())
                brackets.append({u"version"_s, expression(p, false)});
            if (!p.build.isEmpty())
                brackets.append({pick<QString>({u"build"_s, u"build_string"_s}), p.build});
        } else if (!p.constraints.isEmpty() || !p.build.isEmpty()) {
            const QString expr = p.constraints.isEmpty() ? u"*"_s : expression(p, true);
            out += pick<QString>({u" "_s, u"  "_s}) + expr;
            if (!p.build.isEmpty())
                out += (chance(30) ? u"="_s : u" "_s) + p.build;
        }
        std::shuffle(brackets.begin(), brackets.end(), m_rng);
        QStringList entries;
        for (const auto &[key, value] : brackets) {
            const bool mustQuote = value.contains(u' ') || value.contains(u',');
            const QString quote = mustQuote || chance(50) ? pick<QString>({u"'"_s, u"\""_s}) : QString();
            entries << key + u'=' + quote + value + quote;
        }
        if (!entries.isEmpty() || chance(5))
            out += (chance(20) ? u" ["_s : u"["_s) + entries.join(pick<QString>({u","_s, u", "_s, u" "_s})) + u']';
        if (chance(10))
            out += u"  # a comment"_s;
        return out;
    }

private:
    QRandomGenerator m_rng;
};

} // namespace

class TestMatchSpec : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void validSpecs_data()
    {
        QTest::addColumn<QString>("spec");
        QTest::addColumn<QStringList>("expected"); // channel, subdir, name, version, build, canonical
        const QList<QStringList> rows = cases(u"ok"_s);
        QVERIFY(rows.size() >= 60);
        for (const QStringList &row : rows) {
            QVERIFY2(row.size() == 7, qPrintable(row.join(u'|')));
            QStringList expected;
            for (const QString &value : row.mid(1))
                expected << field(value);
            QTest::newRow(qPrintable(row.first())) << row.first() << expected;
        }
        // Rows whose spaces an editor might eat.
        QTest::newRow("leading and trailing space")
            << u"  numpy>=1.17 \t"_s << QStringList{{}, {}, u"numpy"_s, u">=1.17"_s, {}, u"numpy >=1.17"_s};
        QTest::newRow("tabs as separators")
            << u"numpy\t1.17.*\tpy38*"_s
            << QStringList{{}, {}, u"numpy"_s, u"1.17.*"_s, u"py38*"_s, u"numpy 1.17.* py38*"_s};
    }

    void validSpecs()
    {
        QFETCH(QString, spec);
        QFETCH(QStringList, expected);
        const auto parsed = parseMatchSpec(spec);
        QVERIFY2(parsed, qPrintable(parsed ? QString() : parsed.error().toString()));
        QCOMPARE(parsed->channel, expected[0]);
        QCOMPARE(parsed->subdir, expected[1]);
        QCOMPARE(parsed->name, expected[2]);
        QCOMPARE(parsed->version, expected[3]);
        QCOMPARE(parsed->build, expected[4]);
        QCOMPARE(parsed->canonical(), expected[5]);
        QCOMPARE(parsed->text, spec.trimmed());
        // The canonical spelling reads back as the same spec.
        const auto again = parseMatchSpec(parsed->canonical());
        QVERIFY2(again, qPrintable(again ? QString() : again.error().toString()));
        QCOMPARE(again->canonical(), parsed->canonical());
        QCOMPARE(again->version, parsed->version);
        QCOMPARE(again->build, parsed->build);
    }

    void invalidSpecs_data()
    {
        QTest::addColumn<QString>("spec");
        QTest::addColumn<int>("column");
        QTest::addColumn<QString>("message");
        const QList<QStringList> rows = cases(u"error"_s);
        QVERIFY(rows.size() >= 30);
        for (const QStringList &row : rows) {
            QVERIFY2(row.size() == 3, qPrintable(row.join(u'|')));
            QTest::newRow(qPrintable(row[0])) << row[0] << row[1].toInt() << row[2];
        }
        QTest::newRow("empty") << QString() << 1 << u"expected a package name"_s;
        QTest::newRow("only spaces") << u"   "_s << 1 << u"expected a package name"_s;
        QTest::newRow("newline inside") << u"numpy\n>=1"_s << 6 << u"found U+000A"_s;
        QTest::newRow("non-ASCII name") << u"nümpy"_s << 2 << u"found 'ü'"_s;
        QTest::newRow("leading space counts") << u"  numpy=>1"_s << 8 << u"unknown operator '=>'"_s;
        QTest::newRow("deep parentheses") << u"numpy[version='%1 1 %2']"_s.arg(QString(40, u'('), QString(40, u')'))
                                          << 48 << u"expected at most 32 nested parentheses"_s;
    }

    void invalidSpecs()
    {
        QFETCH(QString, spec);
        QFETCH(int, column);
        QFETCH(QString, message);
        const auto parsed = parseMatchSpec(spec);
        QVERIFY2(!parsed, qPrintable(parsed ? parsed->canonical() : QString()));
        QVERIFY2(parsed.error().message.contains(message), qPrintable(parsed.error().message));
        QVERIFY2(parsed.error().message.contains(u"expected"_s), qPrintable(parsed.error().message));
        QCOMPARE(parsed.error().column, column);
        QCOMPARE(parsed.error().line, 0); // the caller knows the line
    }

    void otherKeysKeepTheirOrder()
    {
        const auto parsed = parseMatchSpec(u"numpy[md5=abc, license='MIT', build_number=3]"_s);
        QVERIFY(parsed);
        const QList<std::pair<QString, QString>> expected = {
            {u"md5"_s, u"abc"_s}, {u"license"_s, u"MIT"_s}, {u"build_number"_s, u"3"_s}};
        QCOMPARE(parsed->otherKeys, expected);
        QCOMPARE(parsed->canonical(), u"numpy[build_number='3',license='MIT',md5='abc']"_s);
    }

    // Property: however a spec is spelled, its canonical form is the same, and that form is a
    // fixed point of parse + canonical().
    void equivalentSpellingsGiveOneCanonical()
    {
        SpecGenerator gen(20240611);
        for (int i = 0; i < 400; ++i) {
            const Parts parts = gen.parts();
            const QString expected = parts.expectedCanonical();
            for (int spelling = 0; spelling < 4; ++spelling) {
                const QString text = gen.spell(parts);
                const auto parsed = parseMatchSpec(text);
                QVERIFY2(parsed, qPrintable(text + u": "_s + (parsed ? QString() : parsed.error().toString())));
                QVERIFY2(parsed->canonical() == expected,
                         qPrintable(text + u" gave "_s + parsed->canonical() + u", expected "_s + expected));
                const auto again = parseMatchSpec(parsed->canonical());
                QVERIFY2(again && again->canonical() == expected, qPrintable(expected));
            }
        }
    }

    // Property: changing what a spec means (a version, an operator, the build, the channel,
    // the subdir, the name, another key) changes its canonical form.
    void realChangesChangeTheCanonical()
    {
        SpecGenerator gen(7);
        for (int i = 0; i < 400; ++i) {
            const Parts parts = gen.parts();
            Parts changed = parts;
            switch (i % 7) {
            case 0:
                if (changed.constraints.isEmpty())
                    changed.constraints << Constraint{u">="_s, u"1"_s};
                else
                    changed.constraints[0].version += u".1"_s;
                break;
            case 1:
                if (changed.constraints.isEmpty())
                    changed.constraints << Constraint{u"fuzzy"_s, u"2"_s};
                else
                    changed.constraints[0].op = changed.constraints[0].op == u">"_s ? u">="_s : u">"_s;
                break;
            case 2:
                changed.build = changed.build.isEmpty() ? u"py39_0"_s : changed.build + u"x"_s;
                break;
            case 3:
                changed.channel = changed.channel == u"bioconda"_s ? u"conda-forge"_s : u"bioconda"_s;
                break;
            case 4:
                changed.subdir = changed.subdir == u"linux-aarch64"_s ? u"linux-64"_s : u"linux-aarch64"_s;
                break;
            case 5:
                changed.name += u"-base"_s;
                break;
            case 6:
                changed.others.append({u"fn"_s, u"pkg-1.0-0.conda"_s});
                break;
            }
            const auto a = parseMatchSpec(gen.spell(parts));
            const auto b = parseMatchSpec(gen.spell(changed));
            QVERIFY(a && b);
            QVERIFY2(a->canonical() != b->canonical(), qPrintable(a->canonical()));
            QCOMPARE(b->canonical(), changed.expectedCanonical());
        }
    }

    // Whatever the input, the parser answers with a spec or an error whose column lies
    // within the text (or just after it).
    void errorColumnsPointIntoTheText()
    {
        QRandomGenerator rng(99);
        const QString alphabet = u"numpy=<>!~*.,|[]()'\" :/#^$-_0123456789abcrc\tversionbuild"_s;
        for (int i = 0; i < 5000; ++i) {
            QString text;
            for (int n = rng.bounded(24); n > 0; --n)
                text += alphabet[rng.bounded(alphabet.size())];
            const auto parsed = parseMatchSpec(text);
            if (!parsed) {
                QVERIFY2(parsed.error().column >= 1 && parsed.error().column <= text.size() + 1, qPrintable(text));
                QVERIFY2(parsed.error().message.contains(u"expected"_s), qPrintable(parsed.error().message));
            } else {
                const auto again = parseMatchSpec(parsed->canonical());
                QVERIFY2(again && again->canonical() == parsed->canonical(),
                         qPrintable(text + u" -> "_s + parsed->canonical()));
            }
        }
    }
};

FERRY_TEST_APPLESS_MAIN(TestMatchSpec)
#include "tst_matchspec.moc"
