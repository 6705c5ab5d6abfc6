// The redaction filter where run output reaches the user: a run that prints a secret (plainly,
// URL-encoded, base64) shows only "***" in the lines its RunFollower returns and in its stored
// error, while its metrics are still read.
#include "support/testenv.h"
#include "support/testmain.h"
#include "targets/targetfactory.h"
#include "tracking/runfollower.h"
#include "tracking/runlauncher.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace ferry;

class TestRedactedFollower : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void logLinesAndErrorsAreRedacted()
    {
        const QString secret = u"s3cr3t/t0ken+canary"_s;
        QTemporaryDir ws;
        QFile script(ws.filePath(u"leaky.py"_s));
        QVERIFY(script.open(QIODevice::WriteOnly));
        script.write("import base64, json, sys, urllib.parse\n"
                     "token = sys.argv[sys.argv.index('--token') + 1]\n"
                     "print('connecting with ' + token)\n"
                     "print('https://u:' + urllib.parse.quote(token, safe='') + '@registry/')\n"
                     "print('Basic ' + base64.b64encode(token.encode()).decode())\n"
                     "print(json.dumps({'loss': 0.5}))\n"
                     "sys.exit('giving up on ' + token)\n");
        script.close();
        QVERIFY(QDir().mkpath(ws.filePath(u".ferry/runs"_s)));
        auto store = run::RunStore::open(ws.filePath(u".ferry/runs.sqlite"_s));
        QVERIFY(store);
        auto target = targets::makeTarget(run::TargetSpec{}, ferry::test::ferryBinary());
        run::RunSpec spec;
        spec.script = u"leaky.py"_s;
        spec.sourceDir = ws.path();
        spec.id = run::newRunId(spec.script);
        spec.interpreter = u"/usr/bin/python3"_s;
        spec.hyperparameters = {{u"token"_s, secret}};
        const auto launched = run::launchRun(**store, *target, ws.filePath(u".ferry/runs"_s), spec);
        QVERIFY2(launched, launched ? "" : qPrintable(launched.error().toString()));

        run::RunFollower follower(**store, *target, ws.filePath(u".ferry/runs/"_s + launched->id), *launched);
        follower.setRedactor(secrets::Redactor({secret}));
        QList<QByteArray> lines;
        bool finished = false;
        for (int round = 0; round < 600 && !finished; ++round) {
            const auto step = follower.poll();
            QVERIFY2(step, step ? "" : qPrintable(step.error().toString()));
            lines << step->lines;
            finished = step->finished;
            if (!finished)
                QTest::qWait(50);
        }
        QVERIFY(finished);
        const QByteArray all = lines.join('\n');
        QVERIFY2(!all.contains("s3cr3t"), all.constData());
        QVERIFY2(!all.contains("czNjcjN0"), all.constData()); // base64 of the start
        QVERIFY2(all.contains("connecting with ***"), all.constData());
        QVERIFY2(all.contains("https://u:***@registry/"), all.constData());
        QVERIFY2(all.contains("Basic ***"), all.constData());
        (*store)->flush();
        QCOMPARE((*store)->metricCount(launched->id, u"loss"_s), 1); // metrics still parsed
        const auto record = (*store)->run(launched->id);
        QVERIFY(record);
        QVERIFY(!record->error.contains(secret));
    }
};

FERRY_TEST_GUILESS_MAIN(TestRedactedFollower)
#include "tst_redactedfollower.moc"
