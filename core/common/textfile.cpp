#include "common/textfile.h"

#include <QFile>
#include <QFileInfo>
#include <QSaveFile>
#include <QStringDecoder>

using namespace Qt::StringLiterals;

namespace ferry {

Expected<QString> decodeText(const QByteArray &bytes, const QString &path)
{
    QByteArrayView view(bytes);
    // Windows tools save UTF-16 with a byte-order mark; decode it rather than call it binary.
    if (view.startsWith("\xFF\xFE") || view.startsWith("\xFE\xFF")) {
        QStringDecoder utf16(view.startsWith("\xFF\xFE") ? QStringDecoder::Utf16LE : QStringDecoder::Utf16BE);
        const QString text = utf16(view.sliced(2));
        if (utf16.hasError() || text.contains(QChar(u'\0')))
            return Error{u"not valid UTF-16 text"_s, path, 0, 0, u"save the file as UTF-8"_s};
        return text;
    }
    const qsizetype nul = bytes.indexOf('\0');
    if (nul >= 0)
        return Error{u"binary data (a NUL byte at offset %1), not a text file"_s.arg(nul), path, 0, 0,
                     u"name the text file itself"_s};
    if (view.startsWith("\xEF\xBB\xBF"))
        view = view.sliced(3);
    QStringDecoder decoder(QStringDecoder::Utf8, QStringDecoder::Flag::Stateless);
    QString text = decoder(view);
    if (decoder.hasError()) {
        const qsizetype bad = text.indexOf(QChar::ReplacementCharacter);
        const int line = bad < 0 ? 0 : static_cast<int>(QStringView(text).first(bad).count(u'\n')) + 1;
        return Error{u"not valid UTF-8 text"_s, path, line, 0, u"save the file as UTF-8"_s};
    }
    return text;
}

Expected<QString> readTextFile(const QString &path, qint64 maxBytes)
{
    const QFileInfo info(path);
    if (!info.exists())
        return Error{u"no such file"_s, path, 0, 0, u"check the path"_s};
    if (info.isDir())
        return Error{u"is a folder, not a file"_s, path, 0, 0, u"name the file inside it"_s};
    if (!info.isFile()) // reading a pipe or a device could block forever or never end
        return Error{u"not a regular file (a device, pipe or socket)"_s, path, 0, 0, u"save the content to a file"_s};
    if (info.size() > maxBytes)
        return Error{
            u"too large (%1 MB; at most %2 MB)"_s.arg(info.size() / (1024 * 1024)).arg(maxBytes / (1024 * 1024)), path,
            0, 0, u"is this the right file?"_s};
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return Error{u"cannot read: "_s + file.errorString(), path, 0, 0, u"check the file's permissions"_s};
    // Read one byte past the limit: the size can change between stat and read (a pipe, /proc).
    const QByteArray bytes = file.read(maxBytes + 1);
    if (bytes.size() > maxBytes)
        return Error{u"too large (more than %1 MB)"_s.arg(maxBytes / (1024 * 1024)), path, 0, 0,
                     u"is this the right file?"_s};
    return decodeText(bytes, path);
}

Expected<void> writeTextFileAtomically(const QString &path, const QString &text)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return Error{u"cannot write: "_s + file.errorString(), path, 0, 0,
                     u"check that the folder exists and is writable"_s};
    const QByteArray bytes = text.toUtf8();
    if (file.write(bytes) != bytes.size() || !file.commit())
        return Error{u"cannot write: "_s + file.errorString(), path, 0, 0, u"check free disk space"_s};
    return {};
}

} // namespace ferry
