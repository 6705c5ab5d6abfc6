// Where every target's cancel starts (targets/target.h, cancelStart): a folder that holds no run
// is refused, a run that has ended is not cancelled again (its own record is not even read), and
// otherwise the target's record of what to stop, or none, or why it cannot be read.
#include "run/rundirectory.h"
#include "run/runspec.h"
#include "support/testmain.h"
#include "targets/target.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace ferry;
using ferry::run::RunDirectory;

namespace {

struct Record {
    QString what;
};

RunDirectory claimedRun(const QTemporaryDir &dir)
{
    const RunDirectory run(dir.filePath(u"runs/r1"_s));
    run::RunSpec spec;
    spec.id = u"r1"_s;
    spec.script = dir.filePath(u"train.py"_s);
    if (!run.claim(spec))
        qFatal("cannot claim the run folder");
    return run;
}

} // namespace

class TestCancelStart : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void aFolderWithoutARunIsRefused()
    {
        QTemporaryDir dir;
        bool read = false;
        const auto start = targets::cancelStart<Record>(RunDirectory(dir.path()), [&] {
            read = true;
            return Expected<std::optional<Record>>(std::nullopt);
        });
        QVERIFY(!start);
        QVERIFY2(start.error().message.contains(u"not a run folder"_s), qPrintable(start.error().toString()));
        QCOMPARE(start.error().path, dir.path());
        QVERIFY(!read);
    }

    void anEndedRunIsNotCancelledAgain()
    {
        QTemporaryDir dir;
        const RunDirectory run = claimedRun(dir);
        QVERIFY(run.writeExit(run::ExitRecord{0, 0, 1, false, {}}));
        bool read = false;
        const auto start = targets::cancelStart<Record>(run, [&] {
            read = true;
            return Expected<std::optional<Record>>(Record{u"process"_s});
        });
        QVERIFY(start);
        QVERIFY(start->ended);
        QVERIFY(!start->record);
        QVERIFY(!read);
    }

    void aRunningRunGivesItsRecord()
    {
        QTemporaryDir dir;
        const RunDirectory run = claimedRun(dir);
        const auto start =
            targets::cancelStart<Record>(run, [] { return Expected<std::optional<Record>>(Record{u"process 42"_s}); });
        QVERIFY(start);
        QVERIFY(!start->ended);
        QVERIFY(start->record);
        QCOMPARE(start->record->what, u"process 42"_s);

        const auto unconfirmed =
            targets::cancelStart<Record>(run, [] { return Expected<std::optional<Record>>(std::nullopt); });
        QVERIFY(unconfirmed);
        QVERIFY(!unconfirmed->ended);
        QVERIFY(!unconfirmed->record);
    }

    void unreadableRecordsAreErrors()
    {
        QTemporaryDir dir;
        const RunDirectory run = claimedRun(dir);
        const auto broken = targets::cancelStart<Record>(run, [&] {
            return Expected<std::optional<Record>>(
                Error{u"remote.json is damaged"_s, run.remoteRecordFile(), 0, 0, {}});
        });
        QVERIFY(!broken);
        QCOMPARE(broken.error().message, u"remote.json is damaged"_s);

        QFile exit(run.exitFile()); // an exit record that is no JSON: not taken for an end
        QVERIFY(exit.open(QIODevice::WriteOnly));
        exit.write("{ not json");
        exit.close();
        const auto damaged =
            targets::cancelStart<Record>(run, [] { return Expected<std::optional<Record>>(Record{u"x"_s}); });
        QVERIFY(!damaged);
        QCOMPARE(damaged.error().path, run.exitFile());
    }
};

FERRY_TEST_APPLESS_MAIN(TestCancelStart)
#include "tst_cancelstart.moc"
