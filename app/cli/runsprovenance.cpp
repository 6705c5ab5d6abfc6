#include "cli/runsprovenance.h"

#include "run/hostfacts.h"
#include "targets/containertarget.h"
#include "targets/imagerecord.h"

#include <QJsonArray>
#include <QLocale>

using namespace Qt::StringLiterals;

namespace ferry::cli {

namespace {

// "12 files, 3.4 MB, fp1:0123456789ab".
QString dataText(qint64 files, qint64 bytes, const QString &fingerprint)
{
    if (files < 0)
        return u"(none)"_s;
    return u"%1 %2, %3%4"_s.arg(files).arg(files == 1 ? u"file"_s : u"files"_s,
                                           QLocale::c().formattedDataSize(bytes, 1, QLocale::DataSizeSIFormat),
                                           fingerprint.isEmpty() ? QString() : u", "_s + fingerprint.left(16));
}

QString orNone(const QString &text)
{
    return text.isEmpty() ? u"(none)"_s : text;
}

} // namespace

void printProvenance(const run::RunSpec &spec, const QString &runDir, QTextStream &out)
{
    for (const snapshot::DataFingerprint &d : spec.data) {
        out << "data:      " << d.channel << ": " << d.path << ", "
            << (d.error.isEmpty() ? dataText(d.files, d.bytes, d.fingerprint) : d.error) << '\n';
    }
    if (const auto host = run::readHostFacts(runDir))
        out << "host:      " << host->summary() << '\n';
    if (const QString id = targets::ContainerTarget::readRecord(runDir).value(u"imageId"_s).toString(); !id.isEmpty()) {
        out << "image:     " << id << " (" << targets::readRunPackages(runDir).value_or(QByteArray()).count('\n')
            << " packages resolved)\n";
    }
}

void printProvenanceDiff(const run::RunDiff &diff, bool all, QTextStream &out)
{
    for (const run::RunDiff::Data &d : diff.data) {
        const QString a = dataText(d.filesA, d.bytesA, d.fingerprintA);
        if (d.same)
            out << "data " << d.channel << ": the same (" << a << ")\n";
        else
            out << "data " << d.channel << ": changed: " << a << " → " << dataText(d.filesB, d.bytesB, d.fingerprintB)
                << '\n';
    }
    bool differs = false;
    for (const run::RunDiff::HostField &f : diff.host) {
        if (all || f.differs())
            out << "host " << f.name << ": " << orNone(f.a) << (f.differs() ? u" → "_s + orNone(f.b) : QString())
                << '\n';
        differs = differs || f.differs();
    }
    if (!diff.host.isEmpty() && !differs && !all)
        out << "host: the same\n";
}

void addProvenanceJson(const run::RunDiff &diff, QJsonObject &json)
{
    QJsonArray data;
    for (const run::RunDiff::Data &d : diff.data)
        data.append(QJsonObject{{u"channel"_s, d.channel},
                                {u"same"_s, d.same},
                                {u"pathA"_s, d.pathA},
                                {u"pathB"_s, d.pathB},
                                {u"bytesA"_s, static_cast<double>(d.bytesA)},
                                {u"bytesB"_s, static_cast<double>(d.bytesB)},
                                {u"filesA"_s, static_cast<double>(d.filesA)},
                                {u"filesB"_s, static_cast<double>(d.filesB)},
                                {u"fingerprintA"_s, d.fingerprintA},
                                {u"fingerprintB"_s, d.fingerprintB}});
    QJsonArray host;
    for (const run::RunDiff::HostField &f : diff.host)
        host.append(QJsonObject{{u"field"_s, f.name}, {u"a"_s, f.a}, {u"b"_s, f.b}, {u"differs"_s, f.differs()}});
    json[u"data"_s] = data;
    json[u"host"_s] = host;
}

} // namespace ferry::cli
