// Review L15: an environment file's docker.run_arguments can undo a container run's isolation
// (--privileged, a host mount, the host's network, another user). They are found in every
// spelling docker accepts, reported by the environment reader as a positioned warning, and
// (tst_containerescape) refused by a container run unless the user allows them for that run.
#include "env/environmentfile.h"
#include "env/runarguments.h"
#include "support/testmain.h"

#include <QTest>

using namespace Qt::StringLiterals;
using namespace ferry::env;

class TestRunArguments : public QObject {
    Q_OBJECT

    static QStringList found(const QStringList &args)
    {
        QStringList out;
        for (const IsolationBreak &b : isolationBreakingArguments(args))
            out << b.argument;
        return out;
    }

private Q_SLOTS:
    void everySpellingIsFound_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QStringList>("breaks");
        QTest::newRow("privileged") << QStringList{u"--privileged"_s} << QStringList{u"--privileged"_s};
        QTest::newRow("volume, two words")
            << QStringList{u"--volume"_s, u"/:/host"_s} << QStringList{u"--volume /:/host"_s};
        QTest::newRow("volume, one word") << QStringList{u"--volume=/:/host"_s} << QStringList{u"--volume=/:/host"_s};
        QTest::newRow("-v") << QStringList{u"-v"_s, u"/home:/h"_s} << QStringList{u"-v /home:/h"_s};
        QTest::newRow("-v glued") << QStringList{u"-v/home:/h"_s} << QStringList{u"-v/home:/h"_s};
        QTest::newRow("cluster -itv") << QStringList{u"-itv"_s, u"/:/x"_s} << QStringList{u"-itv /:/x"_s};
        QTest::newRow("mount") << QStringList{u"--mount"_s, u"type=bind,source=/,target=/h"_s}
                               << QStringList{u"--mount type=bind,source=/,target=/h"_s};
        QTest::newRow("network host") << QStringList{u"--network"_s, u"host"_s} << QStringList{u"--network host"_s};
        QTest::newRow("net=bridge") << QStringList{u"--net=bridge"_s} << QStringList{u"--net=bridge"_s};
        QTest::newRow("network none is fine") << QStringList{u"--network=none"_s} << QStringList{};
        QTest::newRow("user root") << QStringList{u"--user"_s, u"0"_s} << QStringList{u"--user 0"_s};
        QTest::newRow("-u0") << QStringList{u"-u0"_s} << QStringList{u"-u0"_s};
        QTest::newRow("pid host") << QStringList{u"--pid=host"_s} << QStringList{u"--pid=host"_s};
        QTest::newRow("ipc host") << QStringList{u"--ipc=host"_s} << QStringList{u"--ipc=host"_s};
        QTest::newRow("cap-add") << QStringList{u"--cap-add"_s, u"SYS_ADMIN"_s}
                                 << QStringList{u"--cap-add SYS_ADMIN"_s};
        QTest::newRow("security-opt") << QStringList{u"--security-opt=seccomp=unconfined"_s}
                                      << QStringList{u"--security-opt=seccomp=unconfined"_s};
        QTest::newRow("device") << QStringList{u"--device=/dev/sda"_s} << QStringList{u"--device=/dev/sda"_s};
        QTest::newRow("env-file") << QStringList{u"--env-file"_s, u"/home/u/.aws/env"_s}
                                  << QStringList{u"--env-file /home/u/.aws/env"_s};
        // Harmless arguments, and the value of a harmless option that looks like a flag.
        QTest::newRow("harmless") << QStringList{u"--ulimit"_s, u"memlock=-1"_s,    u"--shm-size=2g"_s,
                                                 u"-e"_s,       u"-v=not-a-flag"_s, u"--init"_s,
                                                 u"-it"_s}
                                  << QStringList{};
        QTest::newRow("several") << QStringList{u"--init"_s, u"--privileged"_s, u"-e"_s, u"A=1"_s, u"-v"_s, u"/:/h"_s}
                                 << QStringList{u"--privileged"_s, u"-v /:/h"_s};
    }

    void everySpellingIsFound()
    {
        QFETCH(QStringList, args);
        QFETCH(QStringList, breaks);
        QCOMPARE(found(args), breaks);
    }

    // The reader warns at the run_arguments line; it is a warning: the file stays usable.
    void theReaderWarnsAtTheLine()
    {
        const QString yaml = u"ferry: 1\nname: cloned\nversion: \"1\"\ndocker:\n  base_image: python:3.11\n"
                             u"  run_arguments: [--privileged, -v, \"/:/host\"]\n"_s;
        const EnvironmentRead read = parseEnvironmentYaml(yaml, u"environments/cloned.yml"_s);
        QVERIFY(!hasErrors(read.diagnostics));
        bool warned = false;
        for (const Diagnostic &d : read.diagnostics) {
            if (d.where.message.contains(u"--privileged"_s)) {
                warned = true;
                QVERIFY(!d.isError());
                QCOMPARE(d.where.line, 6);
                QVERIFY(d.where.message.contains(u"-v /:/host"_s));
                QVERIFY(d.where.hint.contains(u"--allow-run-arguments"_s));
            }
        }
        QVERIFY(warned);
    }
};

FERRY_TEST_GUILESS_MAIN(TestRunArguments)
#include "tst_runarguments.moc"
