// JSON written as Jupyter writes notebooks (nbformat's `writes`: `json.dumps(nb, indent=1,
// sort_keys=True, ensure_ascii=False)` and a final newline, multi-line strings split into lists of
// lines), so that a notebook Jupyter wrote and Ferry saves again differs only where it was edited.
#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QString>
#include <QStringList>

namespace ferry::notebook {

// Python's str.splitlines(True): the line ends kept, split at \n, \r\n, \r, \v, \f, \x1c–\x1e,
// \x85, U+2028 and U+2029. "" gives no line.
QStringList splitLinesKeepingEnds(const QString &text);

// A string or a list of strings, as nbformat allows for multi-line text, joined.
QString joinedText(const QJsonValue &value);

// `value` as Python's json.dumps(value, indent=1, sort_keys=True, ensure_ascii=False) writes it:
// keys in code point order, one space per level, "key": value, non-ASCII as is, control
// characters escaped as \u00XX, integers as integers and other numbers as Python's repr of a float.
// One difference: Qt reads a float without a fraction ("1.0") as the integer 1, which is written
// "1" (the same number to any JSON reader; nbformat's own files hold such numbers rarely).
QByteArray pythonJson(const QJsonValue &value);

// A whole notebook as nbformat writes it: multi-line cell sources, stream texts, text/* (and
// image/svg+xml, application/javascript) values of output bundles and attachments split into lists
// of lines (an empty string becomes []), then pythonJson() and "\n".
QByteArray jupyterNotebookBytes(const QJsonObject &notebook);

} // namespace ferry::notebook
