// Records the image a container run used (its id and resolved packages), cached per image in the
// workspace.
#pragma once

// The image a container run used, as it was: its id (`docker image inspect`'s Id, in the run's
// container.json) and the packages it resolved (`pip freeze` and `conda list --export` inside
// it, the run folder's packages.txt). The list is taken once per image id and kept in the
// workspace (.ferry/images/), so a run on an image already built costs no container start.
// `ferry runs rerun` compares a rebuilt image's list with the original run's.
#include "common/error.h"
#include "targets/containerengine.h"

#include <QByteArray>
#include <QString>
#include <QStringList>

#include <optional>

namespace ferry::targets {

inline constexpr QLatin1String kPackagesFile{"packages.txt"};

struct ImageFacts {
    QString id;          // "sha256:..."
    QByteArray packages; // "name==version" lines (pip), then conda's export; sorted, one per line
};

// The image's id, or an error naming the engine's answer.
Expected<QString> imageIdOf(const ContainerEngine &engine, const QString &image);

// Blocking: the image's id and packages, written to `runDir`/packages.txt. The packages come
// from the workspace's list for that id (runDir's ../../images/) or, the first time, from a
// container of the image (no network, at most 2 minutes).
Expected<ImageFacts> recordImageFacts(const ContainerEngine &engine, const QString &image, const QString &runDir);

// The packages a run's image resolved (`runDir`/packages.txt, read without following a link);
// nullopt when the run has none.
std::optional<QByteArray> readRunPackages(const QString &runDir);

// What differs between two package lists: "+name==2.0", "-name==1.0" lines, sorted.
QStringList packageChanges(const QByteArray &before, const QByteArray &after);

} // namespace ferry::targets
