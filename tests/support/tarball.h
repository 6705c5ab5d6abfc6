// Writes tar archives exactly as asked (odd names, links, sizes) with libarchive, for the security
// tests.
#pragma once

// Archives as an attacker would share them (tests/security/): libarchive's writer keeps names
// (`/`, `..`), links and sizes exactly as asked; only an extraction to disk would clean them.
// A test that includes this links LibArchive::LibArchive.
#include <QByteArray>
#include <QFile>
#include <QList>
#include <QString>

#include <archive.h>
#include <archive_entry.h>

#include <memory>

namespace ferry::test {

struct TarEntry {
    enum Kind { File, Symlink, Hardlink };
    TarEntry(QByteArray n = {}, QByteArray c = {}, Kind k = File, QByteArray t = {})
        : name(std::move(n)), content(std::move(c)), kind(k), target(std::move(t))
    {
    }
    QByteArray name;
    QByteArray content;
    Kind kind = File;
    QByteArray target; // links
};

// `entries` exactly as named, in the archive `a` (its format and filter chosen) at `path`.
inline bool writeEntries(archive *a, const QString &path, const QList<TarEntry> &entries)
{
    if (archive_write_open_filename(a, QFile::encodeName(path).constData()) != ARCHIVE_OK)
        return false;
    for (const TarEntry &e : entries) {
        std::unique_ptr<archive_entry, decltype(&archive_entry_free)> entry(archive_entry_new(), archive_entry_free);
        archive_entry_set_pathname(entry.get(), e.name.constData());
        archive_entry_set_perm(entry.get(), 0644);
        archive_entry_set_filetype(entry.get(), e.kind == TarEntry::Symlink ? AE_IFLNK : AE_IFREG);
        if (e.kind == TarEntry::Symlink)
            archive_entry_set_symlink(entry.get(), e.target.constData());
        if (e.kind == TarEntry::Hardlink)
            archive_entry_set_hardlink(entry.get(), e.target.constData());
        archive_entry_set_size(entry.get(), e.kind == TarEntry::File ? e.content.size() : 0);
        if (archive_write_header(a, entry.get()) != ARCHIVE_OK)
            return false;
        if (e.kind == TarEntry::File &&
            archive_write_data(a, e.content.constData(), size_t(e.content.size())) != la_ssize_t(e.content.size()))
            return false;
    }
    return archive_write_close(a) == ARCHIVE_OK;
}

// A gzip-compressed tar holding `entries` exactly as named.
inline bool writeTarGz(const QString &path, const QList<TarEntry> &entries)
{
    std::unique_ptr<archive, decltype(&archive_write_free)> a(archive_write_new(), archive_write_free);
    archive_write_add_filter_gzip(a.get());
    archive_write_set_format_pax_restricted(a.get());
    return writeEntries(a.get(), path, entries);
}

// `bytes` gzip-compressed, as `gzip` would write them (libarchive's raw format with the filter).
inline bool writeGzip(const QString &path, const QByteArray &bytes)
{
    std::unique_ptr<archive, decltype(&archive_write_free)> a(archive_write_new(), archive_write_free);
    archive_write_add_filter_gzip(a.get());
    archive_write_set_format_raw(a.get());
    if (archive_write_open_filename(a.get(), QFile::encodeName(path).constData()) != ARCHIVE_OK)
        return false;
    std::unique_ptr<archive_entry, decltype(&archive_entry_free)> entry(archive_entry_new(), archive_entry_free);
    archive_entry_set_pathname(entry.get(), "data");
    archive_entry_set_filetype(entry.get(), AE_IFREG);
    archive_entry_set_size(entry.get(), bytes.size());
    return archive_write_header(a.get(), entry.get()) == ARCHIVE_OK &&
           archive_write_data(a.get(), bytes.constData(), size_t(bytes.size())) == la_ssize_t(bytes.size()) &&
           archive_write_close(a.get()) == ARCHIVE_OK;
}

// A ustar header for a regular file `name` whose size field says `declaredSize`, whatever follows
// it: libarchive's writer would pad the entry to that size, an attacker's file need not.
inline QByteArray ustarHeader(const QByteArray &name, qint64 declaredSize)
{
    QByteArray header(512, '\0');
    const auto put = [&header](int at, const QByteArray &field) { header.replace(at, field.size(), field); };
    put(0, name.left(99));
    put(100, "0000644");
    put(108, "0000000");
    put(116, "0000000");
    put(124, QByteArray::number(declaredSize, 8).rightJustified(11, '0'));
    put(136, "00000000000");
    put(148, "        ");
    put(156, "0");
    put(257, QByteArray("ustar\0"
                        "00",
                        8));
    unsigned sum = 0;
    for (const char c : std::as_const(header))
        sum += static_cast<unsigned char>(c);
    put(148, QByteArray::number(sum, 8).rightJustified(6, '0') + QByteArray("\0 ", 2));
    return header;
}

// `bytes` padded to the tar's 512-byte blocks.
inline QByteArray tarBlocks(QByteArray bytes)
{
    bytes.append(QByteArray((512 - bytes.size() % 512) % 512, '\0'));
    return bytes;
}

// A ZIP archive holding `entries`, whatever its name says.
inline bool writeZip(const QString &path, const QList<TarEntry> &entries)
{
    std::unique_ptr<archive, decltype(&archive_write_free)> a(archive_write_new(), archive_write_free);
    archive_write_set_format_zip(a.get());
    return writeEntries(a.get(), path, entries);
}

} // namespace ferry::test
