// The OpenImageIO module's own readers: RLE BMP (OpenImageIO refuses an end-of-line code on the last row, which
// encoders write), ICO (OpenImageIO reads a 256-pixel BMP entry as 0 x 0) and CMYK Photoshop files.
#include "io/formats.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <vector>

#include "core/budget.h"
#include "io/headers.h"
#include "io/oiio.h"
#include "io/rgba.h"

namespace halftone::io::detail {

namespace {

/// Checks an image's size against the read's limits before any pixel memory is allocated: the pixel count, then
/// `bytesPerPixel` bytes a pixel (planes and decoder buffers) plus the `fileBytes` held in memory.
Status checkDecodeSize(int64_t width, int64_t height, int channels, uint64_t bytesPerPixel, uint64_t fileBytes,
                       const ReadOptions& options, const std::string& what) {
    if (Status s = checkImageSize(width, height, channels, options.maxPixels); !s) return s;
    return checkMemory(addBytes(uint64_t(width) * uint64_t(height) * bytesPerPixel, fileBytes), options.maxMemory,
                       "reading this " + std::to_string(width) + " x " + std::to_string(height) + " " + what);
}

uint32_t le32(const unsigned char* p) {
    return uint32_t(p[3]) << 24 | uint32_t(p[2]) << 16 | uint32_t(p[1]) << 8 | p[0];
}
uint16_t le16(const unsigned char* p) { return uint16_t(p[1] << 8 | p[0]); }

}  // namespace

namespace {

struct Bgr {
    uint8_t b, g, r;
};

/// Reads `count` palette entries of `entrySize` bytes (B, G, R[, reserved]) at `offset`.
Status readPalette(const std::vector<unsigned char>& d, size_t offset, uint32_t count, size_t entrySize,
                   std::vector<Bgr>& pal) {
    if (offset > d.size() || count > (d.size() - offset) / entrySize)
        return Status::error("corrupt BMP: the palette runs past the end of the file");
    pal.resize(count);
    for (uint32_t i = 0; i < count; ++i) {
        const unsigned char* p = d.data() + offset + size_t(i) * entrySize;
        pal[i] = {p[0], p[1], p[2]};
    }
    return Status::ok();
}

/// Indexed pixels + palette to planes (gray when the palette is gray).
Image fromIndexed(const Plane8& idx, const std::vector<Bgr>& pal) {
    const bool gray = std::all_of(pal.begin(), pal.end(), [](const Bgr& c) { return c.r == c.g && c.g == c.b; });
    Image out;
    out.space = gray ? ColorSpace::Gray : ColorSpace::RGB;
    out.channels.assign(gray ? 1 : 3, Plane8());  // then each plane allocated in place, not copied
    for (Plane8& plane : out.channels) plane = Plane8(idx.width, idx.height);
    for (int y = 0; y < idx.height; ++y) {
        const uint8_t* s = idx.row(y);
        for (int x = 0; x < idx.width; ++x) {
            const Bgr c = s[x] < pal.size() ? pal[s[x]] : Bgr{0, 0, 0};
            if (gray) {
                out.channels[0].row(y)[x] = c.r;
            } else {
                out.channels[0].row(y)[x] = c.r;
                out.channels[1].row(y)[x] = c.g;
                out.channels[2].row(y)[x] = c.b;
            }
        }
    }
    return out;
}

}  // namespace

Status readBmp(const std::string& path, Image& image, const ReadOptions& options, ReadInfo* info) {
    std::vector<unsigned char> d;
    if (Status s = readWholeFile(path, options, d); !s) return s;
    if (d.size() < 54) return Status::error("truncated BMP header");
    const uint32_t dataOffset = le32(&d[10]), infoSize = le32(&d[14]);
    if (infoSize < 40 || 14 + uint64_t(infoSize) > d.size()) return Status::error("corrupt BMP: bad header size");
    const int32_t w = int32_t(le32(&d[18])), hs = int32_t(le32(&d[22]));
    const int bpp = le16(&d[28]);
    const uint32_t compression = le32(&d[30]), used = le32(&d[46]);
    const bool rle8 = compression == 1, rle4 = compression == 2;
    if (!(rle8 && bpp == 8) && !(rle4 && bpp == 4))
        return Status::error("corrupt BMP: RLE" + std::string(rle8 ? "8" : "4") + " with " + std::to_string(bpp) +
                             " bits per pixel");
    const bool topDown = hs < 0;
    const int64_t h = topDown ? -int64_t(hs) : hs;
    if (Status s = checkDecodeSize(w, h, 3, 4, d.size(), options, "BMP image"); !s) return s;
    const uint32_t maxColors = 1u << bpp;
    std::vector<Bgr> pal;
    if (Status s = readPalette(d, 14 + size_t(infoSize), used == 0 || used > maxColors ? maxColors : used, 4, pal); !s)
        return s;
    if (dataOffset >= d.size()) return Status::error("corrupt BMP: the pixel data starts past the end of the file");

    if (options.stop.stopRequested()) return Status::cancelled();
    Plane8 idx(static_cast<int>(w), static_cast<int>(h));  // pixels an RLE stream skips keep colour 0
    int64_t x = 0, y = 0;                                  // y counts rows in file order
    auto put = [&](int v) {
        if (x < w && y < h) idx.at(int(topDown ? y : h - 1 - y), int(x)) = uint8_t(v);
        ++x;
    };
    size_t i = dataOffset;
    bool end = false;
    while (!end) {
        if ((i & 0xFFFFF) == 0 && options.stop.stopRequested()) return Status::cancelled();
        if (i + 2 > d.size()) {
            if (y >= h - 1) break;  // ends without an end-of-bitmap code, but every row is there
            return Status::error("truncated BMP: the RLE data ends at row " + std::to_string(y) + " of " +
                                 std::to_string(h));
        }
        const int n = d[i], v = d[i + 1];
        i += 2;
        if (n > 0) {  // a run of n pixels
            for (int k = 0; k < n && x < w; ++k) put(rle8 ? v : (k % 2 == 0 ? v >> 4 : v & 15));
            continue;
        }
        switch (v) {
            case 0:
                x = 0, ++y;
                break;  // end of line
            case 1:
                end = true;
                break;  // end of bitmap
            case 2:     // delta
                if (i + 2 > d.size()) return Status::error("truncated BMP: RLE delta past the end of the file");
                x += d[i], y += d[i + 1];
                i += 2;
                break;
            default: {  // v literal pixels, padded to 16 bits
                const size_t bytes = rle8 ? size_t(v) : (size_t(v) + 1) / 2;
                if (i + bytes > d.size())
                    return Status::error("truncated BMP: RLE literal run past the end of the file");
                for (int k = 0; k < v; ++k)
                    put(rle8 ? d[i + size_t(k)] : (k % 2 == 0 ? d[i + size_t(k) / 2] >> 4 : d[i + size_t(k) / 2] & 15));
                i += bytes + (bytes & 1);
            }
        }
        if (y > h) break;  // codes past the last row (an end-of-line there is common)
    }
    image = fromIndexed(idx, pal);
    if (info) {
        info->format = "bmp";
        info->sourceChannels = image.channelCount();
        info->sourceType = bpp == 4 ? "4-bit" : "uint8";
    }
    return Status::ok();
}

Status readIco(const std::string& path, Image& image, const ReadOptions& options, ReadInfo* info) {
    std::vector<unsigned char> d;
    if (Status s = readWholeFile(path, options, d); !s) return s;
    if (d.size() < 6) return Status::error("truncated ICO header");
    const int count = le16(&d[4]);
    if (count == 0) return Status::error("ICO file with no images");
    if (6 + 16 * size_t(count) > d.size()) return Status::error("truncated ICO directory");
    // The largest entry (most pixels, then most bits per pixel): what a person sees as "the icon".
    int best = -1;
    uint64_t bestPixels = 0;
    int bestBits = -1;
    for (int e = 0; e < count; ++e) {
        const unsigned char* p = &d[6 + 16 * size_t(e)];
        const uint64_t ew = p[0] ? p[0] : 256, eh = p[1] ? p[1] : 256;
        const int bits = le16(p + 6);
        if (ew * eh > bestPixels || (ew * eh == bestPixels && bits > bestBits))
            best = e, bestPixels = ew * eh, bestBits = bits;
    }
    const unsigned char* entry = &d[6 + 16 * size_t(best)];
    const uint32_t size = le32(entry + 8), offset = le32(entry + 12);
    if (offset >= d.size() || size > d.size() - offset)
        return Status::error("corrupt ICO: entry " + std::to_string(best + 1) + " lies outside the file");
    const unsigned char* e = d.data() + offset;
    if (options.stop.stopRequested()) return Status::cancelled();
    Image out;
    if (size >= 8 && std::memcmp(e, "\x89PNG\r\n\x1a\n", 8) == 0) {
        ReadInfo inner;
        if (Status s = readOiioMemory("png", e, size, out, options, &inner); !s)
            return Status::error("PNG in ICO: " + s.message());
    } else {
        if (size < 40) return Status::error("corrupt ICO: entry too small for a bitmap header");
        const uint32_t hdr = le32(e);
        const int32_t w = int32_t(le32(e + 4)), h2 = int32_t(le32(e + 8));
        const int bpp = le16(e + 14);
        const uint32_t compression = le32(e + 16), used = le32(e + 32);
        const int64_t h = (h2 < 0 ? -int64_t(h2) : int64_t(h2)) / 2;  // colour bitmap + mask
        if (hdr < 40 || hdr > size) return Status::error("corrupt ICO: bad bitmap header size");
        if (compression != 0 && !(compression == 3 && bpp == 32))
            return Status::error("ICO bitmap with compression " + std::to_string(compression) + " is not supported");
        if (bpp != 1 && bpp != 4 && bpp != 8 && bpp != 24 && bpp != 32)
            return Status::error("ICO bitmap with " + std::to_string(bpp) + " bits per pixel is not supported");
        if (Status s = checkDecodeSize(w, h, 4, 8, d.size(), options, "icon"); !s) return s;
        const uint64_t pixels = uint64_t(w) * uint64_t(h);
        size_t at = hdr + (compression == 3 ? 12 : 0);
        std::vector<Bgr> pal;
        if (bpp <= 8) {
            const uint32_t n = used == 0 || used > (1u << bpp) ? 1u << bpp : used;
            std::vector<unsigned char> tail(e, e + size);
            if (Status s = readPalette(tail, at, n, 4, pal); !s) return s;
            at += size_t(n) * 4;
        }
        const uint64_t stride = (uint64_t(w) * uint64_t(bpp) + 31) / 32 * 4, maskStride = (uint64_t(w) + 31) / 32 * 4;
        if (at + stride * uint64_t(h) > size) return Status::error("truncated ICO bitmap");
        const bool haveMask = at + stride * uint64_t(h) + maskStride * uint64_t(h) <= size;
        std::vector<unsigned char> rgba(size_t(pixels) * 4);
        bool anyAlpha = false;
        for (int64_t y = 0; y < h; ++y) {
            const unsigned char* row = e + at + size_t(stride) * size_t(y);  // bottom-up
            unsigned char* o = rgba.data() + size_t(h - 1 - y) * size_t(w) * 4;
            for (int32_t x = 0; x < w; ++x) {
                unsigned char* q = o + size_t(x) * 4;
                if (bpp >= 24) {
                    const unsigned char* p = row + size_t(x) * size_t(bpp / 8);
                    q[0] = p[2], q[1] = p[1], q[2] = p[0], q[3] = bpp == 32 ? p[3] : 255;
                    anyAlpha = anyAlpha || (bpp == 32 && p[3] != 0);
                } else {
                    const size_t bit = size_t(x) * size_t(bpp);
                    const int v = (row[bit / 8] >> (8 - bpp - int(bit % 8))) & ((1 << bpp) - 1);
                    const Bgr c = size_t(v) < pal.size() ? pal[size_t(v)] : Bgr{0, 0, 0};
                    q[0] = c.r, q[1] = c.g, q[2] = c.b, q[3] = 255;
                }
            }
        }
        // 32-bit entries carry alpha; the others (and 32-bit ones whose alpha is all zero) use the
        // 1-bit mask that follows the colours (1 = transparent).
        if (haveMask && !(bpp == 32 && anyAlpha)) {
            const size_t maskAt = at + size_t(stride) * size_t(h);
            for (int64_t y = 0; y < h; ++y) {
                const unsigned char* row = e + maskAt + size_t(maskStride) * size_t(y);
                unsigned char* o = rgba.data() + size_t(h - 1 - y) * size_t(w) * 4;
                for (int32_t x = 0; x < w; ++x) o[size_t(x) * 4 + 3] = (row[x / 8] >> (7 - x % 8)) & 1 ? 0 : 255;
            }
        }
        out = fromRgba(rgba.data(), int(w), int(h), size_t(w) * 4);
    }
    if (info) {
        info->format = "ico";
        info->sourceChannels = out.channelCount() + (out.hasAlpha ? 1 : 0);
        info->sourceType = "uint8";
        if (count > 1)
            info->notes = "icon with " + std::to_string(count) + " images: the largest (" +
                          std::to_string(out.width()) + " x " + std::to_string(out.height()) + ") was read";
    }
    image = std::move(out);
    return Status::ok();
}

namespace {

uint32_t be32(const unsigned char* p) {
    return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3];
}
uint16_t be16(const unsigned char* p) { return uint16_t(p[0] << 8 | p[1]); }

}  // namespace

