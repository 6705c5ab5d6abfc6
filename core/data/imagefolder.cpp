#include "data/imagefolder.h"

#include "common/memorybudget.h"
#include "data/imagedecode.h"

#include <QDir>
#include <QFileInfo>
#include <QThread>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

using namespace Qt::StringLiterals;

namespace ferry::data {

namespace {

constexpr int maxImageSide = 4096;

struct ClassFolder {
    QString name;
    QString path;
    QStringList images;
    qint64 bytes = 0;
};

struct FolderScan {
    QList<ClassFolder> classes;
    QStringList skipped; // files that are not images
};

QString skippedNote(const QStringList &skipped)
{
    QStringList names;
    for (qsizetype i = 0; i < std::min<qsizetype>(skipped.size(), 3); ++i)
        names.append(QFileInfo(skipped[i]).fileName());
    if (skipped.size() > 3)
        names.append(u"..."_s);
    return u"skipped %1 files that are not images (%2)"_s.arg(skipped.size()).arg(names.join(u", "_s));
}

// The class folders in code-point order (the same on every machine, whatever the locale), and
// each one's image files, sorted too.
Expected<FolderScan> scanFolder(const QString &path)
{
    const QFileInfo info(path);
    if (!info.exists())
        return Error{u"no such folder"_s, path, 0, 0, u"check the path"_s};
    if (!info.isDir())
        return Error{u"is a file, not a folder"_s, path, 0, 0,
                     u"an image dataset is a folder with one subfolder of images per class"_s};
    const QDir dir(path);
    QStringList names = dir.entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    std::sort(names.begin(), names.end());
    const QStringList suffixes = imageSuffixes();
    FolderScan scan;
    for (const QString &name : names) {
        ClassFolder folder{name, dir.filePath(name), {}, 0};
        QFileInfoList files = QDir(folder.path).entryInfoList(QDir::Files);
        std::sort(files.begin(), files.end(),
                  [](const QFileInfo &a, const QFileInfo &b) { return a.fileName() < b.fileName(); });
        for (const QFileInfo &file : files) {
            if (suffixes.contains(file.suffix().toLower())) {
                folder.images.append(file.filePath());
                folder.bytes += file.size();
            } else {
                scan.skipped.append(file.filePath());
            }
        }
        scan.classes.append(folder);
    }
    if (scan.classes.isEmpty()) {
        const QFileInfoList files = dir.entryInfoList(QDir::Files);
        const bool images = std::any_of(files.begin(), files.end(), [&](const QFileInfo &file) {
            return suffixes.contains(file.suffix().toLower());
        });
        if (images)
            return Error{u"the images are not sorted into class folders"_s, path, 0, 0,
                         u"put the images of each class into a subfolder named after the class"_s};
        return Error{u"the folder is empty: it has no class subfolders"_s, path, 0, 0,
                     u"an image dataset holds one subfolder per class, named after the class, with its images"_s};
    }
    return scan;
}

Error emptyClassError(const ClassFolder &folder)
{
    return Error{u"class folder '%1' has no images"_s.arg(folder.name), folder.path, 0, 0,
                 u"add images of that class to it, or remove the folder"_s};
}

// Decodes every file into its place in `x` (`size` floats each), on several threads: workers
// take the next image and write it in place; this thread reports and cancels. The first file
// that fails (in the list's order) says why.
Expected<void> decodeImages(const QStringList &files, float *const x, qsizetype size, const LoadOptions &options,
                            const QString &path)
{
    const ImageOptions &image = options.image;
    const qsizetype total = files.size();
    const int threads =
        int(std::clamp<qsizetype>(image.threads > 0 ? image.threads : QThread::idealThreadCount(), 1, total));
    std::atomic<qsizetype> next{0};
    std::atomic<qsizetype> done{0};
    std::atomic<bool> stop{false};
    std::mutex mutex;
    std::condition_variable wake;
    int finished = 0;
    qsizetype failedAt = total;
    Error failure;
    auto work = [&] {
        while (!stop.load(std::memory_order_relaxed)) {
            const qsizetype i = next++;
            if (i >= total)
                break;
            Expected<void> decoded = Error{};
            try { // a worker thread must not let an exception out (std::terminate)
                decoded = decodeImage(files[i], image, x + i * size);
            } catch (const std::bad_alloc &) {
                decoded = outOfMemoryError(files[i]);
            }
            if (!decoded) {
                const std::lock_guard lock(mutex);
                if (i < failedAt) {
                    failedAt = i;
                    failure = decoded.error();
                }
                stop = true;
                break;
            }
            ++done;
            wake.notify_one();
        }
        const std::lock_guard lock(mutex);
        ++finished;
        wake.notify_one();
    };
    if (options.cancelled && options.cancelled())
        return Error{u"loading was cancelled"_s, path, 0, 0, {}};
    std::vector<std::thread> workers;
    workers.reserve(static_cast<size_t>(threads));
    for (int t = 0; t < threads; ++t)
        workers.emplace_back(work);
    bool cancelled = false;
    qsizetype reported = -1;
    {
        std::unique_lock lock(mutex);
        while (finished < threads) {
            wake.wait_for(lock, std::chrono::milliseconds(20));
            lock.unlock();
            const qsizetype now = done.load();
            if (options.progress && now != reported) {
                options.progress(now, total);
                reported = now;
            }
            if (!cancelled && options.cancelled && options.cancelled()) {
                cancelled = true;
                stop = true;
            }
            lock.lock();
        }
    }
    for (std::thread &worker : workers)
        worker.join();
    if (failedAt < total)
        return failure;
    if (cancelled || (options.cancelled && options.cancelled()))
        return Error{u"loading was cancelled"_s, path, 0, 0, {}};
    if (options.progress && reported != total)
        options.progress(total, total);
    return {};
}

} // namespace

bool hasImageSuffix(const QString &fileName)
{
    return imageSuffixes().contains(QFileInfo(fileName).suffix().toLower());
}

Expected<Dataset> loadImageFolder(const QString &path, const LoadOptions &options)
{
    if (!canDecodeImages()) // the one message, from the build's decoder
        return decodeImage(path, options.image, nullptr).error();
    const ImageOptions &image = options.image;
    if (image.width < 1 || image.height < 1 || image.width > maxImageSide || image.height > maxImageSide)
        return Error{u"cannot resize images to %1×%2"_s.arg(image.width).arg(image.height), path, 0, 0,
                     u"choose a width and height between 1 and %1"_s.arg(maxImageSide)};
    auto scan = scanFolder(path);
    if (!scan)
        return scan.error();

    Dataset dataset;
    dataset.kind = DatasetKind::ImageFolder;
    dataset.source = path;
    dataset.task = Task::Classification;
    const int channels = image.grayscale ? 1 : 3;
    dataset.shape = {channels, image.height, image.width};
    QStringList files;
    for (const ClassFolder &folder : scan->classes) {
        if (folder.images.isEmpty())
            return emptyClassError(folder);
        dataset.classNames.append(folder.name);
        for (const QString &file : folder.images) {
            files.append(file);
            dataset.classes.push_back(dataset.classNames.size() - 1);
        }
    }
    const qsizetype total = files.size();
    const qsizetype size = dataset.sampleSize();
    dataset.count = total;
    // Every image is resized to one size: many small files can ask for more than the machine
    // has (security review L3).
    if (auto fits =
            checkMemoryBudget(saturatingProduct({total, size, qint64(sizeof(float))}), path,
                              u"%1 images of %2×%3×%4"_s.arg(total).arg(channels).arg(image.height).arg(image.width));
        !fits)
        return fits.error();
    dataset.x.resize(size_t(total * size));

    if (auto decoded = decodeImages(files, dataset.x.data(), size, options, path); !decoded)
        return decoded.error();

    dataset.notes.append(u"read %1 images of %2 classes, resized to %3×%4 (%5)"_s.arg(total)
                             .arg(dataset.classNames.size())
                             .arg(image.width)
                             .arg(image.height)
                             .arg(image.grayscale ? u"grayscale"_s : u"RGB"_s));
    if (!scan->skipped.isEmpty())
        dataset.notes.append(skippedNote(scan->skipped));
    return dataset;
}

Expected<DatasetInfo> detectImageFolder(const QString &path)
{
    auto scan = scanFolder(path);
    if (!scan)
        return scan.error();
    DatasetInfo info;
    info.kind = DatasetKind::ImageFolder;
    info.path = path;
    info.format = u"image-folder"_s;
    QString first;
    for (const ClassFolder &folder : scan->classes) {
        info.classCounts.append({folder.name, folder.images.size()});
        info.samples += folder.images.size();
        info.bytes += folder.bytes;
        if (folder.images.isEmpty())
            info.problems.append(u"class '%1' has no images"_s.arg(folder.name));
        else if (first.isEmpty())
            first = folder.images.first();
    }
    if (scan->classes.size() == 1)
        info.problems.append(
            u"only one class ('%1'): a classifier needs at least two"_s.arg(scan->classes.first().name));
    if (!scan->skipped.isEmpty())
        info.problems.append(skippedNote(scan->skipped));
    if (!first.isEmpty()) {
        const auto header = readImageHeader(first);
        if (header)
            info.shape = {header->channels, header->height, header->width};
        else
            info.problems.append(QFileInfo(first).fileName() + u": "_s + header.error().message);
    }
    return info;
}

} // namespace ferry::data
