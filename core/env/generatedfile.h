// GeneratedFile: one file (or copied folder) that an export or the image generator produces.
#pragma once

#include <QList>
#include <QString>

namespace ferry::env {

// One file an export or generator produces, relative to the folder it is written to.
// With `copyFrom` set the entry is a folder copied as it is (a local wheelhouse).
struct GeneratedFile {
    QString name; // relative path, e.g. "Dockerfile", "wheelhouse/wheels"
    QString text;
    QString copyFrom;
};

} // namespace ferry::env
