// `ferry notebook convert NB.ipynb [-o train.py] [--force] [--no-hyperparameters] [--dry-run] [--json]`:
// a Jupyter notebook as a percent-format training script that runs on every target.
// `ferry notebook execute NB.ipynb [--env ENV.yml] [--target T] [-o OUT.ipynb] [--allow-errors]
// [--timeout S] [--cwd DIR]`: every code cell run in a fresh kernel, the outputs written back.
#include "cli/command.h"
#include "cli/remoteoptions.h"

#include "common/safefile.h"
#include "common/textfile.h"
#include "kernelhost/kernelconnection.h"
#include "kernelhost/kernelhost.h"
#include "kernelhost/notebookrun.h"
#include "metrics/terminaltext.h"
#include "notebook/conversion.h"
#include "workspace/workspace.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>

using namespace Qt::StringLiterals;

namespace ferry::cli {

namespace {

class NotebookCommand final : public Command {
public:
    QString name() const override { return u"notebook"_s; }
    QString summary() const override
    {
        return u"convert a Jupyter notebook into a training script, or run it in a kernel"_s;
    }
    int maxPositionalArguments() const override { return 2; }

    void configure(QCommandLineParser &parser) const override
    {
        parser.setApplicationDescription(
            u"  ferry notebook convert NB.ipynb [-o train.py] [--force] [--no-hyperparameters] [--dry-run] [--json]\n\n"
            u"Writes a percent-format script (`# %%` cells, markdown as comments) that VS Code, Jupytext and\n"
            u"Spyder open as cells; IPython magics and shell escapes are commented out (and listed). Top-level\n"
            u"constants of the first code cells (lr = 0.01, epochs = 10) become hyperparameters: an argparse cell\n"
            u"takes --NAME VALUE with the notebook's values as defaults, plus the training contract (--model-dir\n"
            u"from SM_MODEL_DIR, data channels from SM_CHANNEL_<NAME>), so 'ferry run train.py --hp epochs=3'\n"
            u"works on every target. Without -o the script is written beside the notebook (NB.py); -o - prints it.\n"
            u"An existing script is never replaced without --force.\n"
            u"--dry-run writes nothing and shows the proposal; --json prints it as JSON.\n\n"
            u"  ferry notebook execute NB.ipynb [--env ENV.yml] [-o OUT.ipynb] [--allow-errors] [--timeout S] [--cwd "
            u"DIR]\n\n"
            u"Runs every code cell in order in a fresh kernel (`ferry kernel`) in the environment, in the\n"
            u"notebook's folder unless --cwd says otherwise, and writes the notebook with its outputs and\n"
            u"execution counts (nbformat 4), as `jupyter nbconvert --to notebook --execute` does: to\n"
            u"NB.nbconvert.ipynb beside it unless -o names the file. It stops at the first cell that raises\n"
            u"(the notebook is written up to it) and exits 1, unless --allow-errors. --timeout interrupts a\n"
            u"cell that runs longer than S seconds and stops there."_s);
        parser.addPositionalArgument(u"action"_s, u"convert, execute"_s, u"ACTION"_s);
        parser.addPositionalArgument(u"notebook"_s, u"The .ipynb file."_s, u"NB.ipynb"_s);
        parser.addOption({{u"o"_s, u"output"_s}, u"Write the script to PATH ('-': standard output)."_s, u"PATH"_s});
        parser.addOption({u"no-hyperparameters"_s, u"Convert the cells only: no argparse cell."_s});
        parser.addOption({u"dry-run"_s, u"Write nothing; show what would be converted."_s});
        parser.addOption({u"json"_s, u"Print the proposal (hyperparameters, commented IPython lines) as JSON."_s});
        parser.addOption({u"force"_s, u"Replace the script if it exists already."_s});
        parser.addOption(
            {u"env"_s, u"execute: the environment file (default: this machine's python3)."_s, u"ENV.yml"_s});
        parser.addOption({u"target"_s, u"execute: where the kernel runs (local)."_s, u"TARGET"_s, u"local"_s});
        parser.addOption({u"allow-errors"_s, u"execute: go on after a cell that raised."_s});
        parser.addOption({u"timeout"_s, u"execute: interrupt a cell after S seconds, and stop there."_s, u"S"_s});
        parser.addOption({u"cwd"_s, u"execute: the folder the kernel works in (default: the notebook's)."_s, u"DIR"_s});
        parser.addOption({u"workspace"_s,
                          u"execute: the workspace that keeps the kernel (default: the current folder)."_s, u"DIR"_s});
    }

