#include "store/runstorenative.h"

#include <QSqlDriver>
#include <QSqlQuery>
#include <QVariant>

#if __has_include(<dlfcn.h>)
#include <dlfcn.h>
#define FERRY_RUNSTORE_DLFCN 1
#endif

using namespace Qt::StringLiterals;

namespace ferry::run {

// The few functions of SQLite's C API (https://sqlite.org/c3ref/funclist.html) the fast path
// needs, resolved in the library already loaded by Qt's driver: no second copy, no headers.
struct RunStoreNativeInsert::Api {
    int (*prepare)(void *db, const char *sql, int bytes, void **statement, const char **tail) = nullptr;
    int (*bindText)(void *statement, int index, const char *text, int bytes, void (*destructor)(void *)) = nullptr;
    int (*bindDouble)(void *statement, int index, double value) = nullptr;
    int (*bindInt64)(void *statement, int index, long long value) = nullptr;
    int (*step)(void *statement) = nullptr;
    int (*reset)(void *statement) = nullptr;
    int (*clearBindings)(void *statement) = nullptr;
    int (*finalize)(void *statement) = nullptr;
    const char *(*errmsg)(void *db) = nullptr;
    const char *(*sourceId)() = nullptr;
    bool complete = false;
};

namespace {

constexpr int kSqliteOk = 0;
constexpr int kSqliteDone = 101;

template <typename F> void resolve(void *library, const char *name, F &function, bool &complete)
{
#ifdef FERRY_RUNSTORE_DLFCN
    void *symbol = dlsym(library, name);
    complete = complete && symbol;
    // POSIX guarantees that a data pointer from dlsym converts to a function pointer.
    function = reinterpret_cast<F>(symbol);
#else
    Q_UNUSED(library);
    Q_UNUSED(name);
    function = nullptr;
    complete = false;
#endif
}

const RunStoreNativeInsert::Api *loadApi()
{
    static const RunStoreNativeInsert::Api api = [] {
        RunStoreNativeInsert::Api a;
#ifdef FERRY_RUNSTORE_DLFCN
        // RTLD_NOLOAD: only the copy already in the process (the one Qt's driver linked).
        void *library = dlopen("libsqlite3.so.0", RTLD_NOW | RTLD_NOLOAD);
        if (!library)
            return a;
        a.complete = true;
        resolve(library, "sqlite3_prepare_v2", a.prepare, a.complete);
        resolve(library, "sqlite3_bind_text", a.bindText, a.complete);
        resolve(library, "sqlite3_bind_double", a.bindDouble, a.complete);
        resolve(library, "sqlite3_bind_int64", a.bindInt64, a.complete);
        resolve(library, "sqlite3_step", a.step, a.complete);
        resolve(library, "sqlite3_reset", a.reset, a.complete);
        resolve(library, "sqlite3_clear_bindings", a.clearBindings, a.complete);
        resolve(library, "sqlite3_finalize", a.finalize, a.complete);
        resolve(library, "sqlite3_errmsg", a.errmsg, a.complete);
        resolve(library, "sqlite3_sourceid", a.sourceId, a.complete);
        // The library stays loaded for the life of the process, like the driver's.
#endif
        return a;
    }();
    return api.complete ? &api : nullptr;
}

} // namespace

std::unique_ptr<RunStoreNativeInsert> RunStoreNativeInsert::create(const QSqlDatabase &db)
{
    if (qEnvironmentVariableIntValue("FERRY_RUNSTORE_QT_ONLY") == 1)
        return nullptr;
    const QVariant handle = db.driver()->handle();
    if (!handle.isValid() || qstrcmp(handle.typeName(), "sqlite3*") != 0)
        return nullptr;
    void *connection = *static_cast<void *const *>(handle.constData());
    const Api *api = loadApi();
    if (!connection || !api)
        return nullptr;
    // The connection must run on this very library: a Qt built with its own copy of SQLite
    // reports that copy's source id here.
    QSqlQuery query(db);
    if (!query.exec(u"SELECT sqlite_source_id()"_s) || !query.next() ||
        query.value(0).toString().toUtf8() != QByteArrayView(api->sourceId()))
        return nullptr;
    void *statement = nullptr;
    const char *sql = "INSERT INTO metrics(run, name, step, wall_ms, value, epoch) VALUES (?1, ?2, ?3, ?4, ?5, ?6)";
    if (api->prepare(connection, sql, -1, &statement, nullptr) != kSqliteOk || !statement)
        return nullptr;
    return std::unique_ptr<RunStoreNativeInsert>(new RunStoreNativeInsert(*api, connection, statement));
}

RunStoreNativeInsert::RunStoreNativeInsert(const Api &api, void *db, void *statement)
    : m_api(api), m_db(db), m_statement(statement)
{
}

RunStoreNativeInsert::~RunStoreNativeInsert()
{
    m_api.finalize(m_statement);
}

const QByteArray &RunStoreNativeInsert::utf8(const QString &name)
{
    for (Name &n : m_names) {
        if (n.text.size() == name.size() && n.text == name && !n.text.isNull())
            return n.utf8;
    }
    Name &slot = m_names[m_nextName];
    m_nextName = (m_nextName + 1) % m_names.size();
    slot.text = name.isNull() ? u""_s : name;
    slot.utf8 = name.toUtf8();
    return slot.utf8;
}

Expected<void> RunStoreNativeInsert::append(const QString &runId, const QList<MetricPoint> &points)
{
    const QByteArray run = runId.toUtf8();
    // SQLITE_STATIC (a null destructor): the texts outlive every step that reads them.
    m_api.bindText(m_statement, 1, run.constData(), static_cast<int>(run.size()), nullptr);
    Expected<void> appended;
    for (const MetricPoint &p : points) {
        const QByteArray &name = utf8(p.name);
        m_api.bindText(m_statement, 2, name.constData(), static_cast<int>(name.size()), nullptr);
        m_api.bindDouble(m_statement, 3, p.step); // NaN is stored as NULL
        m_api.bindInt64(m_statement, 4, p.wallMs);
        m_api.bindDouble(m_statement, 5, p.value);
        m_api.bindDouble(m_statement, 6, p.epoch);
        const int result = m_api.step(m_statement);
        m_api.reset(m_statement);
        if (result != kSqliteDone) {
            appended = Error{QString::fromUtf8(m_api.errmsg(m_db)), {}, 0, 0, {}};
            break;
        }
    }
    m_api.clearBindings(m_statement);
    return appended;
}

} // namespace ferry::run
