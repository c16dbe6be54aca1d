// The studio's image reading: io::readImage, or Qt's image readers in builds without OpenImageIO.
#include "widgets/imageload.h"

#include <QByteArray>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QImageReader>
#include <algorithm>
#include <climits>
#include <cstdio>
#include <new>

#include "core/budget.h"
#include "io/headers.h"

namespace halftone {

namespace {

/// (v*255 + 32767) / 65535: the 16-to-8-bit rule of io::readImage.
inline uint8_t to8(quint16 v) { return uint8_t((uint32_t(v) * 255u + 32767u) / 65535u); }

/// True when the file starts with a binary PNM signature (P4, P5, P6) or PAM (P7), which the built-in codec reads.
bool binaryPnm(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return false;
    const QByteArray head = f.read(2);
    return head.size() == 2 && head[0] == 'P' && head[1] >= '4' && head[1] <= '7';
}

/// Planes of a decoded QImage: gray (+ alpha) when every pixel is gray (whatever Qt's format: a 2-bit gray PNG comes
/// as an indexed image), else RGB (+ alpha); 16-bit formats keep their precision until the 8-bit rounding.
Image planesOf(const QImage& src) {
    const int w = src.width(), h = src.height();
    Image im;
    const bool alpha = src.hasAlphaChannel();
    if (src.format() == QImage::Format_Grayscale8) {
        im = Image::gray(Plane8(w, h));
        for (int y = 0; y < h; ++y) std::copy(src.constScanLine(y), src.constScanLine(y) + w, im.channels[0].row(y));
        return im;
    }
    const bool deep = src.depth() > 32 || src.format() == QImage::Format_Grayscale16;
    // Straight (not premultiplied) alpha, as the planes hold it.
    const QImage c = src.convertToFormat(deep ? QImage::Format_RGBA64 : QImage::Format_RGBA8888);
    auto sample = [&](int y, int x, int k) -> uint8_t {
        if (deep) return to8(reinterpret_cast<const quint16*>(c.constScanLine(y))[4 * x + k]);
        return c.constScanLine(y)[4 * x + k];
    };
    bool gray = true;
    for (int y = 0; y < h && gray; ++y)
        for (int x = 0; x < w; ++x)
            if (sample(y, x, 0) != sample(y, x, 1) || sample(y, x, 0) != sample(y, x, 2)) {
                gray = false;
                break;
            }
    im.space = gray ? ColorSpace::Gray : ColorSpace::RGB;
    im.channels.assign(gray ? 1 : 3, Plane8(w, h));
    im.hasAlpha = alpha;
    if (alpha) im.alpha = Plane8(w, h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            for (size_t k = 0; k < im.channels.size(); ++k) im.channels[k].at(y, x) = sample(y, x, int(k));
            if (alpha) im.alpha.at(y, x) = sample(y, x, 3);
        }
    return im;
}

Status readWithQtUnguarded(const QString& path, Image& image, const io::ReadOptions& options, QString* notes,
                           const std::string& ctx) {
    const QFileInfo fi(path);
    if (!fi.exists()) return Status::error(ctx + ": no such file");
    if (fi.isDir()) return Status::error(ctx + ": is a directory, not an image file");
    if (!fi.isFile()) return Status::error(ctx + ": not a regular file");
    if (!fi.isReadable()) return Status::error(ctx + ": permission denied");
    if (fi.size() == 0) return Status::error(ctx + ": the file is empty");

    // The checks io::readImage makes before any decoder runs: the content names the format (a file of no known
    // format is refused at once), and the header is checked against the limits (JPEG structure and scan count,
    // PNG, GIF, ICO, BMP and PSD sizes), so a truncated file or a decoding bomb is refused here as it is there.
    uint64_t decoderBytes = 0;
    {
        QFile f(path);
        if (!f.open(QIODevice::ReadOnly)) return Status::error(ctx + ": " + f.errorString().toStdString());
        const QByteArray head = f.read(64);
        const auto* bytes = reinterpret_cast<const unsigned char*>(head.constData());
        const std::string format = io::detail::sniffFormat(bytes, size_t(head.size()));
        if (format.empty()) {
            std::string shown;
            for (int i = 0; i < std::min<int>(head.size(), 8); ++i) {
                char hex[4];
                std::snprintf(hex, sizeof hex, "%02x", bytes[i]);
                shown.append(i ? " " : "").append(hex);
            }
            return Status::error(ctx + ": not an image file of any supported format (it starts with bytes " + shown +
                                 ")");
        }
        io::detail::HeaderFacts facts;
        if (Status s = io::detail::checkHeader(QFile::encodeName(path).toStdString(), format, options, facts); !s)
            return s.withContext(ctx);
        decoderBytes = facts.decoderBytes;
    }
    QImageReader reader(path);
    reader.setDecideFormatFromContent(true);  // the content names the format, not the file name
    reader.setAutoTransform(true);            // EXIF orientation
    if (!reader.canRead()) {
        QStringList formats;
        for (const QByteArray& f : QImageReader::supportedImageFormats()) formats << QString::fromLatin1(f);
        return Status::error(ctx + ": not an image file of any format this build reads (built without OpenImageIO, " +
                             "it reads binary PGM/PPM/PBM and, through Qt's image readers, " +
                             formats.join(QStringLiteral(", ")).toStdString() + ")");
    }
    const QSize announced = reader.size();
    // A format whose header gives no size is checked after decoding (Qt's allocation limit still holds it).
    uint64_t needed = 0;
    if (announced.isValid()) {
        if (Status s = checkImageSize(announced.width(), announced.height(), 4, options.maxPixels); !s)
            return s.withContext(ctx);
        const uint64_t pixels = mulBytes(uint64_t(announced.width()), uint64_t(announced.height()));
        // Qt's decoded image (up to 8 bytes a pixel for 16-bit files) plus its 8-bit RGBA conversion and the planes.
        needed = addBytes(mulBytes(pixels, 8 + 4 + 4), decoderBytes);
        if (Status s = checkMemory(needed, options.maxMemory,
                                   "reading " + std::to_string(announced.width()) + " x " +
                                       std::to_string(announced.height()) + " pixels");
            !s)
            return s.withContext(ctx);
    }
    if (options.stop.stopRequested()) return Status::cancelled();
    // Qt refuses images over its allocation limit (256 MB by default): the limit here is the memory budget.
    const uint64_t limitMb = std::max<uint64_t>(256, options.maxMemory >> 20);
    if (QImageReader::allocationLimit() != 0 && uint64_t(QImageReader::allocationLimit()) < limitMb)
        QImageReader::setAllocationLimit(int(std::min<uint64_t>(limitMb, INT_MAX)));
    const int frames = reader.imageCount();
    QImage decoded = reader.read();
    if (decoded.isNull())
        return Status::error(ctx + ": " + reader.errorString().toStdString() + " (" +
                             QString::fromLatin1(reader.format()).toStdString() + " file)");
    if (options.stop.stopRequested()) return Status::cancelled();
    if (Status s = checkImageSize(decoded.width(), decoded.height(), 4, options.maxPixels); !s)
        return s.withContext(ctx);
    image = planesOf(decoded);
    if (notes) {
        notes->clear();
        if (frames > 1) *notes = QStringLiteral("multi-image file: only the first image was read");
    }
    return Status::ok();
}

}  // namespace

Status readImageWithQt(const QString& path, Image& image, const io::ReadOptions& options, QString* notes) {
    const std::string ctx = "cannot read '" + QFile::encodeName(path).toStdString() + "'";
    try {
        return readWithQtUnguarded(path, image, options, notes, ctx);
    } catch (const std::bad_alloc&) {
        return Status::error(ctx + ": out of memory while decoding");
    }
}

Status readImageFile(const QString& path, Image& image, const io::ReadOptions& options, QString* notes,
                     ImageReaderChoice reader) {
    if (reader == ImageReaderChoice::Qt || (!io::haveOpenImageIO() && !binaryPnm(path)))
        return readImageWithQt(path, image, options, notes);
    io::ReadInfo info;
    Status s = io::readImage(QFile::encodeName(path).toStdString(), image, options, &info);
    if (notes) *notes = QString::fromStdString(info.notes);
    return s;
}

}  // namespace halftone
