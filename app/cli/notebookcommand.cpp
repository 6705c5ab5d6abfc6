// `ferry notebook convert NB.ipynb [-o train.py] [--force] [--no-hyperparameters] [--dry-run] [--json]`:
// a Jupyter notebook as a percent-format training script that runs on every target.
#include "cli/command.h"

#include "common/safefile.h"
#include "common/textfile.h"
#include "notebook/conversion.h"

#include <QFileInfo>
#include <QJsonDocument>

using namespace Qt::StringLiterals;

namespace ferry::cli {

namespace {

class NotebookCommand final : public Command {
public:
    QString name() const override { return u"notebook"_s; }
    QString summary() const override { return u"convert a Jupyter notebook into a training script"_s; }
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
            u"--dry-run writes nothing and shows the proposal; --json prints it as JSON."_s);
        parser.addPositionalArgument(u"action"_s, u"convert"_s, u"ACTION"_s);
        parser.addPositionalArgument(u"notebook"_s, u"The .ipynb file."_s, u"NB.ipynb"_s);
        parser.addOption({{u"o"_s, u"output"_s}, u"Write the script to PATH ('-': standard output)."_s, u"PATH"_s});
        parser.addOption({u"no-hyperparameters"_s, u"Convert the cells only: no argparse cell."_s});
        parser.addOption({u"dry-run"_s, u"Write nothing; show what would be converted."_s});
        parser.addOption({u"json"_s, u"Print the proposal (hyperparameters, commented IPython lines) as JSON."_s});
        parser.addOption({u"force"_s, u"Replace the script if it exists already."_s});
    }

    int run(const QCommandLineParser &parser, Io &io) override
    {
        const QStringList args = parser.positionalArguments();
        if (args.value(0) != "convert"_L1) {
            return usage(args.isEmpty() ? u"say what to do: convert"_s
                                        : u"unknown action '%1' (convert)"_s.arg(args.first()),
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
