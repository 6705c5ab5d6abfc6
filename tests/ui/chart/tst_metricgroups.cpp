// Which panel a metric is drawn in (ui/chart/metricgroups.h): the splits of one quantity share
// a panel, the sections come in order, every GPU's utilisation is one panel.
#include "support/testmain.h"
#include "ui/chart/metricgroups.h"

#include <QTest>

using namespace Qt::StringLiterals;
using namespace ferry::ui;

class TestMetricGroups : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void panels_data()
    {
        QTest::addColumn<QString>("metric");
        QTest::addColumn<QString>("key");
        QTest::addColumn<int>("section");
        const int loss = MetricPanel::Loss, acc = MetricPanel::Accuracy, lr = MetricPanel::LearningRate,
                  other = MetricPanel::Other, system = MetricPanel::System;
        QTest::newRow("loss") << u"loss"_s << u"loss"_s << loss;
        QTest::newRow("train_loss") << u"train_loss"_s << u"loss"_s << loss;
        QTest::newRow("val_loss") << u"val_loss"_s << u"loss"_s << loss;
        QTest::newRow("eval_loss") << u"eval_loss"_s << u"loss"_s << loss;
        QTest::newRow("SummaryWriter's Loss/train") << u"Loss/train"_s << u"loss"_s << loss;
        QTest::newRow("Keras' train/epoch_loss") << u"train/epoch_loss"_s << u"epoch_loss"_s << loss;
        QTest::newRow("Keras' validation/epoch_loss") << u"validation/epoch_loss"_s << u"epoch_loss"_s << loss;
        QTest::newRow("accuracy") << u"val_accuracy"_s << u"accuracy"_s << acc;
        QTest::newRow("f1") << u"eval_f1"_s << u"f1"_s << acc;
        QTest::newRow("lr") << u"lr"_s << u"lr"_s << lr;
        QTest::newRow("learning_rate") << u"learning_rate"_s << u"learning_rate"_s << lr;
        QTest::newRow("throughput") << u"samples_per_s"_s << u"samples_per_s"_s << other;
        QTest::newRow("grad_norm") << u"grad_norm"_s << u"grad_norm"_s << other;
        QTest::newRow("a split alone is its own name") << u"train"_s << u"train"_s << other;
        QTest::newRow("cpu") << u"system/cpu_percent"_s << u"system:cpu_percent"_s << system;
        QTest::newRow("gpu 0") << u"system/gpu0/utilization_percent"_s << u"system:gpu/utilization_percent"_s << system;
        QTest::newRow("gpu 3") << u"system/gpu3/utilization_percent"_s << u"system:gpu/utilization_percent"_s << system;
    }
    void panels()
    {
        QFETCH(QString, metric);
        QFETCH(QString, key);
        QFETCH(int, section);
        const MetricPanel panel = metricPanelOf(metric);
        QCOMPARE(panel.key, key);
        QCOMPARE(int(panel.section), section);
    }
};

FERRY_TEST_APPLESS_MAIN(TestMetricGroups)
#include "tst_metricgroups.moc"
