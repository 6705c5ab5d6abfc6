// One run across two nodes (issue 20) on a real two-node Slurm (tests/services/slurm.sh with
// NODES=2: slurmd n1 and n2 on this machine) with Debian's python3-torch: a DDP script (gloo,
// init_process_group from the environment) trains a small model; each rank sees the contract's
// names of its own, both ranks' logs are kept, the all-reduced gradients keep the ranks' weights
// equal, rank 0's model is in model.tar.gz; a secret variable reaches every rank, redacted in
// every log. Killing rank 1's process fails the run with that rank's reason and leaves nothing
// running; a cap and a cancel give every rank its SIGTERM and a grace (a rank dying of it does not
// get the others killed meanwhile); a requeue starts every rank again; a cancel leaves nothing in
// squeue.
#include "secrets/secretstore.h"
#include "support/cli.h"
#include "support/files.h"
#include "support/keyring.h"
#include "support/wait.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>

using namespace Qt::StringLiterals;
using namespace ferry::test;

namespace {

// The contract as "contract|NAME|VALUE|..." (no JSON object: the log's metric parser would take
// it for metrics), the weights' checksum as hex doubles, rank 0's loss as metrics, and the
// all-reduce bandwidth.
const QByteArray kDdpScript = R"PY(import argparse, json, os, signal, struct, time

p = argparse.ArgumentParser()
p.add_argument("--steps", type=int, default=20)
p.add_argument("--pause", type=float, default=0.0)
# 1: rank 0 saves a checkpoint on SIGTERM, for 2 s, then ends as SIGTERM would have ended it; the
# other ranks have no handler (they die of it at once, 143)
p.add_argument("--term", type=int, default=0)
a, _ = p.parse_known_args()
if a.term and os.environ.get("RANK") == "0":
    def on_term(*_):
        time.sleep(2)
        print("rank 0: checkpoint saved on SIGTERM", flush=True)
        os._exit(143)
    signal.signal(signal.SIGTERM, on_term)
import torch
import torch.distributed as dist
names = ["RANK", "WORLD_SIZE", "LOCAL_RANK", "NODE_RANK", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT",
         "SM_HOSTS", "SM_CURRENT_HOST", "SM_NUM_GPUS", "SM_FRAMEWORK_PARAMS", "SM_TRAINING_ENV", "SECRET_TOKEN"]
print("contract|" + "|".join(n + "|" + os.environ.get(n, "(unset)") for n in names), flush=True)
with open(os.path.join(os.environ["SM_INPUT_CONFIG_DIR"], "resourceconfig.json")) as f:
    print("resourceconfig hosts " + ",".join(json.load(f)["hosts"]), flush=True)
dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()
torch.manual_seed(1000 + rank)  # each rank starts elsewhere: DDP makes them rank 0's
model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.Tanh(), torch.nn.Linear(16, 1))
ddp = torch.nn.parallel.DistributedDataParallel(model)
opt = torch.optim.SGD(ddp.parameters(), lr=0.05)
data = torch.Generator().manual_seed(rank)  # and each its own batches
for step in range(1, a.steps + 1):
    x = torch.randn(64, 8, generator=data)
    y = x.sum(dim=1, keepdim=True).sin()
    loss = ((ddp(x) - y) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(json.dumps({"step": step, "loss": loss.item()}), flush=True)
    time.sleep(a.pause)
flat = torch.cat([p.detach().double().flatten() for p in model.parameters()])
print("checksum " + struct.pack("<d", float(flat.sum())).hex() + struct.pack("<d", float((flat * flat).sum())).hex(),
      flush=True)
t = torch.ones(4 * 1024 * 1024)
dist.all_reduce(t)
start = time.perf_counter()
for _ in range(3):
    dist.all_reduce(t)
seconds = (time.perf_counter() - start) / 3
print("allreduce 16 MB in %.4f s: bus bandwidth %.1f MB/s" % (seconds, 16 * 2 * (world - 1) / world / seconds), flush=True)
if rank == 0:
    torch.save(model.state_dict(), os.path.join(os.environ["SM_MODEL_DIR"], "model.pt"))
dist.barrier()
dist.destroy_process_group()
)PY";

