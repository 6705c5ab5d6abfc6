// Runs a fuzz target's LLVMFuzzerTestOneInput without libFuzzer: the regression replay of
// ordinary builds (replay.cmake). Arguments are files or folders (searched recursively; a
// missing one is skipped). Each file is fed whole, then line by line, then field by field
// (tab-separated), the way tests/fuzz/run.sh seeds the fuzzers. A crash fails the test; the
// input being run is named on stderr first.
#include <QByteArrayList>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QStringList>

#include <cstddef>
#include <cstdint>
#include <cstdio>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

namespace {

void run(const QByteArray &input)
{
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>(input.constData()), static_cast<size_t>(input.size()));
}

} // namespace

int main(int argc, char **argv)
{
    QStringList files;
    for (int i = 1; i < argc; ++i) {
        const QString path = QString::fromLocal8Bit(argv[i]);
        if (QFileInfo(path).isDir()) {
            QDirIterator it(path, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
            QStringList found;
            while (it.hasNext())
                found << it.next();
            found.sort(); // the same order every time, so a failure repeats
            files << found;
        } else if (QFileInfo::exists(path)) {
            files << path;
        }
    }
    qsizetype inputs = 0;
    for (const QString &path : files) {
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly)) {
            std::fprintf(stderr, "cannot read %s\n", qPrintable(path));
            return 1;
        }
        std::fprintf(stderr, "replaying %s\n", qPrintable(path));
        const QByteArray bytes = file.readAll();
        run(bytes);
        ++inputs;
        const QByteArrayList lines = bytes.split('\n');
        for (qsizetype n = 0; n < lines.size() && n < 2000; ++n) {
            run(lines[n]);
            const QByteArrayList fields = lines[n].split('\t');
            for (const QByteArray &f : fields)
                run(f);
            inputs += 1 + fields.size();
        }
    }
    std::printf("%lld inputs from %lld files replayed\n", static_cast<long long>(inputs),
                static_cast<long long>(files.size()));
    return 0;
}
