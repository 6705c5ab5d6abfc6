// Tells what kind of file a path handed to Ferry is and which workspace it opens in.
#pragma once

// What a path handed to Ferry is (`ferry PATH`, a double-click in a file manager through the
// desktop file's MIME types, a path another `ferry` hands to the running one), and which
// workspace it opens in. The drop on the window uses the name rule alone: a drag cannot
// read files.
#include "common/error.h"

#include <QString>

class QFileInfo;

namespace ferry::workspace {

enum class FileKind {
    Folder,      // a workspace (or, after the first path, an image-folder dataset)
    Environment, // a Ferry, conda, pip or AzureML environment file: the environment editor
    Notebook,    // .ipynb: the conversion preview
    Dataset,     // CSV/TSV, MNIST idx: the dataset preview
    Sweep,       // a sweep file (`ferry-sweep: 1`)
};

// The first bytes that tell Ferry's own files apart whatever their name (the MIME magic of
// packaging/dev.ferry.Ferry.mime.xml says the same).
inline constexpr QLatin1StringView kEnvironmentMagic{"ferry: "};
inline constexpr QLatin1StringView kSweepMagic{"ferry-sweep: "};

// An environment file by its name alone: requirements*.txt, environment.yml, conda.yml,
// *environment*.json, NAME.ferry.yml, and YAML in an environments/ folder or with "env" in its
// name.
bool isEnvironmentName(const QFileInfo &file);

// From the name and the first bytes (Ferry's own files start with their magic; other YAML is
// an environment when its keys say so). Errors: the path is missing, or it is nothing Ferry
// opens (the hint says what it opens).
Expected<FileKind> fileKindOf(const QString &path);

// The workspace an environment file opens in: the folder above environments/, else the
// workspace the file lies in, else the file's own folder.
QString environmentWorkspaceRoot(const QString &environmentFile);

// The nearest folder at or above `path` that is a workspace (holds .ferry/); empty: none.
QString enclosingWorkspaceRoot(const QString &path);

// What Ferry opens, for hints: "folders (as workspaces), environment files, ...".
QString openableKinds();

} // namespace ferry::workspace
