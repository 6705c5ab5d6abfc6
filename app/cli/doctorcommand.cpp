// `ferry doctor`: checks this installation, loading the trainer plugin (and libtorch) on
// purpose, which nothing else does at start-up, and looks for each optional tool, saying what it
// enables and how to get it. `ferry doctor --store` checks a workspace's run store instead.
#include "cli/command.h"
#include "cli/runsupport.h"

#include "ferry/version.h"
#include "secrets/keychainerror.h"
#include "secrets/secretstore.h"
#include "store/metricexport.h"
#include "targets/containerengine.h"
#include "targets/remoteshell.h"
#include "training/trainerloader.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSettings>
#include <QStandardPaths>

using namespace Qt::StringLiterals;

namespace ferry::cli {

namespace {

constexpr int kProbeMs = 10000; // a tool that does not answer its --version in this time counts as broken

// One optional tool: what Ferry does with it, whether it is here, and how to get it.
struct OptionalPart {
    QString name;
    QString enables;
    bool installed = false; // there, though perhaps not usable (a daemon down, no cluster configured)
    bool found = false;     // there and answering
    QString detail;         // the version, or why it is not usable
    QString hint;           // how to get it (when not found)

    QJsonObject toJson() const
    {
        QJsonObject o{{u"found"_s, found}, {u"installed"_s, installed}, {u"enables"_s, enables}, {u"detail"_s, detail}};
        if (!found)
            o[u"hint"_s] = hint;
        return o;
    }
};

OptionalPart part(const QString &name, const QString &enables, const QString &hint)
{
    OptionalPart p;
    p.name = name;
    p.enables = enables;
    p.hint = hint;
    return p;
}

QString firstLine(const QByteArray &bytes)
{
    return QString::fromLocal8Bit(bytes).trimmed().section(u'\n', 0, 0).trimmed();
}

// A program on PATH answering `program args` with exit code 0; its first line of output is the detail.
OptionalPart probeProgram(OptionalPart part, const QString &program, const QStringList &args)
{
    const QString path = QStandardPaths::findExecutable(program);
    if (path.isEmpty()) {
        part.detail = u"'%1' is not on PATH"_s.arg(program);
        return part;
    }
    const targets::ShellResult r = targets::runProcess(path, args, {}, kProbeMs);
    part.installed = true;
    part.found = r.ok();
    const QString line = firstLine(r.out.isEmpty() ? r.err : r.out); // ssh -V answers on stderr
    part.detail = r.ok() ? u"%1 (%2)"_s.arg(line, path)
                         : u"%1 %2 failed: %3"_s.arg(path, args.join(u' '), r.errorText().section(u'\n', 0, 0));
    return part;
}

OptionalPart probeContainerEngine(const QSettings &settings)
{
    OptionalPart found = part(u"docker"_s,
                              u"container runs (--target container), Build Image and Start Devcontainer in the "
                              u"environment editor, ferry env build"_s,
                              u"install Docker (apt install docker.io, then add yourself to the docker group) or "
                              u"Podman (apt install podman); File > Settings chooses between them"_s);
    const auto engine = targets::ContainerEngine::open(targets::kContainerEngineSetting.get(settings));
    if (!engine) {
        found.detail = engine.error().message;
        return found;
    }
    const QString *program = &engine->program();
    found = probeProgram(found, *program, {u"--version"_s});
    if (!found.found)
        return found;
    // `version` also asks the daemon (Docker) or the service (Podman): exit 1 when it is not reachable.
    const targets::ShellResult server = targets::runProcess(*program, {u"version"_s}, {}, kProbeMs);
    if (!server.ok()) {
        found.found = false;
        found.detail += u"; the engine does not answer: "_s + server.errorText().section(u'\n', 0, 0);
        found.hint = u"start it (systemctl start docker) and check that you may use it (the docker group, or "
                     u"DOCKER_HOST)"_s;
        return found;
    }
    if (targets::hostGpuCount() > 0)
        found.detail += engine->gpuRuntimePresent()
                            ? u"; containers get the GPUs"_s
                            : u"; no GPU runtime: install the NVIDIA Container Toolkit for GPUs in containers"_s;
    return found;
}

OptionalPart probeKeychain(QSettings &settings)
{
    OptionalPart keychain = part(u"keychain"_s,
                                 u"secrets: registry passwords, tokens and SSH key passphrases (ferry secret, "
                                 u"--secret-env, environment variables marked secret)"_s,
                                 {});
    secrets::SecretStore store(settings, {QString(secrets::kKeychainService), kProbeMs});
    const auto read = store.readNow(u"ferry-doctor-probe"_s); // a name nobody stores: "not found" means it works
    keychain.found = read.hasValue() || secrets::isMissingSecret(read.error());
    keychain.detail = keychain.found ? u"the Secret Service answers"_s : read.error().message;
    if (!keychain.found)
        keychain.hint = read.error().hint;
    return keychain;
}

QList<OptionalPart> optionalParts(QSettings &settings)
{
    QList<OptionalPart> parts;
    parts << probeContainerEngine(settings);
    parts << probeProgram(part(u"devcontainer"_s,
                               u"Start Devcontainer through the Dev Containers CLI, as VS Code does (without it Ferry "
                               u"starts the same container with docker)"_s,
                               u"npm install -g @devcontainers/cli"_s),
                          u"devcontainer"_s, {u"--version"_s});
    parts << probeProgram(part(u"ssh"_s, u"runs on GPU hosts over SSH (--target ssh:HOST) and Slurm login nodes"_s,
                               u"apt install openssh-client"_s),
                          u"ssh"_s, {u"-V"_s});
    parts << probeProgram(part(u"rsync"_s, u"copying the code and data to SSH and Slurm hosts, and the results back"_s,
                               u"apt install rsync"_s),
                          u"rsync"_s, {u"--version"_s});
    parts << probeProgram(
        part(u"slurm"_s,
             u"Slurm runs submitted from this machine (--target slurm:local); slurm:HOST needs the client "
             u"on the login node only"_s,
             u"apt install slurm-client (and the cluster's slurm.conf and munge key)"_s),
        u"sbatch"_s, {u"--version"_s});
    parts << probeKeychain(settings);
    parts << probeProgram(
        part(u"nvidia-smi"_s,
             u"the GPUs of this machine for runs (their count and names, --gpus for containers); the "
             u"embedded trainer uses CUDA when its libtorch has it"_s,
             u"only on a machine with an NVIDIA GPU: install its driver (apt install nvidia-driver)"_s),
        u"nvidia-smi"_s, {u"-L"_s});
    return parts;
}

// The trainer plugin, libtorch and BLAS, with a tiny fit; exit code and warnings as found.
QJsonObject trainerReport(int &exitCode, QStringList &warnings, run::TrainerLoader &loader)
{
    const auto engine = loader.load();
    if (!engine) {
        exitCode = kExitUserError;
        return QJsonObject{{u"error"_s, engine.error().toString()}};
    }
    const run::TrainerInfo info = (*engine)->info();
    const Expected<void> selfTest = (*engine)->selfTest();
    if (!selfTest)
        exitCode = kExitInternalError;
    if (info.blasLibrary.contains("/blas/"_L1) || info.blasLibrary.isEmpty())
        warnings << u"the reference BLAS is in use: training runs ~10x slower; install "
                    u"libopenblas0-pthread (packaging/install-deps.sh runtime)"_s;
    return QJsonObject{
        {u"plugin"_s, loader.loadedFrom()}, {u"torch"_s, info.torchVersion},
        {u"threads"_s, info.threads},       {u"cudaDevices"_s, info.cudaDevices},
        {u"blas"_s, info.blasLibrary},      {u"selfTest"_s, selfTest ? u"ok"_s : selfTest.error().toString()},
    };
}

void printParts(const QList<OptionalPart> &parts, Io &io)
{
    io.out << "\nOptional parts (each enables more; Ferry works without them):\n";
    for (const OptionalPart &part : parts) {
        io.out << "  " << part.name.leftJustified(12) << ' '
               << (part.found       ? "found: "
                   : part.installed ? "not usable: "
                                    : "missing: ")
               << part.detail << '\n'
               << "  " << QString().leftJustified(12) << " enables: " << part.enables << '\n';
        if (!part.found)
            io.out << "  " << QString().leftJustified(12) << " to get it: " << part.hint << '\n';
    }
    io.out.flush();
}

// `ferry doctor --store`: every block of the workspace's run store read back, and SQLite's own
// check of the file.
int checkStore(const QString &workspace, bool json, Io &io)
{
    auto context = openRunContext(workspace, io);
    if (!context)
        return kExitUserError;
    const QString path = context->store->databasePath();
    const run::RunStore::Check check = context->store->check();
    const int exitCode = check.problems.isEmpty() ? kExitOk : kExitUserError;
    if (json) {
        QJsonObject store = run::checkJson(check);
        store[u"path"_s] = path;
        const QJsonObject report{{u"version"_s, QString::fromLatin1(kVersion)},
                                 {u"qt"_s, QString::fromLatin1(qVersion())},
                                 {u"store"_s, store}};
        io.out << QJsonDocument(report).toJson(QJsonDocument::Indented);
        return exitCode;
    }
    io.out << "ferry " << kVersion << " (Qt " << qVersion() << ")\n"
           << "run store: " << path << '\n'
           << "  " << run::checkSummary(check) << '\n';
    if (check.problems.isEmpty())
        io.out << "  OK: every block reads back whole and SQLite finds the file intact\n";
    for (const QString &problem : check.problems)
        io.out << "  problem: " << problem << '\n';
    io.out.flush();
    if (!check.problems.isEmpty())
        io.err << "ferry doctor: the run store has " << check.problems.size() << " problem(s); copy " << path
               << " away before changing anything, then delete the runs named (ferry runs delete ID) or "
                  "restore the file from a backup"
               << Qt::endl;
    return exitCode;
}

class DoctorCommand final : public Command {
public:
    QString name() const override { return u"doctor"_s; }
    QString summary() const override
    {
        return u"check this installation: the trainer (libtorch, BLAS, a tiny fit) and the optional tools; "
               u"--store: a workspace's run store"_s;
    }
    void configure(QCommandLineParser &parser) const override
    {
        parser.addOption({u"json"_s, u"Print the findings as one JSON object."_s});
        parser.addOption({u"store"_s,
                          u"Check the workspace's run store instead: every block of every run's metrics "
                          u"read back, and SQLite's integrity check. Exit code 1 when it finds problems."_s});
        parser.addOption({u"workspace"_s, u"--store: the workspace folder (default: the current folder)."_s, u"DIR"_s});
    }

