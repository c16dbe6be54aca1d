#include "widgets/imageconvert.h"

#include "core/threads.h"
#include "core/workerpool.h"

namespace halftone {

namespace {

QImage interleave(const Image& rgb) {
    const int w = rgb.width(), h = rgb.height();
    QImage out(w, h, QImage::Format_RGB888);
    if (out.isNull()) return out;
    const bool gray = rgb.channelCount() < 3;
    for (int y = 0; y < h; ++y) {
        uchar* o = out.scanLine(y);
        const uint8_t* r = rgb.channels[0].row(y);
        const uint8_t* g = gray ? r : rgb.channels[1].row(y);
        const uint8_t* b = gray ? r : rgb.channels[2].row(y);
        for (int x = 0; x < w; ++x) {
            o[3 * x] = r[x];
            o[3 * x + 1] = g[x];
            o[3 * x + 2] = b[x];
        }
    }
    return out;
}

}  // namespace

QImage toDisplayImage(const std::shared_ptr<const Image>& keepAlive) {
    if (!keepAlive || keepAlive->channels.empty()) return {};
    const Image& im = *keepAlive;
    if (im.space == ColorSpace::Gray) {
        const Plane8& p = im.channels.front();
        // The QImage borrows the plane; the cleanup function holds the image alive as long as the QImage.
        auto* hold = new std::shared_ptr<const Image>(keepAlive);
        return QImage(
            p.data.data(), p.width, p.height, p.width, QImage::Format_Grayscale8,
            [](void* h) { delete static_cast<std::shared_ptr<const Image>*>(h); }, hold);
    }
    if (im.space == ColorSpace::CMYK) return interleave(convertColor(im, ColorMode::RGB));
    return interleave(im);
}

QImage toDisplayImageCopy(const Image& image) {
    if (image.channels.empty()) return {};
    if (image.space == ColorSpace::Gray) {
        const Plane8& p = image.channels.front();
        QImage out(p.width, p.height, QImage::Format_Grayscale8);
        for (int y = 0; y < p.height; ++y) std::copy(p.row(y), p.row(y) + p.width, out.scanLine(y));
        return out;
    }
    if (image.space == ColorSpace::CMYK) return interleave(convertColor(image, ColorMode::RGB));
    return interleave(image);
}

namespace {

/// One output row of a 2x2 box reduction of rows r0 and r1 (`w` pixels of `Bpp` bytes); an odd last column
/// averages what exists.
template <int Bpp>
void halveRow(const uchar* r0, const uchar* r1, int w, uchar* o) {
    const int pairs = w / 2;  // outputs whose two columns both exist
    for (int x = 0; x < pairs; ++x)
        for (int c = 0; c < Bpp; ++c) {
            const int a = 2 * Bpp * x + c, b = a + Bpp;
            o[Bpp * x + c] = uchar((r0[a] + r0[b] + r1[a] + r1[b] + 2) / 4);
        }
    if (w % 2)
        for (int c = 0; c < Bpp; ++c) {
            const int a = Bpp * (w - 1) + c;
            o[Bpp * pairs + c] = uchar((2 * r0[a] + 2 * r1[a] + 2) / 4);
        }
}

/// Halves an 8-bit-per-channel image with a 2x2 box filter (odd edges average what exists); rows on the worker pool.
QImage halve(const QImage& in) {
    const bool gray = in.format() == QImage::Format_Grayscale8;
    const int w = in.width(), h = in.height(), hw = (w + 1) / 2, hh = (h + 1) / 2;
    QImage out(hw, hh, in.format());
    if (out.isNull()) return out;
    uchar* bits = out.bits();  // detached here, once: the workers only write rows
    const qsizetype stride = out.bytesPerLine();
    parallelChunks(hh, 64, threadsOrAll(0), RunControl{}, {}, [&](int64_t y0, int64_t y1, int) {
        for (int64_t y = y0; y < y1; ++y) {
            const uchar* r0 = in.constScanLine(int(2 * y));
            const uchar* r1 = in.constScanLine(std::min(int(2 * y + 1), h - 1));
            uchar* o = bits + y * stride;
            gray ? halveRow<1>(r0, r1, w, o) : halveRow<3>(r0, r1, w, o);
        }
    });
    return out;
}

}  // namespace

QVector<QImage> reductions(const QImage& base) {
    QVector<QImage> levels;
    if (base.isNull()) return levels;
    QImage cur = base;
    if (cur.format() != QImage::Format_Grayscale8 && cur.format() != QImage::Format_RGB888)
        cur = cur.convertToFormat(QImage::Format_RGB888);
    while (cur.width() > 64 || cur.height() > 64) {
        cur = halve(cur);
        levels.push_back(cur);
    }
    return levels;
}

Image fromQImage(const QImage& src) {
    Image im;
    if (src.isNull()) return im;
    const bool gray = src.isGrayscale() && !src.hasAlphaChannel();
    if (gray) {
        const QImage g = src.convertToFormat(QImage::Format_Grayscale8);
        Plane8 p(g.width(), g.height());
        for (int y = 0; y < g.height(); ++y) std::copy(g.constScanLine(y), g.constScanLine(y) + g.width(), p.row(y));
        return Image::gray(std::move(p));
    }
    const QImage c = src.convertToFormat(QImage::Format_RGBA8888);
    const int w = c.width(), h = c.height();
    im.space = ColorSpace::RGB;
    im.channels.assign(3, Plane8(w, h));
    im.hasAlpha = src.hasAlphaChannel();
    if (im.hasAlpha) im.alpha = Plane8(w, h);
    for (int y = 0; y < h; ++y) {
        const uchar* s = c.constScanLine(y);
        for (int x = 0; x < w; ++x) {
            im.channels[0].at(y, x) = s[4 * x];
            im.channels[1].at(y, x) = s[4 * x + 1];
            im.channels[2].at(y, x) = s[4 * x + 2];
            if (im.hasAlpha) im.alpha.at(y, x) = s[4 * x + 3];
        }
    }
    return im;
}

}  // namespace halftone
