// The Qt and standard headers precompiled once for all tests (no Ferry header, so edits do not
// rebuild every test).
#pragma once

// The Qt headers most tests include, parsed once for all of them (tests/CMakeLists.txt, two
// carriers: core tests and tests that link the GUI). Only Qt and the standard library: a header
// of Ferry's own here would recompile every test on each change to it.
#include <QByteArray>
#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSettings>
#include <QSignalSpy>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>
#include <QTest>

#include <functional>
#include <memory>
#include <optional>
#include <utility>