    int run(const QCommandLineParser &parser, Io &io) override
    {
        if (parser.isSet(u"store"_s))
            return checkStore(parser.value(u"workspace"_s), parser.isSet(u"json"_s), io);
        if (parser.isSet(u"workspace"_s)) {
            io.err << "ferry doctor: --workspace goes with --store (ferry doctor --store --workspace DIR)" << Qt::endl;
            return kExitUserError;
        }
        QJsonObject report{{u"version"_s, QString::fromLatin1(kVersion)}, {u"qt"_s, QString::fromLatin1(qVersion())}};
        run::TrainerLoader loader(run::TrainerLoader::defaultSearchDirs(QCoreApplication::applicationDirPath()));
        int exitCode = kExitOk;
        QStringList warnings;
        const QJsonObject trainer = trainerReport(exitCode, warnings, loader);
        report[u"trainer"_s] = trainer;
        QSettings settings; // the container engine chosen in the settings, the keychain's names
        const QList<OptionalPart> parts = optionalParts(settings);
        QJsonObject optional;
        for (const OptionalPart &part : parts)
            optional[part.name] = part.toJson();
        report[u"optional"_s] = optional;

        if (parser.isSet(u"json"_s)) {
            report[u"warnings"_s] = QJsonArray::fromStringList(warnings);
            io.out << QJsonDocument(report).toJson(QJsonDocument::Indented);
            return exitCode;
        }
        io.out << "ferry " << kVersion << " (Qt " << qVersion() << ")\n";
        if (trainer.contains(u"error"_s)) {
            io.err << "trainer: " << trainer[u"error"_s].toString() << Qt::endl;
        } else {
            const QString blas = trainer[u"blas"_s].toString();
            io.out << "trainer plugin: " << trainer[u"plugin"_s].toString() << '\n'
                   << "libtorch: " << trainer[u"torch"_s].toString() << ", " << trainer[u"threads"_s].toInt()
                   << " thread(s), " << trainer[u"cudaDevices"_s].toInt() << " CUDA device(s)\n"
                   << "BLAS: " << (blas.isEmpty() ? u"(none mapped)"_s : blas) << '\n'
                   << "self-test: " << trainer[u"selfTest"_s].toString() << '\n';
        }
        printParts(parts, io);
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
