// Pathological input against ordinary input of the same size, for the parsers that once blew
// up (regex backtracking, PCRE's JIT stack, includes that repeat): run by tests/bench/parsers.sh.
// Each case prints the median time of the pathological input, of its peer and their ratio; a
// parser that stays linear keeps the ratio near 1 (the tests check the results, this the time).
#include "env/pip/requirement.h"
#include "env/pip/requirementsfile.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <vector>

using namespace Qt::StringLiterals;
using namespace ferry::env;

namespace {

double medianMs(const std::function<void()> &work, int rounds)
{
    std::vector<double> times;
    for (int i = 0; i < rounds; ++i) {
        QElapsedTimer timer;
        timer.start();
        work();
        times.push_back(double(timer.nsecsElapsed()) / 1e6);
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

void compare(const char *name, const QString &pathological, const QString &ordinary, int rounds)
{
    const double bad = medianMs([&] { (void)parseRequirement(pathological); }, rounds);
    const double peer = medianMs([&] { (void)parseRequirement(ordinary); }, rounds);
    std::printf("%-34s %9.2f ms  peer %9.2f ms  ratio %6.2f  (%lld chars)\n", name, bad, peer, bad / peer,
                static_cast<long long>(pathological.size()));
}

// A chain of `files` requirements files, each naming the next `names` times.
QString writeChain(const QString &dir, int files, int names)
{
    QDir().mkpath(dir);
    for (int i = 0; i < files; ++i) {
        QFile file(dir + u"/r%1.txt"_s.arg(i));
        if (!file.open(QIODevice::WriteOnly))
            return {};
        QString text = u"pkg%1==1\n"_s.arg(i);
        for (int n = 0; n < names; ++n)
            text += u"-r r%1.txt\n"_s.arg(i + 1);
        file.write(text.toUtf8());
    }
    QFile last(dir + u"/r%1.txt"_s.arg(files));
    if (!last.open(QIODevice::WriteOnly))
        return {};
    return dir + u"/r0.txt"_s;
}

} // namespace

int main(int argc, char **argv)
{
    const int rounds = argc > 1 ? std::max(1, atoi(argv[1])) : 5;
    std::printf("median of %d rounds each, the pathological input first, then its peer of the same size\n", rounds);
    const QString many = u"pkg"_s + QString(u">=1.0,"_s).repeated(20000) + u"<2"_s;
    // Twice the clauses, twice the time when the parser is linear in them (four times: quadratic).
    const QString half = u"pkg"_s + QString(u">=1.0,"_s).repeated(10000) + u"<2"_s;
    const double tenTwice = medianMs([&] { (void)parseRequirement(many); }, rounds);
    const double tenOnce = medianMs([&] { (void)parseRequirement(half); }, rounds);
    std::printf("%-34s %9.2f ms  10k %9.2f ms  ratio %6.2f  (2: linear, 4: quadratic)\n", "20k specifiers against 10k",
                tenTwice, tenOnce, tenTwice / tenOnce);
    compare("20k specifiers", many, u"pkg==1."_s + QString(u"0"_s).repeated(int(many.size()) - 7), rounds);
    const QString dotted = u"pkg==1"_s + QString(u".0"_s).repeated(100000) + u"+a.b"_s;
    compare("version of 100k parts", dotted, u"pkg==1."_s + QString(u"0"_s).repeated(int(dotted.size()) - 7), rounds);
    const QString unclosed = u"pkg; "_s + QString(u"("_s).repeated(2000);
    compare("2000 unclosed parentheses", unclosed, u"pkg; "_s + QString(u"a"_s).repeated(2000), rounds);
    const QString badName = QString(u"a"_s).repeated(100000) + u"!"_s;
    compare("100k-letter name, bad end", badName, QString(u"a"_s).repeated(100001), rounds);

    // Each file naming the next twice: without stopping early, 2^30 reads.
    QTemporaryDir dir;
    const QString repeated = writeChain(dir.filePath(u"twice"_s), 30, 2);
    const QString once = writeChain(dir.filePath(u"once"_s), 30, 1);
    const double bad = medianMs([&] { (void)readRequirementsFile(repeated); }, rounds);
    const double peer = medianMs([&] { (void)readRequirementsFile(once); }, rounds);
    std::printf("%-34s %9.2f ms  peer %9.2f ms  ratio %6.2f  (30 files)\n", "includes named twice", bad, peer,
                bad / peer);
    return 0;
}