bool isPsdCmyk(const unsigned char* head, size_t n) {
    return n >= 26 && std::memcmp(head, "8BPS", 4) == 0 && be16(head + 24) == 4;
}

Status readPsdCmyk(const std::string& path, Image& image, const ReadOptions& options, ReadInfo* info) {
    std::vector<unsigned char> d;
    if (Status s = readWholeFile(path, options, d); !s) return s;
    if (d.size() < 26) return Status::error("truncated PSD header");
    const int version = be16(&d[4]);  // 1 PSD, 2 PSB (large document)
    const int channels = be16(&d[12]), depth = be16(&d[22]);
    const uint32_t h = be32(&d[14]), w = be32(&d[18]);
    if (version != 1 && version != 2) return Status::error("corrupt PSD: version " + std::to_string(version));
    if (channels < 4) return Status::error("corrupt PSD: CMYK with " + std::to_string(channels) + " channels");
    if (depth != 8 && depth != 16)
        return Status::error("CMYK PSD with " + std::to_string(depth) +
                             "-bit samples is not supported (8 or 16 bit only)");
    const bool alpha = channels >= 5;  // the first channel after the inks: transparency of the merged image
    if (Status s = checkDecodeSize(w, h, channels, alpha ? 5 : 4, d.size(), options, "CMYK image"); !s) return s;
    // Colour mode data, image resources, layer and mask information: skipped to the merged image.
    size_t at = 26;
    for (int section = 0; section < 3; ++section) {
        const bool wide = section == 2 && version == 2;
        if (at + (wide ? 8 : 4) > d.size()) return Status::error("truncated PSD");
        const uint64_t len = wide ? (uint64_t(be32(&d[at])) << 32 | be32(&d[at + 4])) : be32(&d[at]);
        at += wide ? 8 : 4;
        if (len > d.size() - at) return Status::error("truncated PSD: a section runs past the end of the file");
        at += size_t(len);
    }
    if (at + 2 > d.size()) return Status::error("truncated PSD: no image data");
    const int compression = be16(&d[at]);
    at += 2;
    if (compression != 0 && compression != 1)
        return Status::error("PSD image data with compression " + std::to_string(compression) + " is not supported");
    const size_t bps = size_t(depth / 8), rowBytes = size_t(w) * bps;
    const int planes = alpha ? 5 : 4;
    // The data the size needs, before the planes are allocated (a 104-byte file may declare 30000 x 30000).
    if (const uint64_t need = psdMinimumImageData(w, h, uint64_t(channels), uint64_t(depth), compression, version == 2);
        need > d.size() - at)
        return Status::error("truncated PSD: a " + std::to_string(w) + " x " + std::to_string(h) +
                             " image needs at least " + formatBytes(need) + " of image data, the file holds " +
                             formatBytes(d.size() - at));
    if (options.stop.stopRequested()) return Status::cancelled();
    Image out;
    out.space = ColorSpace::CMYK;
    out.channels.assign(4, Plane8());  // then each plane allocated in place, not copied
    for (Plane8& plane : out.channels) plane = Plane8(int(w), int(h));
    out.hasAlpha = alpha;
    if (alpha) out.alpha = Plane8(int(w), int(h));
    std::vector<unsigned char> row(rowBytes);
    // RLE: a table of compressed row lengths for every row of every channel, then PackBits rows.
    size_t countAt = at;
    const size_t countBytes = version == 2 ? 4 : 2;
    if (compression == 1) {
        const uint64_t table = uint64_t(channels) * h * countBytes;
        if (table > d.size() - at)
            return Status::error("truncated PSD: the RLE row table runs past the end of the file");
        at += size_t(table);
    }
    for (int c = 0; c < planes; ++c) {
        Plane8& dst = c < 4 ? out.channels[size_t(c)] : out.alpha;
        for (uint32_t y = 0; y < h; ++y) {
            if (compression == 0) {
                if (rowBytes > d.size() - at) return Status::error("truncated PSD image data");
                std::memcpy(row.data(), &d[at], rowBytes);
                at += rowBytes;
            } else {
                const size_t n = countBytes == 4 ? be32(&d[countAt]) : be16(&d[countAt]);
                countAt += countBytes;
                if (n > d.size() - at) return Status::error("truncated PSD image data");
                size_t i = at, o = 0;
                const size_t end = at + n;
                while (i < end && o < rowBytes) {  // PackBits
                    const int k = int8_t(d[i++]);
                    if (k >= 0) {
                        const size_t m = std::min<size_t>(size_t(k) + 1, std::min(end - i, rowBytes - o));
                        std::memcpy(&row[o], &d[i], m);
                        i += size_t(k) + 1, o += m;
                    } else if (k != -128 && i < end) {
                        const size_t m = std::min<size_t>(size_t(1 - k), rowBytes - o);
                        std::memset(&row[o], d[i++], m);
                        o += m;
                    }
                }
                if (o < rowBytes) return Status::error("corrupt PSD: an RLE row decodes short");
                at = end;
            }
            uint8_t* q = dst.row(int(y));
            // Photoshop stores CMYK inverted (255 = no ink); alpha as is.
            for (uint32_t x = 0; x < w; ++x) {
                const uint8_t v =
                    bps == 1 ? row[x] : uint8_t((uint32_t(be16(&row[size_t(x) * 2])) * 255u + 32767u) / 65535u);
                q[x] = c < 4 ? uint8_t(255 - v) : v;
            }
        }
    }
    if (info) {
        info->format = "psd";
        info->sourceChannels = channels;
        info->sourceType = depth == 8 ? "uint8" : "uint16";
    }
    image = std::move(out);
    return Status::ok();
}

}  // namespace halftone::io::detail