// NAME → VALUE of the contract line a rank printed.
QMap<QString, QString> contractOf(const QString &log)
{
    QMap<QString, QString> values;
    for (const QString &line : log.split(u'\n')) {
        if (!line.startsWith(u"contract|"_s))
            continue;
        const QStringList parts = line.mid(9).split(u'|');
        for (qsizetype i = 0; i + 1 < parts.size(); i += 2)
            values.insert(parts[i], parts[i + 1]);
    }
    return values;
}

QString lineStartingWith(const QString &log, const QString &start)
{
    for (const QString &line : log.split(u'\n'))
        if (line.startsWith(start))
            return line;
    return {};
}

// Processes on this machine (both nodes' slurmd run here) carrying the run's marker, with their
// RANK ("" for the runner and srun).
QMap<qint64, QString> markedProcesses(const QString &runId)
{
    QMap<qint64, QString> found;
    for (const QString &pid : QDir(u"/proc"_s).entryList(QDir::Dirs)) {
        bool number = false;
        const qint64 n = pid.toLongLong(&number);
        if (!number)
            continue;
        QFile environ(u"/proc/%1/environ"_s.arg(pid));
        if (!environ.open(QIODevice::ReadOnly))
            continue;
        const QList<QByteArray> variables = environ.readAll().split('\0');
        if (!variables.contains("FERRY_RUN_ID=" + runId.toUtf8()))
            continue;
        const QString state = QString::fromUtf8(readFile(u"/proc/%1/stat"_s.arg(pid))).section(u") "_s, 1).left(1);
        if (state == u"Z"_s)
            continue;
        QString rank;
        for (const QByteArray &v : variables)
            if (v.startsWith("RANK="))
                rank = QString::fromUtf8(v.mid(5));
        found.insert(n, rank);
    }
    return found;
}

// The python process of one rank (its command line names the script).
qint64 rankProcess(const QString &runId, const QString &rank)
{
    const auto marked = markedProcesses(runId);
    for (auto it = marked.begin(); it != marked.end(); ++it) {
        if (it.value() != rank)
            continue;
        if (readFile(u"/proc/%1/cmdline"_s.arg(it.key())).contains("ddp.py") &&
            !readFile(u"/proc/%1/cmdline"_s.arg(it.key())).startsWith("env"))
            return it.key();
    }
    return 0;
}

QStringList queue()
{
    return runProgram(u"squeue"_s, {u"-h"_s, u"-o"_s, u"%i"_s}, {}, 30000).out.split(u'\n', Qt::SkipEmptyParts);
}

} // namespace

class TestSlurmMultiNode : public QObject {
    Q_OBJECT

    QTemporaryDir m_ws;
    QTemporaryDir m_cluster; // the run folders "on the cluster", which both nodes share

    QStringList runArguments(const QStringList &extra) const
    {
        return QStringList{u"run"_s,          u"ddp.py"_s,     u"--env"_s, u"env.yml"_s,         u"--target"_s,
                           u"slurm:local"_s,  u"--nodes"_s,    u"2"_s,     u"--gpus-per-node"_s, u"1"_s,
                           u"--remote-dir"_s, m_cluster.path()} +
               extra;
    }
    QString newestRun() const
    {
        return jsonArray(runFerry(m_ws.path(), {u"runs"_s, u"list"_s, u"--json"_s})).first()[u"id"_s].toString();
    }
    QJsonObject show(const QString &id) const
    {
        return jsonObject(runFerry(m_ws.path(), {u"runs"_s, u"show"_s, id, u"--json"_s}));
    }
    QString logOf(const QString &id, int rank) const
    {
        return runFerry(m_ws.path(), {u"runs"_s, u"logs"_s, id, u"--rank"_s, QString::number(rank)}).out;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(!qEnvironmentVariableIsEmpty("SLURM_CONF"), "the slurm2 fixture sets SLURM_CONF");
        const auto nodes = runProgram(u"sinfo"_s, {u"-h"_s, u"-N"_s, u"-o"_s, u"%N"_s}, {}, 30000).out;
        QVERIFY2(nodes.split(u'\n', Qt::SkipEmptyParts).size() == 2, qPrintable(nodes));
        QVERIFY(writeFile(m_ws.filePath(u"ddp.py"_s), kDdpScript));
        // The host's own Python, with Debian's torch.
        QVERIFY(writeFile(m_ws.filePath(u"env.yml"_s),
                          "ferry: 1\nname: host\npython:\n  interpreter: /usr/bin/python3\n  user_managed: true\n"));
    }