    int run(const QCommandLineParser &parser, Io &io) override
    {
        const QStringList args = parser.positionalArguments();
        if (args.value(0) == "execute"_L1)
            return execute(parser, io);
        if (args.value(0) != "convert"_L1) {
            return usage(args.isEmpty() ? u"say what to do: convert or execute"_s
                                        : u"unknown action '%1' (convert, execute)"_s.arg(args.first()),
                         io);
        }
        if (args.size() != 2)
            return usage(u"name the notebook to convert"_s, io);
        const QString &input = args[1];
        const auto notebook = notebook::readNotebook(input);
        if (!notebook) {
            io.err << "ferry notebook: " << notebook.error().toString() << Qt::endl;
            return kExitUserError;
        }
        if (const auto python = notebook::checkPythonNotebook(*notebook); !python) {
            io.err << "ferry notebook: " << python.error().toString() << Qt::endl;
            return kExitUserError;
        }
        notebook::ConversionOptions options;
        options.hyperparameters = !parser.isSet(u"no-hyperparameters"_s);
        options.sourceName = QFileInfo(input).fileName();
        const notebook::Conversion conversion = notebook::convertNotebook(*notebook, options);

        const QFileInfo info(input);
        QString output = parser.value(u"output"_s);
        if (output.isEmpty())
            output = info.path() + u'/' + info.completeBaseName() + u".py"_s;
        if (QFileInfo(output).absoluteFilePath() == info.absoluteFilePath())
            return usage(u"the script would replace the notebook itself; choose another -o"_s, io);
        const bool dryRun = parser.isSet(u"dry-run"_s);
        const bool json = parser.isSet(u"json"_s);
        // The GUI asks before replacing; the command line has no one to ask (security review L8).
        if (!dryRun && output != "-"_L1 && entryKind(output) != EntryKind::Missing && !parser.isSet(u"force"_s)) {
            io.err << "ferry notebook: " << output << " exists already; give --force to replace it, or -o another path"
                   << Qt::endl;
            return kExitUserError;
        }

        for (const notebook::IPythonLine &line : conversion.ipython)
            io.err << input << ": cell " << line.cell + 1 << ", line " << line.line + 1 << ": warning: " << line.kind
                   << " '" << line.text.section(u'\n', 0, 0) << "' is IPython syntax; commented out" << Qt::endl;
        if (json) {
            QJsonObject proposal = conversion.proposalJson();
            proposal.insert(u"notebook"_s, input);
            proposal.insert(u"script"_s, dryRun || output == "-"_L1 ? QJsonValue() : QJsonValue(output));
            io.out << QJsonDocument(proposal).toJson(QJsonDocument::Indented);
        } else if (dryRun) {
            printProposal(conversion, output, io);
        }
        if (dryRun)
            return kExitOk;
        if (output == "-"_L1) {
            if (!json)
                io.out << conversion.script;
            return kExitOk;
        }
        const auto written = writeTextFileAtomically(output, conversion.script);
        if (!written) {
            io.err << "ferry notebook: " << written.error().toString() << Qt::endl;
            return kExitUserError;
        }
        io.err << "wrote " << output << " (" << conversion.codeCells << " code cells, "
               << conversion.hyperparameters.size() << " hyperparameters)" << Qt::endl;
        return kExitOk;
    }

private:
    static int usage(const QString &message, Io &io) { return usageError(u"notebook"_s, message, io); }
    static int fail(const Error &error, Io &io)
    {
        io.err << "ferry notebook: " << run::terminalLines(error.toString()) << Qt::endl;
        return kExitUserError;
    }

