// `ferry train` and `ferry predict` as a user drives them: a CSV in, a recorded run (target
// embedded) with its metrics and model.tar.gz out; predictions from the archive; cancel from
// another Ferry, resume from the checkpoint, a killed trainer shown as lost.
#include "run/archive.h"
#include "support/cli.h"
#include "support/files.h"
#include "support/testenv.h"
#include "support/testmain.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <random>

#if FERRY_HAS_GUI
#include <QImage>
#include <QPainter>
#endif

using namespace Qt::StringLiterals;

namespace {

using ferry::test::runFerry;
using ferry::test::waitFor;
using ferry::test::writeFile;
using Result = ferry::test::CliResult;

QJsonObject json(const Result &r)
{
    return ferry::test::jsonObject(r);
}

// Two classes split by a line; `rows` rows with a header, the label last (text).
QByteArray twoClassCsv(int rows, std::uint64_t seed, bool withLabel = true)
{
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> normal(0.0, 1.0);
    QByteArray csv = withLabel ? "a,b,noise,label\n" : "a,b,noise\n";
    for (int i = 0; i < rows; ++i) {
        const double a = normal(rng) * 3 + 10;
        const double b = normal(rng) * 0.01;
        const double n = normal(rng);
        csv +=
            QByteArray::number(a, 'f', 5) + ',' + QByteArray::number(b, 'f', 6) + ',' + QByteArray::number(n, 'f', 4);
        if (withLabel)
            csv += (a - 10) / 3 + b * 100 > 0 ? ",yes" : ",no";
        csv += '\n';
    }
    return csv;
}

} // namespace

class TestTrainCli : public QObject {
    Q_OBJECT

    QTemporaryDir m_ws;
    QString m_trained; // a run id

