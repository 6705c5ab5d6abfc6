// `ferry env import|export|check|hash|build|devcontainer-up|devcontainer-down`: environments on
// the command line.
#include "cli/command.h"
#include "env/environmentdiff.h"
#include "env/environmentversions.h"

#include "common/textfile.h"
#include "env/exportwriter.h"
#include "env/formats.h"
#include "env/spechash.h"
#include "targets/devcontainer.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>

using namespace Qt::StringLiterals;

namespace ferry::cli {

namespace {

using namespace ferry::env;

class EnvCommand final : public Command {
public:
    QString name() const override { return u"env"_s; }
    QString summary() const override
    {
        return u"import, export, check and hash environments (conda, pip, AzureML, Dockerfile, devcontainer)"_s;
    }
    int maxPositionalArguments() const override { return -1; }

    void configure(QCommandLineParser &parser) const override
    {
        parser.setApplicationDescription(
            u"Environments: the Docker and Python setup a run needs.\n\n"
            u"  ferry env import FILE... [-o ENV.yml]   conda environment.yml, requirements.txt, AzureML v1 json,\n"
            u"                                          AzureML v2 yaml; several files merge in order\n"
            u"  ferry env export ENV.yml --format F [-o PATH]\n"
            u"                                          F: %1\n"
            u"                                          devcontainer: PATH is the .devcontainer folder\n"
            u"  ferry env check ENV.yml                 every problem as file:line:column; exit 1 on errors\n"
            u"  ferry env hash ENV.yml [--json]         canonical spec hash and image tag\n"
            u"  ferry env build ENV.yml [--dev]         build the image (ferry:TAG, with --dev ferry:TAG-dev)\n"
            u"                                          unless it exists; the build log goes to stderr\n"
            u"  ferry env devcontainer-up ENV.yml [--workspace DIR] [--cli PATH | --no-cli] [--json]\n"
            u"                                          start the workspace's devcontainer from the same\n"
            u"                                          image runs use: Dev Containers CLI when installed,\n"
            u"                                          the container engine otherwise; writes\n"
            u"                                          .devcontainer/ferry-NAME/devcontainer.json for VS Code\n"
            u"  ferry env devcontainer-down ENV.yml [--workspace DIR]\n"
            u"                                          stop and remove it\n"
            u"  ferry env add ENV.yml PACKAGE...        add pip requirements (ipykernel, numpy>=2) as a new\n"
            u"                                          version; the earlier one is kept, the change shown"_s.arg(
                exportFormatNames().join(u'|')));
        parser.addPositionalArgument(u"action"_s,
                                     u"import, export, check, hash, build, devcontainer-up, devcontainer-down or add"_s,
                                     u"ACTION"_s);
        parser.addPositionalArgument(u"files"_s, u"Environment file(s)."_s, u"FILE..."_s);
        parser.addOption({{u"o"_s, u"output"_s}, u"Write to PATH instead of standard output."_s, u"PATH"_s});
        parser.addOption({u"format"_s, u"Export format: "_s + exportFormatNames().join(u", "_s) + u'.', u"FORMAT"_s});
        parser.addOption({u"json"_s, u"Print machine-readable JSON (hash, build, devcontainer-up)."_s});
        parser.addOption({u"dev"_s, u"build: the dev stage (the runtime image plus the dev tools)."_s});
        parser.addOption(
            {u"workspace"_s, u"devcontainer-*: the folder mounted (default: the current folder)."_s, u"DIR"_s});
        parser.addOption({u"cli"_s, u"devcontainer-up: the Dev Containers CLI to use."_s, u"PATH"_s});
        parser.addOption({u"no-cli"_s, u"devcontainer-up: the container engine alone, even with the CLI installed."_s});
        parser.addOption(
            {u"engine"_s, u"build, devcontainer-*: docker or podman (default: docker if installed)."_s, u"PROGRAM"_s});
    }

    int run(const QCommandLineParser &parser, Io &io) override
    {
        QStringList args = parser.positionalArguments();
        const QString action = args.value(0);
        if (!args.isEmpty())
            args.removeFirst();
        if (action == "import"_L1)
            return importFiles(args, parser.value(u"output"_s), io);
        if (action == "add"_L1)
            return addPackages(args, io);
        static const QStringList oneFile{u"export"_s, u"check"_s,           u"hash"_s,
                                         u"build"_s,  u"devcontainer-up"_s, u"devcontainer-down"_s};
        if (oneFile.contains(action)) {
            if (args.size() != 1)
                return usage(u"'ferry env %1' takes one environment file"_s.arg(action), io);
            if (action == "build"_L1 || action.startsWith("devcontainer-"_L1)) {
                const auto engine = targets::ContainerEngine::open(parser.value(u"engine"_s));
                if (!engine) {
                    io.err << "ferry env " << action << ": " << engine.error().toString() << Qt::endl;
                    return kExitUserError;
                }
                if (action == "build"_L1)
                    return build(*engine, args.first(), parser.isSet(u"dev"_s), parser.isSet(u"json"_s), io);
                if (action == "devcontainer-up"_L1) {
                    targets::DevcontainerRequest request;
                    request.environmentFile = args.first();
                    request.workspaceFolder = parser.value(u"workspace"_s);
                    request.cli = parser.value(u"cli"_s);
                    request.useCli = !parser.isSet(u"no-cli"_s);
                    return devcontainerUp(*engine, request, parser.isSet(u"json"_s), io);
                }
                return devcontainerDown(*engine, args.first(), parser.value(u"workspace"_s), io);
            }
            if (action == "export"_L1)
                return exportFile(args.first(), parser.value(u"format"_s), parser.value(u"output"_s), io);
            if (action == "check"_L1)
                return check(args.first(), io);
            return hash(args.first(), parser.isSet(u"json"_s), io);
        }
        const QString actions = u"import, export, check, hash, build, devcontainer-up, devcontainer-down or add"_s;
        return usage(action.isEmpty() ? u"say what to do: "_s + actions
                                      : u"unknown action '%1' (%2)"_s.arg(action, actions),
                     io);
    }

private:
    static int usage(const QString &message, Io &io) { return usageError(u"env"_s, message, io); }

