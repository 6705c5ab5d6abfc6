#include "cli/runsquery.h"

#include "metrics/terminaltext.h"
#include "tracking/runquery.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>

#include <mutex>

using namespace Qt::StringLiterals;

namespace ferry::cli {

namespace {

// Commits the writes queued before it and says the first that failed.
Expected<void> commit(run::RunStore &store)
{
    std::mutex mutex;
    std::optional<Error> failed;
    const auto connection = QObject::connect(
        &store, &run::RunStore::writeFailed, &store,
        [&](const Error &error) {
            const std::lock_guard lock(mutex);
            if (!failed)
                failed = error;
        },
        Qt::DirectConnection);
    store.flush();
    QObject::disconnect(connection);
    const std::lock_guard lock(mutex);
    if (failed)
        return *failed;
    return {};
}

int tagRun(RunContext &context, const run::RunRecord &record, const QStringList &words, bool json, Io &io)
{
    QStringList add, remove;
    for (const QString &word : words) {
        const bool removing = word.startsWith(u'-');
        const QString tag = removing || word.startsWith(u'+') ? word.mid(1) : word;
        if (const auto valid = run::RunStore::checkTag(tag); !valid) {
            io.err << "ferry runs tag: " << valid.error().toString() << Qt::endl;
            return kExitUserError;
        }
        (removing ? remove : add) << tag;
    }
    if (!add.isEmpty())
        context.store->addTags(record.id, add);
    if (!remove.isEmpty())
        context.store->removeTags(record.id, remove);
    if (const auto done = commit(*context.store); !done) {
        io.err << "ferry runs tag: " << done.error().toString() << Qt::endl;
        return kExitInternalError;
    }
    const QStringList tags = context.store->run(record.id).value_or(record).tags;
    if (json)
        io.out << QJsonDocument(QJsonArray::fromStringList(tags)).toJson();
    else if (!tags.isEmpty()) // an imported run's tags came from elsewhere (L3)
        io.out << run::terminalLines(tags.join(u' ')) << '\n';
    io.out.flush();
    return kExitOk;
}

int noteRun(RunContext &context, const run::RunRecord &record, const QStringList &words, Io &io)
{
    if (words.isEmpty()) {          // no text: the note as it is
        if (!record.note.isEmpty()) // an imported run's note came from elsewhere (L3)
            io.out << run::terminalLines(record.note) << '\n';
        io.out.flush();
        return kExitOk;
    }
    if (words.size() > 1) {
        io.err << "ferry runs note: the note is one argument (quote it), or - to read it from stdin" << Qt::endl;
        return kExitUserError;
    }
    QString note = words.first();
    if (note == "-"_L1) {
        QFile in;
        if (!in.open(stdin, QIODevice::ReadOnly)) {
            io.err << "ferry runs note: cannot read stdin: " << in.errorString() << Qt::endl;
            return kExitUserError;
        }
        note = QString::fromUtf8(in.readAll());
    }
    while (note.endsWith(u'\n') || note.endsWith(u'\r'))
        note.chop(1);
    context.store->setNote(record.id, note);
    if (const auto done = commit(*context.store); !done) {
        io.err << "ferry runs note: " << done.error().toString() << Qt::endl;
        return kExitInternalError;
    }
    io.err << (note.isEmpty() ? u"cleared the note of run "_s : u"noted run "_s) << record.id << Qt::endl;
    return kExitOk;
}

} // namespace

int tagOrNoteRun(const QCommandLineParser &parser, Io &io)
{
    const QStringList positional = parser.positionalArguments();
    const QString action = positional.value(0);
    if (positional.size() < 2) {
        io.err << "ferry runs " << action << ": name the run (see 'ferry runs list')" << Qt::endl;
        return kExitUserError;
    }
    auto context = openRunContext(parser.value(u"workspace"_s), io);
    if (!context)
        return kExitUserError;
    const auto record = findRun(*context->store, positional.at(1), io);
    if (!record)
        return kExitUserError;
    const QStringList words = positional.mid(2);
    if (action == "tag"_L1)
        return tagRun(*context, *record, words, parser.isSet(u"json"_s), io);
    return noteRun(*context, *record, words, io);
}

std::optional<QList<run::RunRecord>> runsWhere(const run::RunStore &store, const QString &where, Io &io,
                                               const QString &action)
{
    const auto query = run::RunQuery::parse(where);
    if (!query) {
        printColumnError(u"ferry runs %1: --where: "_s.arg(action), where, query.error(), io);
        return std::nullopt;
    }
    return query->filter(store, store.runs());
}

QStringList tagArgumentsToParse(const QStringList &words)
{
    // The action is the first word that is neither an option nor --workspace's folder.
    qsizetype action = 0;
    while (action < words.size() && words[action].startsWith(u'-'))
        action += words[action] == "--workspace"_L1 ? 2 : 1;
    if (words.value(action) != "tag"_L1)
        return words;
    QStringList kept = words.mid(0, action + 2), removals;
    const qsizetype separator = words.indexOf(u"--"_s);
    const qsizetype end = separator < 0 ? words.size() : separator;
    for (qsizetype i = action + 2; i < end; ++i) {
        const QString &word = words[i];
        const bool removal =
            word.size() > 1 && word.startsWith(u'-') && !word.startsWith(u"--"_s) && word != "-h"_L1 && word != "-?"_L1;
        (removal ? removals : kept) << word;
    }
    if (removals.isEmpty())
        return words;
    return kept + QStringList{u"--"_s} + removals + (separator < 0 ? QStringList() : words.mid(separator + 1));
}

} // namespace ferry::cli