    QString ws(const QString &file = {}) const { return file.isEmpty() ? m_ws.path() : m_ws.filePath(file); }
    QJsonObject show(const QString &id) const { return json(runFerry(ws(), {u"runs"_s, u"show"_s, id, u"--json"_s})); }
    QJsonArray metrics(const QString &id) const
    {
        return QJsonDocument::fromJson(runFerry(ws(), {u"runs"_s, u"metrics"_s, id, u"--json"_s}).out.toUtf8()).array();
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_ws.isValid());
        QVERIFY(writeFile(ws(u"train.csv"_s), twoClassCsv(2000, 1)));
        QVERIFY(writeFile(ws(u"new.csv"_s), twoClassCsv(300, 2)));
        QVERIFY(writeFile(ws(u"unlabelled.csv"_s), twoClassCsv(50, 3, false)));
    }

    void trainRecordsARun()
    {
        const Result r = runFerry(ws(), {u"train"_s, u"--data"_s, u"train.csv"_s, u"--epochs"_s, u"4"_s, u"--lr"_s,
                                         u"0.01"_s, u"--layers"_s, u"16"_s, u"--json"_s});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonObject result = json(r);
        QCOMPARE(result[u"outcome"_s].toString(), u"completed"_s);
        QCOMPARE(result[u"epochs"_s].toInt(), 4);
        QVERIFY2(result[u"metrics"_s][u"val_accuracy"_s].toDouble() > 0.95, qPrintable(r.out));
        m_trained = result[u"run"_s].toString();

        // The run, like any other: status, target, parameters, artifacts.
        const QJsonObject run = show(m_trained);
        QCOMPARE(run[u"status"_s].toString(), u"succeeded"_s);
        QCOMPARE(run[u"target"_s].toString(), u"embedded"_s);
        QStringList params;
        const QJsonObject runParams = run[u"params"_s].toObject();
        for (auto it = runParams.begin(); it != runParams.end(); ++it)
            params << it.key() + u'=' + it.value().toString();
        QVERIFY2(params.contains(u"epochs=4"_s) && params.contains(u"lr=0.01"_s) && params.contains(u"layers=16"_s),
                 qPrintable(params.join(u' ')));

        // Every point once: 1600 training rows in batches of 32 = 50 steps per epoch, a loss
        // point every 10 steps; one epoch record per epoch.
        int losses = 0;
        int accuracies = 0;
        QSet<double> steps;
        for (const QJsonValue &p : metrics(m_trained)) {
            if (p[u"name"_s].toString() == u"loss"_s) {
                ++losses;
                steps.insert(p[u"step"_s].toDouble());
            }
            if (p[u"name"_s].toString() == u"val_accuracy"_s)
                ++accuracies;
        }
        QCOMPARE(losses, 20);
        QCOMPARE(steps.size(), 20);
        QCOMPARE(accuracies, 4);

        // model.tar.gz as SageMaker packs it: the weights and the card at the top.
        const auto entries = ferry::run::archiveEntries(run[u"runDir"_s].toString() + u"/model.tar.gz"_s);
        QVERIFY(entries);
        QVERIFY2(entries->contains(u"model.pt"_s) && entries->contains(u"model.json"_s) &&
                     entries->contains(u"model.ts"_s),
                 qPrintable(entries->join(u' ')));
    }

    // `ferry train` as a newcomer runs it at a terminal (no --json): a line per epoch on stdout
    // with its number, its losses and its validation accuracy, as each epoch ends; then, on
    // stderr, how the training ended and where the model is.
    void trainPrintsEachEpochAtTheTerminal()
    {
        // "epoch 3/4  train_loss 0.2512  val_loss 0.2710  val_accuracy 0.9850"
        const auto epochLines = [](const QByteArray &out, int epochs) {
            const QRegularExpression line(
                u"^epoch ([0-9]+)/%1  train_loss ([0-9]+\\.[0-9]{4})  "
                u"val_loss ([0-9]+\\.[0-9]{4})  val_accuracy ([01]\\.[0-9]{4})$"_s.arg(epochs));
            QList<QRegularExpressionMatch> matches;
            for (const QString &text : QString::fromUtf8(out).split(u'\n', Qt::SkipEmptyParts)) {
                const QRegularExpressionMatch m = line.match(text);
                if (!m.hasMatch())
                    return QList<QRegularExpressionMatch>{}; // stdout holds the epoch lines only
                matches << m;
            }
            return matches;
        };

        // To the end: one line per epoch, in order, its numbers the run's stored metrics.
        const Result done = runFerry(ws(), {u"train"_s, u"--data"_s, u"train.csv"_s, u"--epochs"_s, u"4"_s, u"--lr"_s,
                                            u"0.01"_s, u"--layers"_s, u"16"_s});
        QVERIFY2(done.exitCode == 0, qPrintable(done.err));
        const QList<QRegularExpressionMatch> lines = epochLines(done.out.toUtf8(), 4);
        QVERIFY2(lines.size() == 4, qPrintable(done.out + done.err));
        for (int i = 0; i < 4; ++i)
            QCOMPARE(lines[i].captured(1).toInt(), i + 1);
        QVERIFY2(lines.last().captured(4).toDouble() > 0.95, qPrintable(done.out));
        // stderr: what was read, the run and what it trains on, Ferry's messages, the summary.
        const QStringList err = done.err.split(u'\n', Qt::SkipEmptyParts);
        const QStringList started = err.filter(QRegularExpression(u"^run [^ ]+: training on "_s));
        QVERIFY2(started.size() == 1, qPrintable(done.err));
        const QString id = started.first().section(u' ', 1, 1).chopped(1);
        QCOMPARE(started.first(),
                 u"run %1: training on 2000 samples of table data (classification, 2 classes)"_s.arg(id));
        QCOMPARE(show(id)[u"status"_s].toString(), u"succeeded"_s);
        QMap<QString, QStringList> stored; // name: the epochs' values, as printed
        for (const QJsonValue &p : metrics(id)) {
            if (p[u"epoch"_s].isDouble())
                stored[p[u"name"_s].toString()] << QString::number(p[u"value"_s].toDouble(), 'f', 4);
        }
        const QList<std::pair<int, QString>> columns{{2, u"train_loss"_s}, {3, u"val_loss"_s}, {4, u"val_accuracy"_s}};
        for (const auto &[column, name] : columns) {
            QStringList printed;
            for (const QRegularExpressionMatch &m : lines)
                printed << m.captured(column);
            QCOMPARE(printed, stored.value(name));
        }
        // The summary comes last: the outcome, then the model to predict with.
        const QString archive = u".ferry/runs/%1/model.tar.gz"_s.arg(id);
        QCOMPARE(err.mid(err.size() - 2),
                 (QStringList{u"run %1: completed"_s.arg(id),
                              u"model: %1 (predict with 'ferry predict %1 --data FILE')"_s.arg(archive)}));
        QVERIFY(QFile::exists(ws(archive)));

        // While it trains: the lines of the first epochs arrive with the training far from its
        // end (400 epochs of 16000 rows); Ctrl-C then cancels it, and the summary says so.
        QVERIFY(writeFile(ws(u"long.csv"_s), twoClassCsv(20000, 5)));
        QProcess trainer;
        trainer.setWorkingDirectory(ws());
        trainer.start(ferry::test::ferryBinary(), {u"train"_s, u"--data"_s, u"long.csv"_s, u"--epochs"_s, u"400"_s});
        QVERIFY(trainer.waitForStarted());
        QByteArray out, errBytes;
        QVERIFY(waitFor(
            [&] {
                out += trainer.readAllStandardOutput();
                errBytes += trainer.readAllStandardError();
                return epochLines(out, 400).size() >= 2 || trainer.state() == QProcess::NotRunning;
            },
            120000, 50));
        QVERIFY2(trainer.state() == QProcess::Running, QByteArray(out + errBytes).constData());
        ::kill(static_cast<pid_t>(trainer.processId()), SIGINT);
        QVERIFY(trainer.waitForFinished(60000));
        out += trainer.readAllStandardOutput();
        errBytes += trainer.readAllStandardError();
        QCOMPARE(trainer.exitCode(), 1);
        const QList<QRegularExpressionMatch> seen = epochLines(out, 400);
        QVERIFY2(seen.size() >= 2 && seen.size() < 400, out.constData());
        for (qsizetype i = 0; i < seen.size(); ++i)
            QCOMPARE(seen[i].captured(1).toInt(), i + 1);
        const QStringList cancelled = QString::fromUtf8(errBytes).split(u'\n', Qt::SkipEmptyParts);
        QVERIFY2(cancelled.contains(u"cancelling (the trainer stops within one step)"_s), errBytes.constData());
        const QStringList longStarted = cancelled.filter(QRegularExpression(u"^run [^ ]+: training on "_s));
        QVERIFY2(longStarted.size() == 1, errBytes.constData());
        const QString longId = longStarted.first().section(u' ', 1, 1).chopped(1);
        QVERIFY2(cancelled.size() >= 2 && cancelled.at(cancelled.size() - 2) == u"run %1: cancelled"_s.arg(longId) &&
                     cancelled.last().startsWith(u"model: .ferry/runs/%1/model.tar.gz"_s.arg(longId)),
                 errBytes.constData());
        QCOMPARE(show(longId)[u"status"_s].toString(), u"cancelled"_s);
    }

    void predictFromTheArchive()
    {
        QVERIFY(!m_trained.isEmpty());
        const QString archive = show(m_trained)[u"runDir"_s].toString() + u"/model.tar.gz"_s;
        Result r = runFerry(
            ws(), {u"predict"_s, archive, u"--data"_s, u"new.csv"_s, u"-o"_s, u"predictions.csv"_s, u"--json"_s});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(json(r)[u"rows"_s].toInt(), 300);
        QVERIFY2(json(r)[u"accuracy"_s].toDouble() > 0.95, qPrintable(r.out));
        QFile predictions(ws(u"predictions.csv"_s));
        QVERIFY(predictions.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = predictions.readAll().trimmed().split('\n');
        QCOMPARE(lines.size(), 301);
        QCOMPARE(lines.first(), QByteArray("row,prediction,confidence"));
        QVERIFY2(lines.at(1).startsWith("1,yes,") || lines.at(1).startsWith("1,no,"), lines.at(1).constData());

        // Rows without the target are predicted too.
        r = runFerry(ws(), {u"predict"_s, archive, u"--data"_s, u"unlabelled.csv"_s});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(r.out.trimmed().split(u'\n').size(), 51);

        // A file without the model's columns is refused, naming them.
        QVERIFY(writeFile(ws(u"wrong.csv"_s), "a,c,noise\n1,2,3\n4,5,6\n"));
        r = runFerry(ws(), {u"predict"_s, archive, u"--data"_s, u"wrong.csv"_s});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(u"missing column(s) b"_s), qPrintable(r.err));
    }

    // model.ts is TorchScript that Python's torch loads and runs on the raw CSV rows (no
    // Ferry): the same classes and confidences as `ferry predict`.
    void torchScriptPredictsTheSameInPython()
    {
        QVERIFY(!m_trained.isEmpty());
        const QString modelDir = show(m_trained)[u"runDir"_s].toString() + u"/model"_s;
        QVERIFY(QFileInfo::exists(modelDir + u"/model.ts"_s));
        QProcess python;
        python.setWorkingDirectory(ws());
        python.start(u"/usr/bin/python3"_s, {u"-c"_s, QString::fromUtf8(R"(
import csv, json, sys, torch
model = torch.jit.load(sys.argv[1] + "/model.ts")
card = json.load(open(sys.argv[1] + "/model.json"))
rows = list(csv.DictReader(open("new.csv")))
x = torch.tensor([[float(r[f]) for f in card["input"]["features"]] for r in rows])
p = torch.softmax(model(x), 1)
confidence, index = p.max(1)
for i in range(len(rows)):
    print("%d,%s,%.4f" % (i + 1, card["output"]["classes"][index[i]], confidence[i]))
)"),
                                             modelDir});
        QVERIFY(python.waitForFinished(120000));
        QVERIFY2(python.exitCode() == 0, python.readAllStandardError().constData());
        const QList<QByteArray> fromPython = python.readAllStandardOutput().trimmed().split('\n');
        QFile predicted(ws(u"predictions.csv"_s)); // predictFromTheArchive's
        QVERIFY(predicted.open(QIODevice::ReadOnly));
        QList<QByteArray> fromFerry = predicted.readAll().trimmed().split('\n');
        fromFerry.removeFirst();
        QCOMPARE(fromPython.size(), fromFerry.size());
        for (qsizetype i = 0; i < fromFerry.size(); ++i) {
            const QList<QByteArray> a = fromPython[i].split(','), b = fromFerry[i].split(',');
            QCOMPARE(a.value(1), b.value(1)); // the class
            QVERIFY2(std::abs(a.value(2).toDouble() - b.value(2).toDouble()) < 2e-4,
                     qPrintable(u"row %1: %2 vs %3"_s.arg(i + 1).arg(QString::fromLatin1(fromPython[i]),
                                                                     QString::fromLatin1(fromFerry[i]))));
        }
    }

    void sameSeedSameMetrics()
    {
        const auto losses = [&] {
            const Result r = runFerry(ws(), {u"train"_s, u"--data"_s, u"train.csv"_s, u"--epochs"_s, u"2"_s,
                                             u"--dropout"_s, u"0.3"_s, u"--seed"_s, u"7"_s, u"--json"_s});
            QList<double> values;
            for (const QJsonValue &p : metrics(json(r)[u"run"_s].toString()))
                if (p[u"name"_s].toString() == u"loss"_s)
                    values << p[u"value"_s].toDouble();
            return values;
        };
        const QList<double> first = losses();
        QCOMPARE(first.size(), 10);
        QCOMPARE(losses(), first);
    }

    // Cancel from another Ferry: the trainer stops within a step, the run is cancelled and
    // keeps its checkpoint; `--resume` continues from it to the end.
    void cancelThenResume()
    {
        QVERIFY(writeFile(ws(u"big.csv"_s), twoClassCsv(20000, 4)));
        QProcess trainer;
        trainer.setWorkingDirectory(ws());
        trainer.start(ferry::test::ferryBinary(), {u"train"_s, u"--data"_s, u"big.csv"_s, u"--epochs"_s, u"400"_s,
                                                   u"--layers"_s, u"64,64"_s, u"--json"_s});
        QVERIFY(trainer.waitForStarted());
        QString id;
        // Running, with at least one epoch (hence a checkpoint) done.
        QVERIFY(waitFor(
            [&] {
                const QJsonArray runs =
                    QJsonDocument::fromJson(runFerry(ws(), {u"runs"_s, u"list"_s, u"--json"_s}).out.toUtf8()).array();
                for (const QJsonValue &run : runs) {
                    if (run[u"status"_s].toString() == u"running"_s) {
                        id = run[u"id"_s].toString();
                        return QFile::exists(ws(u".ferry/runs/%1/checkpoints/checkpoint.pt"_s.arg(id)));
                    }
                }
                return false;
            },
            120000, 100));
        const Result cancelled = runFerry(ws(), {u"runs"_s, u"cancel"_s, id});
        QVERIFY2(cancelled.exitCode == 0, qPrintable(cancelled.err));
        QVERIFY(trainer.waitForFinished(60000));
        QCOMPARE(trainer.exitCode(), 1);
        const QJsonObject end = QJsonDocument::fromJson(trainer.readAllStandardOutput()).object();
        QCOMPARE(end[u"outcome"_s].toString(), u"cancelled"_s);
        const int epochsDone = end[u"epochs"_s].toInt();
        QVERIFY(epochsDone >= 1 && epochsDone < 400);
        QCOMPARE(show(id)[u"status"_s].toString(), u"cancelled"_s);

        const Result resumed = runFerry(
            ws(), {u"train"_s, u"--resume"_s, id, u"--epochs"_s, QString::number(epochsDone + 1), u"--json"_s});
        QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.err));
        QCOMPARE(json(resumed)[u"outcome"_s].toString(), u"completed"_s);
        QCOMPARE(json(resumed)[u"epochs"_s].toInt(), epochsDone + 1);
        QFile log(show(json(resumed)[u"run"_s].toString())[u"runDir"_s].toString() + u"/log"_s);
        QVERIFY(log.open(QIODevice::ReadOnly));
        const QByteArray logText = log.readAll();
        QVERIFY2(logText.contains("resumed from") &&
                     logText.contains(QByteArray(QByteArray("after epoch ") + QByteArray::number(epochsDone))),
                 logText.left(2000).constData());
        // The settings came from the run resumed: 64,64 layers, not the default.
        QStringList params;
        const QJsonObject resumedParams = show(json(resumed)[u"run"_s].toString())[u"params"_s].toObject();
        for (auto it = resumedParams.begin(); it != resumedParams.end(); ++it)
            params << it.key() + u'=' + it.value().toString();
        QVERIFY2(params.contains(u"layers=64,64"_s), qPrintable(params.join(u' ')));
    }

    // A trainer killed outright leaves no exit record: its run is lost, never left running.
    void killedTrainerIsLost()
    {
        QProcess trainer;
        trainer.setWorkingDirectory(ws());
        trainer.start(ferry::test::ferryBinary(),
                      {u"train"_s, u"--data"_s, u"big.csv"_s, u"--epochs"_s, u"400"_s, u"--json"_s});
        QVERIFY(trainer.waitForStarted());
        QString id;
        QVERIFY(waitFor(
            [&] {
                const QJsonArray runs =
                    QJsonDocument::fromJson(runFerry(ws(), {u"runs"_s, u"list"_s, u"--json"_s}).out.toUtf8()).array();
                for (const QJsonValue &run : runs) {
                    if (run[u"status"_s].toString() == u"running"_s)
                        id = run[u"id"_s].toString();
                }
                return !id.isEmpty();
            },
            120000, 100));
        ::kill(static_cast<pid_t>(trainer.processId()), SIGKILL);
        QVERIFY(trainer.waitForFinished(10000));
        QVERIFY(waitFor([&] { return show(id)[u"status"_s].toString() == u"lost"_s; }, 10000, 100));
    }

    // A small CNN learns a folder of generated PNGs (vertical bars vs crosses, anywhere in the
    // picture), and predicts the folder back.
    void cnnLearnsAnImageFolder()
    {
#if FERRY_HAS_GUI
        std::mt19937_64 rng(3);
        for (const QString &cls : {u"bars"_s, u"crosses"_s}) {
            QVERIFY(QDir().mkpath(ws(u"shapes/"_s + cls)));
            for (int i = 0; i < 80; ++i) {
                QImage image(20, 20, QImage::Format_RGB32);
                image.fill(Qt::black);
                QPainter painter(&image);
                painter.setPen(QPen(Qt::white, 2));
                const int x = 4 + static_cast<int>(rng() % 12);
                const int y = 4 + static_cast<int>(rng() % 12);
                painter.drawLine(x, y - 4, x, y + 4);
                if (cls == u"crosses"_s)
                    painter.drawLine(x - 4, y, x + 4, y);
                painter.end();
                QVERIFY(image.save(ws(u"shapes/%1/%2.png"_s.arg(cls).arg(i))));
            }
        }
        Result r = runFerry(ws(), {u"train"_s, u"--data"_s, u"shapes"_s, u"--model"_s, u"cnn"_s, u"--image-size"_s,
                                   u"20x20"_s, u"--conv-channels"_s, u"8"_s, u"--layers"_s, u"32"_s, u"--epochs"_s,
                                   u"15"_s, u"--lr"_s, u"0.005"_s, u"--json"_s});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(json(r)[u"metrics"_s][u"val_accuracy"_s].toDouble() > 0.9, qPrintable(r.out));
        const QString model = json(r)[u"modelDir"_s].toString();
        r = runFerry(ws(), {u"predict"_s, model, u"--data"_s, u"shapes"_s, u"--json"_s});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(json(r)[u"rows"_s].toInt(), 160);
        QVERIFY2(json(r)[u"accuracy"_s].toDouble() > 0.9, qPrintable(r.out));
        // Its TorchScript (convolutions, pooling) runs in Python on a batch of the card's shape.
        QProcess python;
        python.start(u"/usr/bin/python3"_s, {u"-c"_s,
                                             u"import json, sys, torch\n"
                                             u"card = json.load(open(sys.argv[1] + '/model.json'))\n"
                                             u"m = torch.jit.load(sys.argv[1] + '/model.ts')\n"
                                             u"print(list(m(torch.rand([5] + card['input']['shape'])).shape))\n"_s,
                                             model});
        QVERIFY(python.waitForFinished(120000));
        QVERIFY2(python.exitCode() == 0, python.readAllStandardError().constData());
        QCOMPARE(python.readAllStandardOutput().trimmed(), QByteArray("[5, 2]"));
#else
        QSKIP("writing the images needs Qt Gui, which this build leaves out");
#endif
    }

    // The example workspace (resources/example): its script runs under the contract and charts
    // a loss per epoch; its dataset trains with the embedded trainer.
    void exampleWorkspaceRuns()
    {
        const QString example = ws(u"example"_s);
        const QString source = QStringLiteral(FERRY_SOURCE_DIR "/resources/example");
        QVERIFY(QDir().mkpath(example + u"/data"_s) && QDir().mkpath(example + u"/environments"_s));
        for (const QString &file : {u"train.py"_s, u"data/flowers.csv"_s, u"environments/example.yml"_s})
            QVERIFY(QFile::copy(source + u'/' + file, example + u'/' + file));
        Result r = runFerry(example, {u"env"_s, u"check"_s, u"environments/example.yml"_s});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        r = runFerry(example, {u"run"_s, u"train.py"_s, u"--data"_s, u"training=data"_s, u"--hp"_s, u"epochs=12"_s,
                               u"--follow"_s});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QString id = r.out.section(u'\n', 0, 0).trimmed();
        int losses = 0;
        double lastAccuracy = 0;
        const QJsonArray points =
            QJsonDocument::fromJson(runFerry(example, {u"runs"_s, u"metrics"_s, id, u"--json"_s}).out.toUtf8()).array();
        for (const QJsonValue &p : points) {
            losses += p[u"name"_s].toString() == u"loss"_s ? 1 : 0;
            if (p[u"name"_s].toString() == u"accuracy"_s)
                lastAccuracy = p[u"value"_s].toDouble();
        }
        QCOMPARE(losses, 12);
        QVERIFY2(lastAccuracy > 0.9, qPrintable(QString::number(lastAccuracy)));
        r = runFerry(example, {u"train"_s, u"--data"_s, u"data/flowers.csv"_s, u"--epochs"_s, u"30"_s, u"--json"_s});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(json(r)[u"metrics"_s][u"val_accuracy"_s].toDouble() > 0.9, qPrintable(r.out));
    }

    void userErrors_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("message");
        QTest::newRow("no data") << QStringList{u"train"_s} << u"give the dataset with --data PATH"_s;
        QTest::newRow("bad lr") << QStringList{u"train"_s, u"--data"_s, u"train.csv"_s, u"--lr"_s, u"fast"_s}
                                << u"invalid value 'fast' for lr"_s;
        QTest::newRow("bad model") << QStringList{u"train"_s, u"--data"_s, u"train.csv"_s, u"--model"_s, u"rnn"_s}
                                   << u"one of mlp, cnn"_s;
        QTest::newRow("no such data") << QStringList{u"train"_s, u"--data"_s, u"nothing.csv"_s} << u"nothing.csv"_s;
        QTest::newRow("cnn on a table") << QStringList{u"train"_s, u"--data"_s, u"new.csv"_s, u"--model"_s, u"cnn"_s}
                                        << u"a CNN needs images"_s;
        QTest::newRow("predict without data")
            << QStringList{u"predict"_s, u"model"_s} << u"give the model and the data"_s;
        QTest::newRow("predict no model")
            << QStringList{u"predict"_s, u"nowhere"_s, u"--data"_s, u"new.csv"_s} << u"nowhere/model.json"_s;
        QTest::newRow("run embedded") << QStringList{u"run"_s, u"train.csv"_s, u"--target"_s, u"embedded"_s}
                                      << u"use 'ferry train --data PATH'"_s;
    }

    void userErrors()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, message);
        const Result r = runFerry(ws(), arguments);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
    }
};

FERRY_TEST_GUILESS_MAIN(TestTrainCli)
#include "tst_traincli.moc"
