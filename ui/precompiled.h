// The Qt and standard headers precompiled once for all of ui/ (no Ferry header, so edits do not
// rebuild everything).
#pragma once

// The Qt headers most of ui/ includes, parsed once for the whole library (FERRY_PCH=OFF builds
// without, to check that every file includes what it uses). Only Qt and the standard library:
// a header of Ferry's own here would rebuild all of ui/ on every change to it.
#include <QComboBox>
#include <QDir>
#include <QFileInfo>
#include <QFormLayout>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QString>
#include <QStringList>
#include <QTimer>
#include <QVBoxLayout>
#include <QWidget>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <functional>
