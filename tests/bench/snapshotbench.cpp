// What keeping a run's code costs (tests/bench/snapshot.sh): a source folder of 200 MB in 1,000
// files in 50 folders, in a git repository; its first snapshot, then snapshots after a one-line
// change in one file (the median of 7), each timed with the bytes and objects it added to the
// store. Peer, in the same run on the same tree: `git stash create` (the working tree as a commit)
// plus `git archive` of it, as a tool that keeps code through git would, with the bytes git's
// object store grew by and the archive's size.
//
//   snapshotbench [--megabytes M] [--files N] [--folders F] [--rounds R]
#include "snapshot/snapshot.h"

#include <QCoreApplication>
#include <QDir>
#include <QDirIterator>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QRandomGenerator>
#include <QTemporaryDir>

#include <algorithm>
#include <cstdio>
#include <vector>

using namespace Qt::StringLiterals;
using namespace ferry;

namespace {

QByteArray run(const QString &dir, const QStringList &args, const QByteArray &program = "git")
{
    QProcess p;
    p.setWorkingDirectory(dir);
    p.start(QString::fromLatin1(program), QStringList{u"-c"_s, u"user.name=b"_s, u"-c"_s, u"user.email=b@b"_s} + args);
    p.waitForFinished(600000);
    if (p.exitCode() != 0)
        std::fprintf(stderr, "git %s: %s\n", qPrintable(args.join(u' ')), p.readAllStandardError().constData());
    return p.readAllStandardOutput();
}

qint64 folderBytes(const QString &dir)
{
    qint64 bytes = 0;
    QDirIterator it(dir, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        it.next();
        bytes += it.fileInfo().size();
    }
    return bytes;
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    int megabytes = 200, files = 1000, folders = 50, rounds = 7;
    for (int i = 1; i + 1 < argc; i += 2) {
        const QByteArray flag = argv[i];
        const int value = QByteArray(argv[i + 1]).toInt();
        if (flag == "--megabytes")
            megabytes = value;
        else if (flag == "--files")
            files = value;
        else if (flag == "--folders")
            folders = value;
        else if (flag == "--rounds")
            rounds = value;
    }
    QTemporaryDir temp;
    const QString source = temp.filePath(u"src"_s), objects = temp.filePath(u"objects"_s);
    QRandomGenerator rng(7);
    const qint64 each = qint64(megabytes) * 1024 * 1024 / files;
    for (int f = 0; f < files; ++f) {
        const QString folder = source + u"/pkg%1"_s.arg(f % folders);
        QDir().mkpath(folder);
        QFile file(folder + u"/module%1.py"_s.arg(f));
        if (!file.open(QIODevice::WriteOnly))
            return 1;
        QByteArray bytes;
        bytes.reserve(each);
        while (bytes.size() < each) // text lines, incompressible enough
            bytes +=
                "value_" + QByteArray::number(rng.generate64(), 36) + " = " + QByteArray::number(rng.generate()) + '\n';
        file.write(bytes.left(each));
    }
    QFile train(source + u"/train.py"_s);
    (void)train.open(QIODevice::WriteOnly);
    train.write("import pkg0\nlr = 0.01\nfor epoch in range(10):\n    print(epoch, lr)\n");
    train.close();
    run(source, {u"init"_s, u"-q"_s});
    run(source, {u"add"_s, u"-A"_s});
    run(source, {u"commit"_s, u"-q"_s, u"-m"_s, u"tree"_s});
    std::printf("source folder: %d files in %d folders, %.0f MB, in git\n", files + 1, folders,
                double(folderBytes(source) - folderBytes(source + u"/.git"_s)) / 1e6);

    QElapsedTimer clock;
    clock.start();
    const auto first = snapshot::takeSnapshot(objects, source, snapshot::SourceExcludes());
    if (!first) {
        std::fprintf(stderr, "%s\n", qPrintable(first.error().toString()));
        return 1;
    }
    std::printf("first snapshot: %.2f s, %.1f MB stored, %lld objects\n", double(clock.nsecsElapsed()) / 1e9,
                double(first->addedBytes) / 1e6, static_cast<long long>(first->addedObjects));

    std::vector<double> ourSeconds, ourBytes, ourObjects, gitSeconds, gitBytes, archiveBytes;
    for (int r = 0; r < rounds; ++r) {
        // One line changed in a module two folders down... in pkg7/module7.py's first line.
        const QString changed = source + u"/pkg%1/module%1.py"_s.arg(r % folders);
        QFile f(changed);
        (void)f.open(QIODevice::ReadWrite);
        QByteArray bytes = f.readAll();
        const QByteArray line = QByteArray("value_changed = ") + QByteArray::number(r);
        bytes.replace(0, bytes.indexOf('\n'), line);
        f.seek(0);
        f.write(bytes);
        f.resize(bytes.size());
        f.close();
        clock.restart();
        const auto taken = snapshot::takeSnapshot(objects, source, snapshot::SourceExcludes());
        ourSeconds.push_back(double(clock.nsecsElapsed()) / 1e9);
        ourBytes.push_back(double(taken->addedBytes));
        ourObjects.push_back(double(taken->addedObjects));

        const qint64 gitBefore = folderBytes(source + u"/.git"_s);
        clock.restart();
        const QByteArray stash = run(source, {u"stash"_s, u"create"_s}).trimmed();
        const QByteArray archive = run(source, {u"archive"_s, QString::fromLatin1(stash)});
        gitSeconds.push_back(double(clock.nsecsElapsed()) / 1e9);
        gitBytes.push_back(double(folderBytes(source + u"/.git"_s) - gitBefore));
        archiveBytes.push_back(double(archive.size()));
    }
    std::printf("\nafter a one-line change in one %lld-byte file (median of %d):\n", static_cast<long long>(each),
                rounds);
    std::printf("%-34s %10s %14s %10s\n", "", "seconds", "bytes added", "objects");
    std::printf("%-34s %10.3f %14.0f %10.0f\n", "Ferry snapshot", median(ourSeconds), median(ourBytes),
                median(ourObjects));
    std::printf("%-34s %10.3f %14.0f %10s   (+ an archive of %.0f MB)\n", "git stash create + git archive",
                median(gitSeconds), median(gitBytes), "-", median(archiveBytes) / 1e6);
    std::printf("time: Ferry / git = %.2f; Ferry's bytes / the changed file = %.2f (goal: 0.2 s, ≤ the file "
                "and its folders' listings)\n",
                median(ourSeconds) / median(gitSeconds), median(ourBytes) / double(each));
    return 0;
}