    void cleanup()
    {
        for (const QString &job : queue())
            runProgram(u"scancel"_s, {job}, {}, 30000);
    }

    void ddpTrainsAcrossTwoNodes()
    {
        const auto run = runFerry(m_ws.path(), runArguments({u"--follow"_s}), 300000);
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        const QString id = newestRun();
        const QString first = logOf(id, 0), second = logOf(id, 1);
        const auto zero = contractOf(first), one = contractOf(second);
        QCOMPARE(zero.value(u"RANK"_s), u"0"_s);
        QCOMPARE(one.value(u"RANK"_s), u"1"_s);
        for (const auto *c : {&zero, &one}) {
            QCOMPARE(c->value(u"WORLD_SIZE"_s), u"2"_s);
            QCOMPARE(c->value(u"LOCAL_RANK"_s), u"0"_s);
            QCOMPARE(c->value(u"LOCAL_WORLD_SIZE"_s), u"1"_s);
            QCOMPARE(c->value(u"MASTER_ADDR"_s), u"127.0.0.1"_s); // Slurm's address of n1, not its name
            QCOMPARE(c->value(u"SM_HOSTS"_s), uR"(["n1","n2"])"_s);
            QCOMPARE(c->value(u"SM_NUM_GPUS"_s), u"1"_s); // one fake GPU per node (--gres=gpu:1)
            const QJsonObject params = QJsonDocument::fromJson(c->value(u"SM_FRAMEWORK_PARAMS"_s).toUtf8()).object();
            QCOMPARE(params[u"sagemaker_torch_distributed_enabled"_s].toBool(), true);
            QCOMPARE(params[u"sagemaker_instance_count"_s].toInt(), 2);
        }
        QCOMPARE(zero.value(u"MASTER_PORT"_s), one.value(u"MASTER_PORT"_s));
        QVERIFY(zero.value(u"MASTER_PORT"_s).toInt() > 1024);
        QCOMPARE(zero.value(u"NODE_RANK"_s), u"0"_s);
        QCOMPARE(one.value(u"NODE_RANK"_s), u"1"_s);
        QCOMPARE(lineStartingWith(second, u"resourceconfig "_s), u"resourceconfig hosts n1,n2"_s);
        QCOMPARE(zero.value(u"SM_CURRENT_HOST"_s), u"n1"_s);
        QCOMPARE(one.value(u"SM_CURRENT_HOST"_s), u"n2"_s);
        const QJsonObject training = QJsonDocument::fromJson(one.value(u"SM_TRAINING_ENV"_s).toUtf8()).object();
        QCOMPARE(training[u"current_host"_s].toString(), u"n2"_s);
        QCOMPARE(training[u"hosts"_s].toArray().size(), 2);
        // The gradients were all-reduced: both ranks end with rank 0's weights, bit for bit.
        const QString sum0 = lineStartingWith(first, u"checksum "_s), sum1 = lineStartingWith(second, u"checksum "_s);
        QVERIFY2(!sum0.isEmpty(), qPrintable(first));
        QCOMPARE(sum1, sum0);
        qInfo().noquote() << lineStartingWith(first, u"allreduce "_s);
        // Rank 0's log is the run's: its losses are the run's metrics; its model is model.tar.gz.
        const QString csv = runFerry(m_ws.path(), {u"runs"_s, u"metrics"_s, id, u"--csv"_s}).out;
        // The runner's note about the ranks is in the log, and is no metric.
        QVERIFY2(first.contains(u"ferry: 2 nodes (n1 n2), 1 task(s) each, 2 ranks; rendezvous at 127.0.0.1 port "_s),
                 qPrintable(first.left(2000)));
        for (const QString &name : {u"WORLD_SIZE"_s, u"MASTER_PORT"_s, u"port"_s, u"ferry"_s})
            QVERIFY2(!csv.contains(u'\n' + name + u','), qPrintable(name));
        QVERIFY2(csv.count(u"\nloss,"_s) == 20 || csv.count(u"loss,"_s) >= 20, qPrintable(csv.left(400)));
        const QString model = m_ws.filePath(u".ferry/runs/"_s + id + u"/model.tar.gz"_s);
        const auto listed = runProgram(u"tar"_s, {u"-tzf"_s, model}, {}, 30000);
        QVERIFY2(listed.out.contains(u"model.pt"_s), qPrintable(listed.out + listed.err));
        QVERIFY(QFile::exists(m_ws.filePath(u".ferry/runs/"_s + id + u"/ranks/1.log"_s))); // kept here
        QVERIFY(queue().isEmpty());
        // Every rank's process gone (Slurm reaps a finished step's tasks a moment after the job ends).
        QVERIFY2(waitFor([&] { return markedProcesses(id).isEmpty(); }, 30000),
                 qPrintable(QString::number(markedProcesses(id).size()) + u" processes left"_s));
    }

