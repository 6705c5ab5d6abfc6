// The SageMaker script-mode contract a run's script sees: paths, arguments, SM_* variables.
#pragma once

#include "run/runspec.h"

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <utility>

namespace ferry::run {

// Where the SageMaker script-mode paths are for one run: inside a container the /opt/ml
// paths (mounted from the run folder), for a local process folders inside the run folder.
struct ContractPaths {
    QString modelDir;                               // SM_MODEL_DIR              /opt/ml/model
    QString outputDir;                              //                           /opt/ml/output (holds `failure`)
    QString outputDataDir;                          // SM_OUTPUT_DATA_DIR        /opt/ml/output/data
    QString inputDir;                               // SM_INPUT_DIR              /opt/ml/input
    QString inputConfigDir;                         // SM_INPUT_CONFIG_DIR       /opt/ml/input/config
    QString checkpointsDir;                         //                           /opt/ml/checkpoints
    QString codeDir;                                // the script's folder       /opt/ml/code
    QList<std::pair<QString, QString>> channelDirs; // SM_CHANNEL_<NAME>  /opt/ml/input/data/<name>

    QString failureFile() const { return outputDir + QStringLiteral("/failure"); }
    // Where a script may write TensorBoard event files (SageMaker's SM_OUTPUT_DIR/tensorboard,
    // its TensorBoardOutputConfig path): Ferry follows them like the log.
    QString tensorboardDir() const { return outputDir + QStringLiteral("/tensorboard"); }
};

// The same layout, inside the run folder (what a local process sees, and what a container's
// mounts come from). Local channels point at the user's data where it is; nothing is copied.
ContractPaths localContractPaths(const QString &runDir, const RunSpec &spec);
ContractPaths containerContractPaths(const RunSpec &spec);

struct Resources {
    int gpus = 0;
    int cpus = 1;
    QString currentHost = QStringLiteral("algo-1");
};

// What this machine offers a local run: GPUs (the target option "gpus" when set, else the
// NVIDIA devices present) and CPUs.
Resources localResources(const RunSpec &spec);

// The spec's fixed arguments, then `--name value` for every hyperparameter, in order: what
// SageMaker passes to the script.
QStringList scriptArguments(const RunSpec &spec);
// What a target starts, as the run sees it: `interpreter script arguments...`, or for a kernel
// `interpreter <keeperFolder>/keeper.py keeperArguments...` ("{kernel}": the keeper's folder as
// the run sees it, "{interpreter}" filled in).
QStringList runCommand(const RunSpec &spec, const QString &interpreter, const QString &keeperFolder);
// The keeper's folder in a kernel's run folder (docs/kernels.md), and the file there naming the
// folder where Ferry reaches the kernel's sockets.
inline constexpr QLatin1StringView kKeeperFolder{"kernel"};
inline constexpr QLatin1StringView kSocketsFile{"sockets"};
// In a container: where the keeper's folder and the sockets' folder are mounted.
inline constexpr QLatin1StringView kContainerKeeperMount{"/opt/ml/ferry/kernel"};
inline constexpr QLatin1StringView kContainerSocketsMount{"/opt/ml/ferry/sockets"};
// The socket folder of the kernel `id` on an SSH host or a Slurm node: `/tmp/ferry-k-<id>` (a
// socket path holds about 100 bytes; the keeper makes it 0700 and refuses one that is not its own,
// and /tmp's sticky bit keeps others from renaming it). A kernel in the environment's image on an
// SSH host has it mounted at kContainerSocketsMount.
QString hostKernelSocketDir(const QString &id);
// SM_* variables (SM_MODEL_DIR, SM_CHANNELS, SM_HPS, SM_HP_<NAME>, ...), in a stable order.
QList<std::pair<QString, QString>> contractEnvironment(const RunSpec &spec, const ContractPaths &paths,
                                                       const Resources &resources);

// The files SageMaker writes into the input config folder.
QJsonObject hyperparametersJson(const RunSpec &spec); // every value a string, as SageMaker writes it
QJsonObject inputDataConfigJson(const RunSpec &spec);
QJsonObject resourceConfigJson(const Resources &resources);

// Creates the run folder's contract layout (model/, output/data/, input/config/ with the three
// JSON files, checkpoints/) for the paths a process will see through `paths`.
Expected<void> prepareContractFolders(const QString &runDir, const RunSpec &spec, const Resources &resources);

// A hyperparameter value as SageMaker decodes it into SM_HPS: JSON numbers, booleans and
// JSON arrays/objects stay typed, everything else is a string.
QJsonValue decodedHyperparameter(const QString &value);

} // namespace ferry::run
