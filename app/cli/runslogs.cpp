#include "cli/runslogs.h"

#include "common/safefile.h"
#include "metrics/terminaltext.h"
#include "run/distribution.h"
#include "run/ranklogs.h"
#include "targets/remotetarget.h"

#include <QFile>

using namespace Qt::StringLiterals;

namespace ferry::cli {

int printRunLog(const QCommandLineParser &parser, RunContext &context, const run::RunRecord &record, Io &io)
{
    int rank = 0;
    if (parser.isSet(u"rank"_s)) {
        bool ok = false;
        rank = parser.value(u"rank"_s).toInt(&ok);
        if (!ok || rank < 0) {
            io.err << "ferry runs logs: --rank takes a rank (0, 1, ...), not '" << parser.value(u"rank"_s) << "'"
                   << Qt::endl;
            return kExitUserError;
        }
    }
    const QString runDir = runDirOf(context, record.id);
    const auto spec = run::RunSpec::fromJson(record.spec);
    const run::Distribution distribution = spec ? run::Distribution::orSingle(spec->target) : run::Distribution{};
    if (rank >= distribution.worldSize()) {
        io.err << "ferry runs logs: run " << record.id << " has " << distribution.worldSize()
               << (distribution.worldSize() == 1 ? u" rank (0)"_s
                                                 : u" ranks (0 to %1)"_s.arg(distribution.worldSize() - 1))
               << Qt::endl;
        return kExitUserError;
    }
    // A rank's log of a run still going: as it is on the host now.
    if (rank > 0 && !run::isFinished(record.status) && spec) {
        if (auto target = makeTarget(spec->target, io)) {
            if (auto *remote = dynamic_cast<targets::RemoteTarget *>(target.get())) {
                if (const auto fetched = remote->fetchRankLogs(runDir); !fetched)
                    io.err << "ferry runs logs: rank " << rank << "'s log on the host: " << fetched.error().toString()
                           << Qt::endl;
            }
        }
    }
    const QString file = run::rankLogFile(runDir, rank);
    const auto bytes = readRegularFile(file, 1LL << 30);
    const QString what = rank == 0 ? u"the run's log"_s : u"rank %1's log"_s.arg(rank);
    if (!bytes) {
        io.err << "ferry runs logs: " << what << ": " << bytes.error().toString() << Qt::endl;
        return kExitUserError;
    }
    if (!bytes->has_value()) {
        io.err << "ferry runs logs: " << what << " is not there yet (" << file << ")" << Qt::endl;
        return kExitUserError;
    }
    const QByteArray &log = **bytes;
    if (parser.isSet(u"raw"_s)) { // the bytes as the script wrote them, control sequences and all
        io.out.flush();
        if (QIODevice *device = io.out.device())
            device->write(log);
        else
            io.out << QString::fromUtf8(log);
        io.out.flush();
        return kExitOk;
    }
    // L3: each line as `ferry runs attach` and the window show it, so nothing a script printed
    // reaches the terminal as a control sequence.
    for (qsizetype from = 0; from < log.size();) {
        qsizetype end = log.indexOf('\n', from);
        const bool whole = end >= 0;
        if (!whole)
            end = log.size();
        io.out << run::terminalText(QByteArrayView(log).sliced(from, end - from));
        if (whole)
            io.out << '\n';
        from = end + 1;
    }
    io.out.flush();
    return kExitOk;
}

} // namespace ferry::cli