    // A secret variable reaches every rank (each its own copy of the file, which its entry
    // deletes) and every rank's log has it redacted; no file here or on the cluster holds it.
    void aSecretReachesEveryRankRedacted()
    {
        const QString canary = u"canary-ranks-5d1e09b3-secret"_s;
        QSettings settings; // the same settings the ferry processes use (XDG_CONFIG_HOME)
        ferry::secrets::SecretStore store(settings);
        QVERIFY(store.writeNow(u"MN_CANARY"_s, canary));
        const auto run = runFerry(
            m_ws.path(), runArguments({u"--secret-env"_s, u"SECRET_TOKEN=MN_CANARY"_s, u"--follow"_s}), 300000);
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        const QString id = newestRun();
        for (int rank : {0, 1}) {
            const QString log = logOf(id, rank);
            QCOMPARE(contractOf(log).value(u"SECRET_TOKEN"_s), u"***"_s);
            QVERIFY(!lineStartingWith(log, u"checksum "_s).isEmpty());
        }
        QCOMPARE(filesHolding(m_ws.path(), canary), QStringList());
        QCOMPARE(filesHolding(m_cluster.path(), canary), QStringList());
    }

    void aKilledRankFailsTheRunAndStopsTheOthers()
    {
        const auto started =
            runFerry(m_ws.path(), runArguments({u"--hp"_s, u"steps=100000"_s, u"--hp"_s, u"pause=0.05"_s}));
        QVERIFY2(started.exitCode == 0, qPrintable(started.err));
        const QString id = newestRun();
        qint64 victim = 0;
        QVERIFY2(waitFor([&] { return (victim = rankProcess(id, u"1"_s)) != 0 && rankProcess(id, u"0"_s) != 0; },
                         120000, 500),
                 qPrintable(logOf(id, 0)));
        QVERIFY(waitFor([&] { return logOf(id, 0).contains(u"\"step\": 3,"_s); }, 120000, 500));
        // Rank 1's log while the run goes on: copied from the cluster as it is now.
        QVERIFY2(waitFor([&] { return logOf(id, 1).contains(u"\"step\": 3,"_s); }, 60000, 500),
                 qPrintable(logOf(id, 1)));
        QCOMPARE(::kill(pid_t(victim), SIGKILL), 0);
        const auto attached = runFerry(m_ws.path(), {u"runs"_s, u"attach"_s, id}, 300000);
        QVERIFY(attached.exitCode != 0);
        const QJsonObject run = show(id);
        QCOMPARE(run[u"status"_s].toString(), u"failed"_s);
        QVERIFY2(run[u"error"_s].toString().contains(u"rank 1 on n2 was killed by signal 9"_s),
                 qPrintable(run[u"error"_s].toString()));
        QVERIFY(waitFor([&] { return queue().isEmpty() && markedProcesses(id).isEmpty(); }, 60000, 500));
    }