    static int addPackages(const QStringList &args, Io &io)
    {
        if (args.size() < 2)
            return usage(u"name the environment file and the package(s) to add"_s, io);
        const auto added = addPipPackages(args.first(), args.mid(1));
        if (!added) {
            io.err << "ferry env add: " << added.error().toString() << Qt::endl;
            return kExitUserError;
        }
        for (const QString &present : added->present)
            io.err << args.first() << ": " << present << " is there already" << Qt::endl;
        if (added->added.isEmpty())
            return kExitOk;
        io.out << args.first() << ": version " << added->before.version << " -> " << added->saved.written.version;
        if (!added->saved.storedVersion.isEmpty())
            io.out << " (version " << added->saved.storedVersion << " kept in " << versionsFolder(args.first()) << ')';
        io.out << '\n';
        for (const EnvironmentChange &change : diffEnvironments(added->before, added->saved.written))
            io.out << "  " << changeKindName(change.kind) << ' ' << change.section << ' ' << change.key
                   << (change.after.isEmpty() ? QString() : u": "_s + change.after) << '\n';
        return kExitOk;
    }

    static int importFiles(const QStringList &files, const QString &output, Io &io)
    {
        if (files.isEmpty())
            return usage(u"name the file(s) to import"_s, io);
        EnvironmentRead read = importEnvironments(files);
        if (read.environment.name.isEmpty())
            read.environment.name = environmentNameFromPath(output.isEmpty() ? files.first() : output);
        if (reportDiagnostics(read.diagnostics, io))
            return kExitUserError;
        const QString text = writeEnvironmentYaml(read.environment);
        if (output.isEmpty()) {
            io.out << text;
            return kExitOk;
        }
        const auto saved = writeTextFileAtomically(output, text);
        if (!saved) {
            io.err << "ferry env: " << saved.error().toString() << Qt::endl;
            return kExitUserError;
        }
        io.err << "wrote " << output << " (" << imageTag(read.environment) << ")" << Qt::endl;
        return kExitOk;
    }

    static int exportFile(const QString &file, const QString &formatText, const QString &output, Io &io)
    {
        if (formatText.isEmpty())
            return usage(u"give --format: "_s + exportFormatNames().join(u", "_s), io);
        const auto format = formatFromName(formatText);
        if (!format)
            return usage(u"unknown format '%1' (%2)"_s.arg(formatText, exportFormatNames().join(u", "_s)), io);
        const EnvironmentRead read = readEnvironment(file);
        if (reportDiagnostics(read.diagnostics, io))
            return kExitUserError;
        const QString baseDir = QFileInfo(file).absolutePath();
        QString dir;
        QString mainName;
        if (!output.isEmpty()) {
            if (*format == Format::Devcontainer) {
                dir = output;
            } else {
                dir = QFileInfo(output).absolutePath();
                mainName = QFileInfo(output).fileName();
            }
        }
        Export exported = exportEnvironment(read.environment, *format, baseDir, mainName);
        if (reportDiagnostics(exported.diagnostics, io))
            return kExitUserError;
        if (output.isEmpty()) {
            io.out << exported.files.first().text;
            if (exported.files.size() > 1) {
                QStringList others;
                for (qsizetype i = 1; i < exported.files.size(); ++i)
                    others << exported.files.at(i).name;
                io.err << "note: not written without -o: " << others.join(u", "_s) << Qt::endl;
            }
            return kExitOk;
        }
        if (!mainName.isEmpty())
            exported.files.first().name = mainName;
        const auto written = writeGeneratedFiles(exported.files, dir);
        if (!written) {
            io.err << "ferry env: " << written.error().toString() << Qt::endl;
            return kExitUserError;
        }
        for (const QString &path : *written)
            io.err << "wrote " << QDir::current().relativeFilePath(path) << Qt::endl;
        return kExitOk;
    }