    static int execute(const QCommandLineParser &parser, Io &io)
    {
        const QStringList args = parser.positionalArguments();
        if (args.size() != 2)
            return usage(u"name the notebook to execute"_s, io);
        const QString &input = args[1];
        // Checked whole first (nbformat 4, its cells): a bad notebook changes nothing, starts nothing.
        if (const auto checked = notebook::readNotebook(input); !checked)
            return fail(checked.error(), io);
        const auto bytes = readRegularFile(input, 512 << 20);
        if (!bytes || !*bytes)
            return fail(bytes ? Error{u"cannot read the notebook"_s, input, 0, 0, {}} : bytes.error(), io);
        const QJsonObject original = QJsonDocument::fromJson(**bytes).object();
        const QFileInfo info(input);
        QString output = parser.value(u"output"_s);
        if (output.isEmpty())
            output = info.path() + u'/' + info.completeBaseName() + u".nbconvert.ipynb"_s;
        int timeoutMs = -1;
        if (parser.isSet(u"timeout"_s)) {
            bool ok = false;
            const double seconds = parser.value(u"timeout"_s).toDouble(&ok);
            if (!ok || seconds <= 0)
                return usage(u"--timeout takes seconds"_s, io);
            timeoutMs = int(seconds * 1000);
        }
        auto ws =
            workspace::Workspace::open(parser.value(u"workspace"_s).isEmpty() ? u"."_s : parser.value(u"workspace"_s));
        if (!ws)
            return fail(ws.error(), io);

        kernels::KernelRequest request;
        const auto target = run::TargetSpec::parse(parser.value(u"target"_s));
        if (!target)
            return fail(target.error(), io);
        request.target = *target;
        if (parser.isSet(u"env"_s))
            request.environmentFile = QFileInfo(parser.value(u"env"_s)).absoluteFilePath();
        request.workingFolder =
            parser.isSet(u"cwd"_s) ? QFileInfo(parser.value(u"cwd"_s)).absoluteFilePath() : info.absolutePath();
        const QString ferry = QCoreApplication::applicationFilePath();
        io.err << "starting a kernel on " << request.target.toString() << "..." << Qt::endl;
        const auto folder = kernels::startKernel(ws->kernelsDir(), request, ferry);
        if (!folder)
            return fail(folder.error(), io);
        // The kernel is this command's alone: stopped and removed however the run ends.
        struct Release {
            QString folder, ferry;
            ~Release() { (void)kernels::removeKernel(folder, ferry); }
        } release{folder->path(), ferry};
        auto connection = kernels::KernelConnection::open(folder->path(), 0);
        if (!connection)
            return fail(connection.error(), io);
        if (const auto ready = (*connection)->waitReady(); !ready)
            return fail(ready.error(), io);
        kernels::NotebookRunOptions options;
        options.allowErrors = parser.isSet(u"allow-errors"_s);
        options.cellTimeoutMs = timeoutMs;
        const auto result = kernels::runNotebook(original, **connection, options, [&](int cell, int cells) {
            io.err << "cell " << cell + 1 << "/" << cells << Qt::endl;
        });
        if (!result)
            return fail(result.error(), io);
        QJsonObject written = result->notebook;
        const auto saved =
            writeTextFileAtomically(output, QString::fromUtf8(QJsonDocument(written).toJson(QJsonDocument::Indented)));
        if (!saved)
            return fail(saved.error(), io);
        io.err << "wrote " << output << " (" << result->cellsRun << " cells run";
        if (result->errors > 0)
            io.err << ", " << result->errors << " raised";
        io.err << ')' << Qt::endl;
        if (!result->stoppedAt.isEmpty()) {
            io.err << "ferry notebook: stopped: " << run::terminalLines(result->stoppedAt) << Qt::endl;
            return kExitUserError;
        }
        return kExitOk;
    }

    static void printProposal(const notebook::Conversion &conversion, const QString &output, Io &io)
    {
        io.out << "would write " << output << ": " << conversion.codeCells << " code cells, "
               << conversion.markdownCells << " markdown cells" << Qt::endl;
        if (conversion.hyperparameters.isEmpty())
            io.out << "no hyperparameters found" << Qt::endl;
        else
            io.out << "hyperparameters (cell:line  name  type  default):" << Qt::endl;
        for (const notebook::Hyperparameter &hp : conversion.hyperparameters)
            io.out << "  " << hp.cell + 1 << ':' << hp.line + 1 << "  " << hp.name << "  " << hp.type << "  "
                   << hp.value << Qt::endl;
    }
};

} // namespace

std::unique_ptr<Command> makeNotebookCommand()
{
    return std::make_unique<NotebookCommand>();
}

} // namespace ferry::cli
