// Metric lines as training scripts print them.
#include "metrics/metricnames.h"
#include "metrics/metricparser.h"
#include "metrics/metricsyntax.h"
#include "metrics/terminaltext.h"
#include "support/cost.h"
#include "support/testmain.h"

#include <QRandomGenerator>
#include <QTest>

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>

using namespace Qt::StringLiterals;
using namespace ferry::run;

namespace {

QString render(const QList<MetricPoint> &points)
{
    QStringList parts;
    for (const MetricPoint &p : points)
        parts << (std::isnan(p.epoch) ? u"%1@%2=%3"_s.arg(p.name).arg(p.step).arg(p.value)
                                      : u"%1@%2/e%4=%3"_s.arg(p.name).arg(p.step).arg(p.value).arg(p.epoch));
    return parts.join(u' ');
}

QString parse(const QStringList &lines, const QList<MetricDefinition> &definitions = {})
{
    MetricParser parser(definitions);
    QList<MetricPoint> points;
    for (const QString &line : lines)
        parser.parseLine(line, 0, points);
    return render(points);
}

} // namespace

class TestMetricParser : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void defaults_data()
    {
        QTest::addColumn<QStringList>("lines");
        QTest::addColumn<QString>("expected");
        QTest::newRow("json with step") << QStringList{u"{\"loss\": 0.31, \"step\": 120}"_s} << u"loss@120=0.31"_s;
        QTest::newRow("json prefers step over epoch")
            << QStringList{u"{\"epoch\": 2, \"step\": 7, \"acc\": 0.5, \"tag\": \"x\", \"ok\": true}"_s}
            << u"acc@7/e2=0.5"_s;
        QTest::newRow("json without step counts")
            << QStringList{u"{\"loss\": 1}"_s, u"{\"loss\": 0.5}"_s} << u"loss@0=1 loss@1=0.5"_s;
        QTest::newRow("key=value and key: value")
            << QStringList{u"epoch 3 loss=0.25 acc: 0.91"_s} << u"loss@0/e3=0.25 acc@0/e3=0.91"_s;
        QTest::newRow("keras style") << QStringList{u"Epoch 1/10 - loss: 0.6931 - accuracy: 0.5000 - val_loss: 0.69"_s}
                                     << u"loss@0/e1=0.6931 accuracy@0/e1=0.5 val_loss@0/e1=0.69"_s;
        QTest::newRow("scientific and negative")
            << QStringList{u"step=10 lr=1e-4 grad_norm=-2.5E+1"_s} << u"lr@10=0.0001 grad_norm@10=-25"_s;
        QTest::newRow("nan and inf") << QStringList{u"step=1 loss=nan"_s} << u"loss@1=nan"_s;
        QTest::newRow("prose is not a metric")
            << QStringList{u"Downloading: 45% of 10MB, ETA 3s"_s, u"loss 0.3 is fine"_s, u"version 1.2.3"_s}
            << QString();
        QTest::newRow("time stamps are not metrics") << QStringList{u"2024-01-01 12:30:01 INFO started"_s} << QString();
        QTest::newRow("slashes and dots in names")
            << QStringList{u"iteration=5 train/loss=0.4 eval.acc=0.8"_s} << u"train/loss@5=0.4 eval.acc@5=0.8"_s;
        QTest::newRow("malformed json falls back") << QStringList{u"{epoch: 1, loss: 0.3}"_s} << u"loss@0/e1=0.3"_s;
        // Found by fuzz_metric_lines: a field without a name made a metric named "".
        QTest::newRow("fields without a name") << QStringList{u"{\"cer-at\": 8, \"\": 8, \"nbfl_type\": 5}"_s,
                                                              u"{'': 1, 'a': 2}"_s, u"{\"\": 3, \"x\": {}}"_s}
                                               << u"cer-at@0=8 nbfl_type@0=5"_s;
        QTest::newRow("empty and binary") << QStringList{QString(), u"\u0000\u0001\u00ff"_s} << QString();
        // Hugging Face's Trainer prints Python dicts, newer releases with quoted numbers.
        QTest::newRow("python dict")
            << QStringList{u"{'loss': 2.31, 'grad_norm': 1.2, 'learning_rate': 4.9e-05, 'epoch': 0.25}"_s}
            << u"loss@0/e0.25=2.31 grad_norm@0/e0.25=1.2 learning_rate@0/e0.25=4.9e-05"_s;
        QTest::newRow("python dict, quoted numbers")
            << QStringList{u"{'loss': '2.897', \"grad_norm\": 'nan', 'epoch': '0.5'}"_s}
            << u"loss@0/e0.5=2.897 grad_norm@0/e0.5=nan"_s;
        QTest::newRow("python dict, no metrics in strings, booleans and None")
            << QStringList{u"{'train_runtime': 12.5, 'model': 'bert', 'done': True, 'best': None, 'x': -inf}"_s}
            << u"train_runtime@0=12.5 x@0=-inf"_s;
        QTest::newRow("python dict after a progress bar")
            << QStringList{u"  2%|\u2588\u258f   | 200/8264 [23:37<15:44:25,  7.03s/it]{'loss': 12.4476, 'epoch': 0.0}"_s}
            << u"loss@0/e0=12.4476"_s;
        QTest::newRow("python dict that is none of ours")
            << QStringList{u"{'labels': [0, 1], 'loss': 0.5}"_s, u"{'a': tensor(0.5)}"_s} << QString();
        // Lightning: tqdm's postfix, without its version number; the bar's counters are no metrics.
        QTest::newRow("tqdm postfix")
            << QStringList{u"Epoch 0:  45%|\u2588\u2588\u2588\u2588\u258c     | 45/100 [00:01<00:01, 30.12it/s, v_num=0, train_loss=0.31]"_s}
            << u"train_loss@0=0.31"_s;
        QTest::newRow("tqdm bar alone")
            << QStringList{u"100%|\u2588\u2588\u2588\u2588\u2588\u2588| 500/500 [00:10<00:00, 49.90it/s]"_s,
                           u"45it [00:01, 30.12it/s]"_s}
            << QString();
        QTest::newRow("keras redraw with an ETA")
            << QStringList{u" 12/313 [>.............................] - ETA: 5s - loss: 0.6931 - acc: 0.5100"_s}
            << u"loss@0=0.6931 acc@0=0.51"_s;
        QTest::newRow("fraction with its percentage")
            << QStringList{u"Test set: Average loss: 0.0274, Accuracy: 9801/10000 (98%)"_s}
            << u"loss@0=0.0274 Accuracy@0=0.9801"_s;
        QTest::newRow("counters are no metrics")
            << QStringList{u"epoch: 3/10 loss=0.5 batch_loss: 12/500 v_num=4 eta=12"_s} << u"loss@0/e3=0.5"_s;
        // pytorch/examples' MNIST: the epoch is a coordinate, each loss the next point of its curve.
        QTest::newRow("pytorch examples: epoch and batch counters")
            << QStringList{u"Train Epoch: 1 [0/60000 (0%)]\tLoss: 2.300"_s,
                           u"Train Epoch: 1 [640/60000 (1%)]\tLoss: 1.28"_s,
                           u"Train Epoch: 2 [0/60000 (0%)]\tLoss: 0.31"_s}
            << u"Loss@0/e1=2.3 Loss@1/e1=1.28 Loss@2/e2=0.31"_s;
        // A banner: settings printed once before the records (UX review 2026-12-06, finding 4).
        QTest::newRow("a banner is no record")
            << QStringList{u"starting lr=0.01 seed=1"_s, u"Using device cuda, lr=0.001"_s,
                           u"Hyperparameters: lr=0.01 batch_size=32"_s, u"INFO: starting run lr=0.01"_s}
            << QString();
        QTest::newRow("words that qualify a quantity keep a record")
            << QStringList{u"val loss=0.3"_s, u"final test_acc=0.98"_s, u"Results: acc=0.9"_s, u"Epoch 2 lr=0.01"_s,
                           u"starting step=3 loss=0.5"_s}
            << u"loss@0=0.3 test_acc@0=0.98 acc@0=0.9 lr@0/e2=0.01 loss@3=0.5"_s;
        // Hugging Face's banner before training: a qualifier with prose after it is prose.
        QTest::newRow("Hugging Face's training banner")
            << QStringList{u"  Num examples = 1000"_s, u"  Num Epochs = 3"_s, u"  Total optimization steps = 200"_s,
                           u"  Gradient Accumulation steps = 1"_s, u"total loss=1.5"_s}
            << u"loss@0=1.5"_s;
        QTest::newRow("batch is a step") << QStringList{u"batch=12 loss=0.4"_s} << u"loss@12=0.4"_s;
        QTest::newRow("thousands separators")
            << QStringList{u"trainable params: 25,460,736 || all params: 9,267,166,720"_s, u"{'a': 1,'b': 2}"_s}
            << u"params@0=2.54607e+07 params@1=9.26717e+09 a@0=1 b@0=2"_s;
        // Settings printed as Python reprs are no records: a call's keyword arguments, a field line
        // of a multi-line repr, a bar's description and text printed after a bar.
        QTest::newRow("reprs of calls and their fields")
            << QStringList{u"arg is Namespace(config='x.yaml', learning_rate=7e-05, epochs=3) loss=0.5"_s,
                           u"learning_rate=7e-05,"_s, u"TrainOutput(global_step=2260, training_loss=0.04)"_s}
            << u"loss@0=0.5"_s;
        QTest::newRow("a bar's description and what follows it")
            << QStringList{u"Map (num_proc=4):  14%|\u2588\u258f | 5000/36718 [00:00<00:01, 17254.65 examples/s]Token "
                           u"indices sequence length=525 is longer"_s}
            << QString();
    }
    void defaults()
    {
        QFETCH(QStringList, lines);
        QFETCH(QString, expected);
        QCOMPARE(parse(lines), expected);
    }

    // One log line, as the follower hands it to the parser: progress bars' redraws (split at '\r')
    // count once, what was printed between them stays, escapes and backspaces are a terminal's.
    void recordsOfALine_data()
    {
        QTest::addColumn<QByteArray>("line");
        QTest::addColumn<QStringList>("records");
        QTest::newRow("plain") << QByteArray("loss=0.5") << QStringList{u"loss=0.5"_s};
        QTest::newRow("crlf") << QByteArray("loss=0.5\r") << QStringList{u"loss=0.5"_s};
        QTest::newRow("empty") << QByteArray("\r") << QStringList{};
        QTest::newRow("tqdm redraws: the last counts")
            << QByteArray("\r 10%|#  | 1/10 [00:00<00:01, 9.9it/s, loss=0.9]\r 20%|## | 2/10 [00:00<00:01, 9.9it/s, "
                          "loss=0.8]")
            << QStringList{u" 20%|## | 2/10 [00:00<00:01, 9.9it/s, loss=0.8]"_s};
        QTest::newRow("a record between redraws stays")
            << QByteArray(" 10%|#  | 1/10 [00:00<00:01, 9.9it/s]\rval_loss=0.7\r 20%|## | 2/10 [00:00<00:01, 9.9it/s]")
            << QStringList{u"val_loss=0.7"_s, u" 20%|## | 2/10 [00:00<00:01, 9.9it/s]"_s};
        QTest::newRow("a dict glued to a redraw stays")
            << QByteArray(" 1/10 [00:00<00:01, 9.9it/s]{'loss': 1.0}\r 2/10 [00:00<00:01, 9.9it/s]")
            << QStringList{u" 1/10 [00:00<00:01, 9.9it/s]{'loss': 1.0}"_s, u" 2/10 [00:00<00:01, 9.9it/s]"_s};
        QTest::newRow("keras redraws")
            << QByteArray("  1/313 [......] - ETA: 5s - loss: 0.7\r313/313 [======] - 351s 1s/step - loss: 0.6")
            << QStringList{u"313/313 [======] - 351s 1s/step - loss: 0.6"_s};
        QTest::newRow("colours") << QByteArray("\x1b[32mloss=0.5\x1b[0m") << QStringList{u"loss=0.5"_s};
        QTest::newRow("backspaces") << QByteArray("acc=0.123\b\b\b456") << QStringList{u"acc=0.456"_s};
        // Ferry's own notes in a run's log (the supervisor's, the remote runner's) are no script's.
        QTest::newRow("ferry's note") << QByteArray("ferry: 2 nodes (n1 n2), 1 task(s) each, 2 ranks; rendezvous at "
                                                    "127.0.0.1 port 29512")
                                      << QStringList{};
        QTest::newRow("ferry's attempt note") << QByteArray("ferry: attempt 2: the job was requeued") << QStringList{};
    }
    void recordsOfALine()
    {
        QFETCH(QByteArray, line);
        QFETCH(QStringList, records);
        QCOMPARE(metricRecords(line), records);
    }

    void definitionsReplaceDefaults()
    {
        const QList<MetricDefinition> definitions{{u"train:loss"_s, u"loss = ([0-9.]+)"_s},
                                                  {u"valid:acc"_s, u"val_acc=([0-9.]+)"_s}};
        QCOMPARE(parse({u"loss = 0.5 val_acc=0.7 other=3"_s, u"loss = 0.4"_s}, definitions),
                 u"train:loss@0=0.5 valid:acc@0=0.7 train:loss@1=0.4"_s);
    }

    void badDefinitionsAreReported()
    {
        MetricParser parser({{u"a"_s, u"loss=([0-9"_s}, {u"b"_s, u"loss=[0-9]+"_s}, {u"c"_s, u"x=(\\d+)"_s}});
        QCOMPARE(parser.definitionErrors().size(), 2);
        QVERIFY(parser.definitionErrors().at(0).message.startsWith(u"metric 'a': bad regex"_s));
        QVERIFY(parser.definitionErrors().at(1).message.contains(u"no capture group"_s));
    }

    // Review N8: a bundle's definitions run on every line of its rerun. Too many, too long, or a
    // name that is no metric's: said, not used.
    void definitionsAreCapped()
    {
        QList<MetricDefinition> many;
        for (int i = 0; i < 70; ++i)
            many << MetricDefinition{u"m%1"_s.arg(i), u"m%1=([0-9.]+)"_s.arg(i)};
        many[3].regex = u"x=([0-9])"_s + QString(1100, u'y');
        many[4].name = u"bad\nname"_s;
        MetricParser parser(many);
        const QList<ferry::Error> &errors = parser.definitionErrors();
        QCOMPARE(errors.size(), 3);
        QVERIFY2(errors.at(0).message.contains(u"longer than 1024 characters"_s), qPrintable(errors.at(0).message));
        QVERIFY2(errors.at(1).message.contains(u"control character (U+000A)"_s), qPrintable(errors.at(1).message));
        QVERIFY2(errors.at(2).message.startsWith(u"more than 64 metric definitions: 'm64'"_s),
                 qPrintable(errors.at(2).message));
        QList<MetricPoint> points;
        parser.parseLine(u"m0=1 m5=2 m63=3 m64=4"_s, 0, points);
        QCOMPARE(render(points), u"m0@0=1 m5@0=2 m63@0=3"_s);
    }

    // N8: `(a+)+$` on a line of 3,000 a's and a 'b' (100 times a line that already takes a
    // backtracking engine 2^30 steps), and on a line of 1 MiB, the most a log line can be: no
    // point, one warning for the definition, at once; its other lines still match.
    void catastrophicRegexIsBounded()
    {
        MetricParser parser({{u"evil"_s, u"(a+)+$"_s}, {u"loss"_s, u"loss=([0-9.]+)"_s}});
        QVERIFY(parser.definitionErrors().isEmpty());
        QList<MetricPoint> points;
        const QString line = QString(3000, u'a') + u'b';
        const QString huge = QString(1 << 20, u'a') + u'b';
        const auto cost = ferry::test::measure("(a+)+$ on 100 lines", u"3,001 and 1,048,577 characters"_s, [&] {
            for (int i = 0; i < 50; ++i) {
                parser.parseLine(line, 0, points);
                parser.parseLine(huge, 0, points);
            }
        });
        QVERIFY(points.isEmpty());
        const QStringList warnings = parser.takeWarnings();
        QCOMPARE(warnings.size(), 1);
        QVERIFY2(warnings.first().startsWith(u"metric 'evil': its regex took too long"_s),
                 qPrintable(warnings.first()));
        QVERIFY2(ferry::test::secondsWithin(cost.seconds, 10), "about 0.1 s expected (a millisecond a line)");
        parser.parseLine(u"aaa loss=0.5"_s, 0, points);
        QCOMPARE(render(points), u"loss@0=0.5"_s);
        QVERIFY(parser.takeWarnings().isEmpty()); // said once
    }

    // M6 in a log: a key of 1 MiB, a key with a control character (a bell): no points, said
    // once; more distinct names than a run may have (200,000: the review's count): the parser
    // stops at 10,000 (the follower says so: tst_hostiletext).
    void namesAreCapped()
    {
        MetricParser parser;
        QList<MetricPoint> points;
        parser.parseLine(u"{\"loss\": 1, \"be\u0007ll\": 2}"_s, 0, points);
        parser.parseLine(QString(QString(1 << 20, u'k') + u"=3 acc=0.5"_s), 0, points);
        QCOMPARE(render(points), u"loss@0=1 acc@0=0.5"_s);
        QStringList warnings = parser.takeWarnings();
        QCOMPARE(warnings.size(), 1); // one kind of refusal: said once
        QVERIFY2(warnings.first().contains(u"control character (U+0007)"_s), qPrintable(warnings.first()));
        points.clear();
        const auto cost = ferry::test::measure("200,000 distinct names", u"200,000 lines"_s, [&] {
            for (int i = 0; i < 200000; ++i)
                parser.parseLine(u"name%1=1"_s.arg(i), 0, points);
        });
        QCOMPARE(points.size(), ferry::run::kMostSeriesPerRun - 2); // loss and acc are two of them
        QCOMPARE(points.last().name, u"name9997"_s);
        QVERIFY(parser.takeWarnings().isEmpty()); // the run's cap is said where all its series are counted
        QVERIFY2(ferry::test::secondsWithin(cost.seconds, 10), "a fraction of a second expected");
        QVERIFY2(ferry::test::peakWithin(cost.peakBytes, 256 << 20), "a few MiB expected");
    }

    void hugeLineIsHandled()
    {
        const QString line = u"loss=0.5 "_s + QString(10 * 1024 * 1024, u'x');
        QCOMPARE(parse({line}), u"loss@0=0.5"_s);
    }

    // The follower's fast path for the common line (plainMetricRecord, decoded into a reused
    // buffer) gives what metricRecords gives, or hands the line to it: the table's lines, and
    // random lines of bytes a terminal treats specially (controls, returns, escapes, backspaces,
    // UTF-8 and invalid UTF-8).
    void plainRecordIsMetricRecords()
    {
        QList<QByteArray> lines{"loss=0.5",
                                "loss=0.5\r",
                                "\r",
                                "",
                                "ferry: loss=1",
                                "a\tb=1",
                                "x=1\x01\x7f",
                                "gr\xc3\xb6\xc3\x9f"
                                "e=2",
                                "bad\xff\xfe=3",
                                "\x1b[32mloss=0.5",
                                "acc=0.1\b2",
                                " 10%|#  | 1/10 [00:00<00:01, 9.9it/s]\rval_loss=0.7",
                                "\xc2\x85loss=1"};
        QRandomGenerator rng(5);
        const QByteArray alphabet("ab=1.5 {}'\"\t\r\b\x1b\x01\x7f\xc3\xb6\x80\xff|/%");
        for (int i = 0; i < 20000; ++i) {
            QByteArray line;
            for (int n = rng.bounded(12); n > 0; --n)
                line += alphabet[rng.bounded(static_cast<int>(alphabet.size()))];
            lines << line;
        }
        QString buffer;
        int fast = 0;
        for (const QByteArray &line : std::as_const(lines)) {
            QStringView record;
            if (!plainMetricRecord(line, buffer, record))
                continue;
            ++fast;
            const QStringList records = record.isEmpty() ? QStringList{} : QStringList{record.toString()};
            QVERIFY2(records == metricRecords(line), line.toPercentEncoding().constData());
        }
        QVERIFY(fast > 1000); // the fast path was taken, and compared
    }

    // Numbers read by the parser's fast path (digits and a power of ten, both exact) are the
    // doubles std::from_chars reads, bit for bit; what it does not take goes to from_chars.
    void numbersAsFromChars()
    {
        QStringList texts{u"0"_s,
                          u"-0"_s,
                          u"-0.0"_s,
                          u"+1.5"_s,
                          u".5"_s,
                          u"5."_s,
                          u"0.1"_s,
                          u"0.30000000000000004"_s,
                          u"1e22"_s,
                          u"1e23"_s,
                          u"1e-22"_s,
                          u"1e-23"_s,
                          u"123456789012345"_s,
                          u"1234567890123456"_s,
                          u"9007199254740993"_s,
                          u"4.9e-324"_s,
                          u"1.7976931348623157e308"_s,
                          u"2.5E+10"_s,
                          u"1e0005"_s,
                          u"000000000000000001.5"_s,
                          u"1e"_s,
                          u"e5"_s,
                          u"."_s,
                          u"-"_s,
                          u"+-1"_s,
                          u"0x10"_s};
        QRandomGenerator rng(9);
        for (int i = 0; i < 100000; ++i) {
            QString t = rng.bounded(4) == 0 ? u"-"_s : QString();
            for (int n = rng.bounded(1, 18); n > 0; --n)
                t += QChar(u'0' + rng.bounded(10));
            if (rng.bounded(3))
                t.insert(rng.bounded(1, static_cast<int>(t.size()) + 1), u'.');
            if (rng.bounded(3) == 0)
                t += u"e"_s + (rng.bounded(2) ? u"-"_s : u"+"_s) + QString::number(rng.bounded(40));
            texts << t;
        }
        for (const QString &text : std::as_const(texts)) {
            double fast = 0, reference = 0;
            const bool read = metricsyntax::plainNumber(text, fast);
            const QByteArray latin = text.toLatin1();
            const char *begin = latin.constData() + (latin.startsWith('+') ? 1 : 0);
            const auto [end, ec] = std::from_chars(begin, latin.constData() + latin.size(), reference);
            const bool expected = ec == std::errc() && end == latin.constData() + latin.size();
            QVERIFY2(read == expected, qPrintable(text));
            if (read)
                QVERIFY2(std::bit_cast<quint64>(fast) == std::bit_cast<quint64>(reference), qPrintable(text));
        }
    }

    // tqdmBar, which looks for the markers' '|' and '/' first, says what searching for each
    // marker says.
    void tqdmBarIsAMarker()
    {
        QRandomGenerator rng(3);
        const QString alphabet = u"it/s],%|ab"_s;
        for (int i = 0; i < 50000; ++i) {
            QString s;
            for (int n = rng.bounded(10); n > 0; --n)
                s += alphabet[rng.bounded(static_cast<int>(alphabet.size()))];
            const bool marked = std::any_of(metricsyntax::kTqdmBarMarkers.begin(), metricsyntax::kTqdmBarMarkers.end(),
                                            [&](const char *m) { return s.contains(QLatin1StringView(m)); });
            QVERIFY2(metricsyntax::tqdmBar(s) == marked, qPrintable(s));
        }
    }
};

FERRY_TEST_APPLESS_MAIN(TestMetricParser)
#include "tst_metricparser.moc"