    static int check(const QString &file, Io &io)
    {
        const EnvironmentRead read = readEnvironment(file);
        if (reportDiagnostics(read.diagnostics, io))
            return kExitUserError;
        qsizetype warnings = read.diagnostics.size();
        io.out << file << ": ok"
               << (warnings ? u" (%1 warning%2)"_s.arg(warnings).arg(warnings == 1 ? u""_s : u"s"_s) : u""_s)
               << ", image " << imageReference(read.environment) << Qt::endl;
        return kExitOk;
    }

    static targets::ContainerEngine::OutputSink progress(Io &io)
    {
        return [&io](const QByteArray &lines) { io.err << QString::fromUtf8(lines) << Qt::flush; };
    }

    static int build(const targets::ContainerEngine &engine, const QString &file, bool dev, bool json, Io &io)
    {
        const EnvironmentRead read = readEnvironment(file);
        if (reportDiagnostics(read.diagnostics, io))
            return kExitUserError;
        QTemporaryDir context;
        if (!context.isValid()) {
            io.err << "ferry env: cannot create a temporary build folder: " << context.errorString() << Qt::endl;
            return kExitUserError;
        }
        const auto image = engine.ensureImage(read.environment, file, context.filePath(u"image"_s),
                                              dev ? targets::ImageStage::Dev : targets::ImageStage::Runtime,
                                              progress(io), 30 * 60 * 1000);
        if (!image) {
            io.err << "ferry env: " << image.error().toString() << Qt::endl;
            return kExitUserError;
        }
        if (json) {
            const QJsonObject object{{u"image"_s, image->reference},
                                     {u"built"_s, image->built},
                                     {u"buildSteps"_s, image->buildSteps},
                                     {u"seconds"_s, static_cast<double>(image->elapsedMs) / 1000.0}};
            io.out << QJsonDocument(object).toJson(QJsonDocument::Indented);
        } else {
            io.out << image->reference << Qt::endl;
        }
        return kExitOk;
    }

    static int devcontainerUp(const targets::ContainerEngine &engine, const targets::DevcontainerRequest &request,
                              bool json, Io &io)
    {
        const auto dc = targets::devcontainerUp(engine, request, progress(io));
        if (!dc) {
            io.err << "ferry env: " << dc.error().toString() << Qt::endl;
            return kExitUserError;
        }
        if (json) {
            const QJsonObject object{{u"method"_s, dc->method},
                                     {u"containerId"_s, dc->containerId},
                                     {u"image"_s, dc->image},
                                     {u"configFile"_s, dc->configFile},
                                     {u"remoteWorkspaceFolder"_s, dc->remoteWorkspaceFolder},
                                     {u"remoteUser"_s, dc->remoteUser},
                                     {u"reused"_s, dc->reused},
                                     {u"built"_s, dc->build.built},
                                     {u"buildSteps"_s, dc->build.buildSteps}};
            io.out << QJsonDocument(object).toJson(QJsonDocument::Indented);
            return kExitOk;
        }
        const QString user = dc->remoteUser == u"root"_s ? QString() : u" -u "_s + dc->remoteUser;
        io.out << "devcontainer " << (dc->reused ? "running" : "started") << ": " << dc->containerId.left(12) << " ("
               << dc->image << ", " << dc->method << ")\n"
               << "  a shell in it:  " << QFileInfo(engine.program()).fileName() << " exec -it" << user << " -w "
               << dc->remoteWorkspaceFolder << ' ' << dc->containerId.left(12) << " bash\n"
               << "  VS Code:        open the folder, then 'Dev Containers: Reopen in Container' ("
               << QDir::current().relativeFilePath(dc->configFile) << ")\n"
               << "  stop it:        ferry env devcontainer-down " << request.environmentFile << Qt::endl;
        return kExitOk;
    }

    static int devcontainerDown(const targets::ContainerEngine &engine, const QString &file, const QString &workspace,
                                Io &io)
    {
        const auto removed = targets::devcontainerDown(engine, file, workspace);
        if (!removed) {
            io.err << "ferry env: " << removed.error().toString() << Qt::endl;
            return kExitUserError;
        }
        if (removed->isEmpty())
            io.out << "no devcontainer of " << file << " in this workspace" << Qt::endl;
        for (const QString &id : *removed)
            io.out << "removed devcontainer " << id.left(12) << Qt::endl;
        return kExitOk;
    }

    static int hash(const QString &file, bool json, Io &io)
    {
        const EnvironmentRead read = readEnvironment(file);
        if (reportDiagnostics(read.diagnostics, io))
            return kExitUserError;
        const Environment &env = read.environment;
        if (json) {
            const QJsonObject object{
                {u"hash"_s, specHash(env)},
                {u"tag"_s, imageTag(env)},
                {u"image"_s, imageReference(env)},
                {u"canonical"_s, QJsonDocument::fromJson(canonicalImageSpec(env).toUtf8()).object()},
            };
            io.out << QJsonDocument(object).toJson(QJsonDocument::Indented);
            return kExitOk;
        }
        io.out << specHash(env) << "  " << imageTag(env) << Qt::endl;
        return kExitOk;
    }
};

} // namespace

std::unique_ptr<Command> makeEnvCommand()
{
    return std::make_unique<EnvCommand>();
}

} // namespace ferry::cli