    // The run's cap, held by the runner on the first node: at the cap every rank gets the grace
    // signal (through Slurm, not srun: srun makes a SIGTERM of its own a SIGKILL for every rank,
    // which this test catches); rank 1 dies of it at once while rank 0 takes 2 s to save its
    // checkpoint and is not killed meanwhile; the run ends cancelled with the budget's reason,
    // nothing left running.
    void aCapGivesEveryRankItsGraceSignal()
    {
        const auto started =
            runFerry(m_ws.path(), runArguments({u"--max-time"_s, u"0:00:15"_s, u"--grace"_s, u"30"_s, u"--hp"_s,
                                                u"steps=100000"_s, u"--hp"_s, u"pause=0.2"_s, u"--hp"_s, u"term=1"_s}));
        QVERIFY2(started.exitCode == 0, qPrintable(started.err));
        const QString id = newestRun();
        (void)runFerry(m_ws.path(), {u"runs"_s, u"attach"_s, id}, 300000);
        const QJsonObject run = show(id);
        QCOMPARE(run[u"status"_s].toString(), u"cancelled"_s);
        QCOMPARE(run[u"error"_s].toString(), u"budget: max-time 0:00:15 reached"_s);
        const QString first = logOf(id, 0), second = logOf(id, 1);
        QVERIFY2(first.contains(u"80 % of the budget used: max-time 0:00:15"_s), qPrintable(first));
        QVERIFY2(first.contains(u"rank 0: checkpoint saved on SIGTERM"_s), qPrintable(first));
        QVERIFY2(!first.contains(u"grace of 30 s has passed"_s), qPrintable(first + second));
        QVERIFY(waitFor([&] { return queue().isEmpty() && markedProcesses(id).isEmpty(); }, 60000, 500));
    }

    // A requeued job (preemption, a node lost) starts every rank again as one new attempt.
    void aRequeueRestartsEveryRank()
    {
        const auto started =
            runFerry(m_ws.path(), runArguments({u"--requeue"_s, u"--hp"_s, u"steps=60"_s, u"--hp"_s, u"pause=0.1"_s}));
        QVERIFY2(started.exitCode == 0, qPrintable(started.err));
        const QString id = newestRun();
        QVERIFY2(waitFor([&] { return logOf(id, 0).contains(u"\"step\": 3,"_s); }, 120000, 500),
                 qPrintable(logOf(id, 0)));
        const QString job = QJsonDocument::fromJson(readFile(m_ws.filePath(u".ferry/runs/"_s + id + u"/remote.json"_s)))
                                .object()[u"jobId"_s]
                                .toString();
        QVERIFY(!job.isEmpty());
        QCOMPARE(runProgram(u"scontrol"_s, {u"requeue"_s, job}, {}, 30000).exitCode, 0);
        QVERIFY(waitFor(
            [&] {
                return !runProgram(u"squeue"_s, {u"-h"_s, u"-j"_s, job, u"-t"_s, u"PD"_s}, {}, 30000)
                            .out.trimmed()
                            .isEmpty();
            },
            60000, 200));
        const qint64 requeuedBy = QDateTime::currentSecsSinceEpoch(); // pending: its credential revoked
        // Slurm holds a requeued job for two minutes (BeginTime); let it go, after the second in
        // which its old credential was revoked (tst_slurmtarget says why).
        QVERIFY(waitPastSecond(requeuedBy));
        QCOMPARE(runProgram(u"scontrol"_s, {u"update"_s, u"JobId="_s + job, u"StartTime=now"_s}, {}, 30000).exitCode,
                 0);
        const auto attached = runFerry(m_ws.path(), {u"runs"_s, u"attach"_s, id}, 300000);
        QVERIFY2(attached.exitCode == 0, qPrintable(attached.err + logOf(id, 0)));
        const QString first = logOf(id, 0), second = logOf(id, 1);
        QVERIFY2(first.contains(u"ferry: attempt 2: the job was requeued"_s), qPrintable(first));
        QCOMPARE(first.count(u"contract|"_s), 2); // both ranks ran twice
        QCOMPARE(second.count(u"contract|"_s), 2);
        QCOMPARE(lineStartingWith(second, u"checksum "_s), lineStartingWith(first, u"checksum "_s));
        QCOMPARE(show(id)[u"status"_s].toString(), u"succeeded"_s);
    }

