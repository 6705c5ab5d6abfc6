// `ferry doctor`: checks this installation, loading the trainer plugin (and libtorch) on
// purpose, which nothing else does at start-up.
#include "cli/command.h"

#include "ferry/version.h"
#include "training/trainerloader.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

using namespace Qt::StringLiterals;

namespace ferry::cli {

namespace {

class DoctorCommand final : public Command {
public:
    QString name() const override { return u"doctor"_s; }
    QString summary() const override
    {
        return u"check this installation: trainer plugin, libtorch, BLAS, a tiny training run"_s;
    }
    void configure(QCommandLineParser &parser) const override
    {
        parser.addOption({u"json"_s, u"Print the findings as one JSON object."_s});
    }

    int run(const QCommandLineParser &parser, Io &io) override
    {
        QJsonObject report{{u"version"_s, QString::fromLatin1(kVersion)}, {u"qt"_s, QString::fromLatin1(qVersion())}};
        run::TrainerLoader loader(run::TrainerLoader::defaultSearchDirs(QCoreApplication::applicationDirPath()));
        const auto engine = loader.load();
        int exitCode = kExitOk;
        QStringList warnings;
        if (!engine) {
            report[u"trainer"_s] = QJsonObject{{u"error"_s, engine.error().toString()}};
            exitCode = kExitUserError;
        } else {
            const run::TrainerInfo info = (*engine)->info();
            const QString selfTest = (*engine)->selfTest();
            report[u"trainer"_s] = QJsonObject{
                {u"plugin"_s, loader.loadedFrom()}, {u"torch"_s, info.torchVersion},
                {u"threads"_s, info.threads},       {u"cudaDevices"_s, info.cudaDevices},
                {u"blas"_s, info.blasLibrary},      {u"selfTest"_s, selfTest.isEmpty() ? u"ok"_s : selfTest},
            };
            if (!selfTest.isEmpty())
                exitCode = kExitInternalError;
            if (info.blasLibrary.contains("/blas/"_L1) || info.blasLibrary.isEmpty())
                warnings << u"the reference BLAS is in use: training runs ~10x slower; install "
                            u"libopenblas0-pthread (packaging/install-deps.sh runtime)"_s;
        }

        if (parser.isSet(u"json"_s)) {
            report[u"warnings"_s] = QJsonArray::fromStringList(warnings);
            io.out << QJsonDocument(report).toJson(QJsonDocument::Indented);
            return exitCode;
        }
        io.out << "ferry " << kVersion << " (Qt " << qVersion() << ")\n";
        if (!engine) {
            io.err << "trainer: " << engine.error().toString() << Qt::endl;
            return exitCode;
        }
        const QJsonObject t = report[u"trainer"_s].toObject();
        io.out << "trainer plugin: " << t[u"plugin"_s].toString() << '\n'
               << "libtorch: " << t[u"torch"_s].toString() << ", " << t[u"threads"_s].toInt() << " thread(s), "
               << t[u"cudaDevices"_s].toInt() << " CUDA device(s)\n"
               << "BLAS: " << (t[u"blas"_s].toString().isEmpty() ? u"(none mapped)"_s : t[u"blas"_s].toString()) << '\n'
               << "self-test: " << t[u"selfTest"_s].toString() << Qt::endl;
        for (const QString &w : std::as_const(warnings))
            io.err << "warning: " << w << Qt::endl;
        return exitCode;
    }
};

} // namespace

std::unique_ptr<Command> makeDoctorCommand()
{
    return std::make_unique<DoctorCommand>();
}

} // namespace ferry::cli
