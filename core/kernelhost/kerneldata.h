// Data dropped on a notebook's cell, as its kernel reaches it on its target: a Python expression
// for the path (the mounted channel in a container, the copy on a host) and the code that loads it.
#pragma once

#include "common/error.h"
#include "data/dataset.h"
#include "run/runspec.h"

#include <QString>

namespace ferry::kernels {

// How the kernel of `kernelSpec` (kernelSpec() or its run folder's spec.json) names `localPath`, a
// file or folder of this machine, as a Python expression:
// - in one of its data channels: `os.path.join(os.environ["SM_CHANNEL_<NAME>"], "rest")` (the
//   channel where the run contract puts it on every target: mounted, uploaded or local);
// - on this machine: the absolute path (a local kernel works in a copy of its folder made when it
//   started, which a file dropped later is not in);
// - under its working folder: the relative path, as a string (a container has that folder mounted
//   at /opt/ml/code, where the kernel starts; a host has the copy made when the kernel started).
// Elsewhere, an Error that says how to give the kernel the data (a data channel, and a restart).
Expected<QString> kernelPathExpression(const run::RunSpec &kernelSpec, const QString &localPath);

// Code that loads the dataset `info` from `pathExpression`: a table with pandas (read_csv; a TSV
// with its separator), an image folder as its files per class, MNIST idx files with numpy, into a
// variable named after the file; the last line shows what was loaded.
QString datasetLoadingCode(const data::DatasetInfo &info, const QString &pathExpression);

} // namespace ferry::kernels