    // A sweep whose trials each span both nodes: still one job array (each task asks for both
    // nodes), each trial a run with both ranks' logs and the contract of a run across nodes.
    void aSweepRunsEachTrialAcrossTheNodes()
    {
        QVERIFY(writeFile(m_ws.filePath(u"sweeps/ddp.yml"_s), uR"(ferry-sweep: 1
script: ddp.py
env: env.yml
target: slurm:local
target_options: {nodes: 2, gpus-per-node: 1, remote-dir: %1}
hyperparameters: {steps: 5}
method: grid
metric: loss
parameters:
  lr: [0.05, 0.1]
max_parallel: 1
)"_s.arg(m_cluster.path())
                                                                  .toUtf8()));
        const auto started = runFerry(m_ws.path(), {u"sweep"_s, u"start"_s, u"sweeps/ddp.yml"_s, u"--wait"_s}, 600000);
        QVERIFY2(started.exitCode == 0, qPrintable(started.err));
        const QJsonObject sweep = jsonObject(
            runFerry(m_ws.path(), {u"sweep"_s, u"show"_s, started.out.trimmed().section(u'\n', -1), u"--json"_s}));
        const QString job = sweep[u"slurmArray"_s][u"job"_s].toString();
        QVERIFY2(!job.isEmpty(), qPrintable(QString::fromUtf8(QJsonDocument(sweep).toJson())));
        const QJsonArray trials = sweep[u"trials"_s].toArray();
        QCOMPARE(trials.size(), 2);
        for (const QJsonValue &trial : trials) {
            const QString id = trial[u"run"_s].toString();
            const QString first = logOf(id, 0), second = logOf(id, 1);
            QVERIFY2(trial[u"status"_s].toString() == u"succeeded"_s,
                     qPrintable(show(id)[u"error"_s].toString() + u"\n"_s + first + u"\n"_s + second +
                                QString::fromUtf8(readFile(m_ws.filePath(u".ferry/runs/"_s + id + u"/spec.json"_s)))));
            const QJsonObject remote =
                QJsonDocument::fromJson(readFile(m_ws.filePath(u".ferry/runs/"_s + id + u"/remote.json"_s))).object();
            QCOMPARE(remote[u"jobId"_s].toString(), u"%1_%2"_s.arg(job).arg(trial[u"trial"_s].toInt()));
            const auto zero = contractOf(first), one = contractOf(second);
            QCOMPARE(zero.value(u"WORLD_SIZE"_s), u"2"_s);
            QCOMPARE(one.value(u"RANK"_s), u"1"_s);
            QCOMPARE(zero.value(u"SM_HOSTS"_s), uR"(["n1","n2"])"_s);
            QCOMPARE(one.value(u"SM_CURRENT_HOST"_s), u"n2"_s);
            QCOMPARE(one.value(u"SM_NUM_GPUS"_s), u"1"_s);
            QVERIFY2(!lineStartingWith(first, u"checksum "_s).isEmpty(), qPrintable(first));
            QCOMPARE(lineStartingWith(second, u"checksum "_s), lineStartingWith(first, u"checksum "_s));
        }
        QVERIFY(queue().isEmpty());
    }

    void cancelStopsEveryRank()
    {
        const auto started =
            runFerry(m_ws.path(),
                     runArguments({u"--hp"_s, u"steps=100000"_s, u"--hp"_s, u"pause=0.2"_s, u"--hp"_s, u"term=1"_s}));
        QVERIFY2(started.exitCode == 0, qPrintable(started.err));
        const QString id = newestRun();
        QVERIFY2(waitFor([&] { return rankProcess(id, u"0"_s) != 0 && rankProcess(id, u"1"_s) != 0; }, 120000, 500),
                 qPrintable(logOf(id, 0)));
        QVERIFY(waitFor([&] { return logOf(id, 0).contains(u"\"step\": 3,"_s); }, 120000, 500));
        const auto cancelled = runFerry(m_ws.path(), {u"runs"_s, u"cancel"_s, id}, 300000);
        QVERIFY2(cancelled.exitCode == 0, qPrintable(cancelled.err));
        QVERIFY(queue().isEmpty());
        QVERIFY(waitFor([&] { return markedProcesses(id).isEmpty(); }, 30000, 500));
        QCOMPARE(show(id)[u"status"_s].toString(), u"cancelled"_s);
        // Every rank got its SIGTERM first and the cancel's grace: rank 0 saved its checkpoint (2 s)
        // although rank 1 died of the signal at once.
        const QString first = logOf(id, 0);
        QVERIFY2(first.contains(u"rank 0: checkpoint saved on SIGTERM"_s), qPrintable(first));
    }
};

FERRY_KEYRING_TEST_MAIN(TestSlurmMultiNode)
#include "tst_slurmmultinode.moc"
