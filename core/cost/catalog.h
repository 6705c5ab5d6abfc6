// The price catalog: GPU instances of the clouds with their hourly prices, read from dated CSV files
// in SkyPilot's catalog columns as untrusted input.
#pragma once

#include "common/diagnostic.h"
#include "common/error.h"

#include <QDate>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace ferry::cost {

// One row: an instance type in a region with its prices, in the catalog's currency (US dollars)
// an hour. A price the file leaves empty is unknown, never 0.
struct CatalogEntry {
    QString cloud; // "aws", "azure", "gcp": the file's name
    QString instanceType;
    double vcpus = 0;
    double memoryGiB = 0;
    QString acceleratorName; // empty: no accelerator
    double acceleratorCount = 0;
    QString region;
    std::optional<double> price;     // on demand
    std::optional<double> spotPrice; // as the file saw it at its date
    QDate date;                      // the row's Date, else the file's "# date:"; invalid: undated
    QString source;                  // the public page the price is from
    QString file;                    // where it was read, for messages
    int line = 0;

    // "2026-12-07", or "undated".
    QString dateText() const;
};

// The catalog files Ferry ships (resources/catalog/CLOUD.csv, compiled in): one per cloud, and
// SageMaker's training instances apart (its prices are not EC2's).
QStringList catalogClouds(); // "aws", "azure", "gcp", "sagemaker"

// A catalog file's rows. The header names its columns (any order; columns besides those below are
// ignored, so SkyPilot's own vms.csv reads too): InstanceType, vCPUs, MemoryGiB, AcceleratorName,
// AcceleratorCount, Region, Price and SpotPrice are required; Date (YYYY-MM-DD) and Source are
// optional. Lines starting with '#' are comments; "# date: YYYY-MM-DD" dates the rows without a
// Date. A row that is malformed (a field count other than the header's, a number that is not a
// finite one from 0 to its bound, an empty InstanceType, a control character, a bad date, a quote
// never closed) is left out with an error naming `path` and its line; the others are kept.
struct CatalogRead {
    QList<CatalogEntry> entries;
    Diagnostics diagnostics;
};
CatalogRead parseCatalog(QByteArrayView text, const QString &path, const QString &cloud);

// Files larger than this are refused whole (SkyPilot's largest, AWS's, is about 2.5 MB).
inline constexpr qint64 kCatalogMaxBytes = 32 * 1024 * 1024;

// Every cloud's catalog: the file in `userDir` named CLOUD.csv where there is one (a newer copy
// the user put there, read as untrusted input: bounded, malformed rows refused), else the one
// Ferry ships. `userDir` empty: userCatalogDir().
struct PriceCatalog {
    QList<CatalogEntry> entries;
    Diagnostics diagnostics; // the rows left out, with their file and line

    // The row of `instanceType` in `region` (empty: its first row in the file), nullptr when none.
    const CatalogEntry *find(const QString &cloud, const QString &instanceType, const QString &region = {}) const;
};
PriceCatalog loadPriceCatalog(const QString &userDir = {});
// Where a user's catalog files go: ~/.config/ferry/catalog (XDG_CONFIG_HOME/ferry/catalog).
QString userCatalogDir();
// The name a shipped catalog has in messages: "resources/catalog/aws.csv".
QString shippedCatalogName(const QString &cloud);

} // namespace ferry::cost
