// TIFF through libtiff: gray, RGB, palette and separated (ink) images of 1 to 16-bit unsigned samples, in strips or
// tiles, contiguous or planar, read one band of rows at a time; the colour meaning from the tags as OpenImageIO's path
// takes it (io/rgba.h separatedInks). Gray of 1 to 8 bits, palette, RGB and CMYK (with alpha), and 1-bit
// separations of named inks written in Deflate strips compressed on the worker pool.
#include <tiffio.h>
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "core/budget.h"
#include "core/threads.h"
#include "core/workerpool.h"
#include "io/codecs.h"
#include "io/pngwrite.h"
#include "io/rgba.h"

namespace halftone::io::detail {

namespace {

/// The first error libtiff reports for one file (the file name it puts in front is left out).
struct TiffErrors {
    std::string path;
    std::string first;
};

int tiffOnError(TIFF*, void* user, const char* module, const char* fmt, va_list ap) {
    auto* e = static_cast<TiffErrors*>(user);
    if (!e || !e->first.empty()) return 1;
    char buf[512];
    std::vsnprintf(buf, sizeof buf, fmt, ap);
    std::string msg = buf;
    for (size_t p; !e->path.empty() && (p = msg.find(e->path)) != std::string::npos;) msg.erase(p, e->path.size());
    const std::string where = module && e->path != module ? std::string(module) + ": " : std::string();
    e->first = where + msg;
    return 1;
}

int tiffOnWarning(TIFF*, void*, const char*, const char*, va_list) { return 1; }

struct TiffCloser {
    void operator()(TIFF* t) const { TIFFClose(t); }
};
using TiffPtr = std::unique_ptr<TIFF, TiffCloser>;

/// Opens `path` ("r" or "w") with the error handler and, for reading, libtiff's own allocation limit.
TIFF* openTiff(const std::string& path, const char* mode, TiffErrors& errors, uint64_t maxAlloc) {
    errors.path = path;
    TIFFOpenOptions* opts = TIFFOpenOptionsAlloc();
    if (!opts) return nullptr;
    TIFFOpenOptionsSetErrorHandlerExtR(opts, tiffOnError, &errors);
    TIFFOpenOptionsSetWarningHandlerExtR(opts, tiffOnWarning, &errors);
    if (maxAlloc)
        TIFFOpenOptionsSetMaxSingleMemAlloc(opts, tmsize_t(std::min<uint64_t>(maxAlloc, uint64_t(INT64_MAX))));
    TIFF* t = TIFFOpenExt(path.c_str(), mode, opts);
    TIFFOpenOptionsFree(opts);
    return t;
}

/// The XResolution tag in dots per inch (a unit of centimetres converted); 0 when absent or without a unit.
double tiffResolution(TIFF* t) {
    float x = 0;
    uint16_t unit = RESUNIT_INCH;
    if (!TIFFGetField(t, TIFFTAG_XRESOLUTION, &x) || !(x > 0) || !std::isfinite(x)) return 0;
    TIFFGetFieldDefaulted(t, TIFFTAG_RESOLUTIONUNIT, &unit);
    return unit == RESUNIT_INCH ? double(x) : unit == RESUNIT_CENTIMETER ? double(x) * 2.54 : 0.0;
}

Status tiffError(const TiffErrors& e, const char* what) {
    return Status::error("corrupt TIFF: " + (e.first.empty() ? std::string(what) : e.first));
}

}  // namespace

bool builtInTiff(const HeaderFacts& facts) {
    // Classic TIFFs of unsigned samples with gray, RGB, palette or ink photometrics; the rest (floating point,
    // YCbCr, CIELab, LogLuv, BigTIFF) through OpenImageIO.
    const int p = facts.tiffPhotometric;
    return facts.tiffExtraSamples >= 0 && facts.tiffSampleFormat == 1 &&
           (p == 0 || p == 1 || p == 2 || p == 3 || p == 5);
}

Status readTiff(const std::string& path, const HeaderFacts& facts, Image& image, const ReadOptions& options,
                ReadInfo* info) {
    TiffErrors errors;
    TiffPtr tif(openTiff(path, "r", errors, options.maxMemory));
    if (!tif) return tiffError(errors, "the file cannot be opened");
    uint32_t w = 0, h = 0;
    uint16_t spp = 1, bps = 1, photometric = 1, planar = PLANARCONFIG_CONTIG, orientation = ORIENTATION_TOPLEFT;
    TIFFGetField(tif.get(), TIFFTAG_IMAGEWIDTH, &w);
    TIFFGetField(tif.get(), TIFFTAG_IMAGELENGTH, &h);
    TIFFGetFieldDefaulted(tif.get(), TIFFTAG_SAMPLESPERPIXEL, &spp);
    TIFFGetFieldDefaulted(tif.get(), TIFFTAG_BITSPERSAMPLE, &bps);
    TIFFGetFieldDefaulted(tif.get(), TIFFTAG_PLANARCONFIG, &planar);
    TIFFGetFieldDefaulted(tif.get(), TIFFTAG_ORIENTATION, &orientation);
    if (!TIFFGetField(tif.get(), TIFFTAG_PHOTOMETRIC, &photometric))
        photometric = uint16_t(facts.tiffPhotometric >= 0 ? facts.tiffPhotometric : 1);
    if (Status s = checkImageSize(int64_t(w), int64_t(h), spp, options.maxPixels); !s) return s;
    if (bps != 1 && bps != 2 && bps != 4 && bps != 8 && bps != 16)
        return Status::error("TIFF with " + std::to_string(bps) + "-bit samples is not supported");
    if (bps < 8 && spp != 1 && photometric != PHOTOMETRIC_SEPARATED)
        return Status::error("TIFF with " + std::to_string(spp) + " samples of " + std::to_string(bps) +
                             " bits is not supported");
    const int nch = photometric == PHOTOMETRIC_PALETTE ? 3 : spp;  // as OpenImageIO expands a palette

    // The colour meaning from the tags.
    SampleLayout L = plainLayout(std::min(nch, 4));
    L.samples = nch;
    if (photometric == PHOTOMETRIC_SEPARATED) {
        InkLayout inks;
        const bool cmykSet = (facts.tiffInkSet == 1 || facts.tiffInkSet < 0) && nch >= 4;
        if (Status s = separatedInks(nch, facts, cmykSet, inks); !s) return s;
        L.space = inks.space;
        L.order = inks.order;
        L.alpha = inks.alpha;
        L.invert = inks.invert;
    } else if ((photometric == PHOTOMETRIC_MINISWHITE || photometric == PHOTOMETRIC_MINISBLACK) && nch > 2) {
        return Status::error("gray TIFF with " + std::to_string(nch) + " channels is not supported");
    } else if (nch > 4) {
        return Status::error("unsupported channel layout: " + std::to_string(nch) + " channels");
    } else if (photometric == PHOTOMETRIC_MINISWHITE) {
        L.invert = true;
    }
    if (photometric == PHOTOMETRIC_PALETTE && (spp != 1 || bps > 8))
        return Status::error("palette TIFF with " + std::to_string(spp) + " samples of " + std::to_string(bps) +
                             " bits is not supported");
    uint16_t *red = nullptr, *green = nullptr, *blue = nullptr;
    if (photometric == PHOTOMETRIC_PALETTE && !TIFFGetField(tif.get(), TIFFTAG_COLORMAP, &red, &green, &blue))
        return Status::error("palette TIFF without a colour map");

    // One band of rows at a time: a strip, or a row of tiles.
    const bool tiled = TIFFIsTiled(tif.get()) != 0;
    uint32_t tw = w, th = 1;
    if (tiled) {
        TIFFGetField(tif.get(), TIFFTAG_TILEWIDTH, &tw);
        TIFFGetField(tif.get(), TIFFTAG_TILELENGTH, &th);
        if (tw == 0 || th == 0) return Status::error("corrupt TIFF: tiles of size 0");
    } else {
        TIFFGetFieldDefaulted(tif.get(), TIFFTAG_ROWSPERSTRIP, &th);
        th = std::clamp<uint32_t>(th, 1, std::max<uint32_t>(h, 1));
    }
    const uint64_t block = uint64_t(tiled ? TIFFTileSize64(tif.get()) : TIFFStripSize64(tif.get()));
    if (block == 0) return tiffError(errors, "no image data");
    const bool palette = photometric == PHOTOMETRIC_PALETTE;
    const size_t stride = size_t(nch);  // samples a pixel in the band (a palette index expands to three)
    const uint64_t band = mulBytes(mulBytes(uint64_t(w), uint64_t(th)), uint64_t(nch) * 2);  // 16-bit samples
    if (Status s = checkReadMemory(int(w), int(h), L, addBytes(addBytes(block, band), facts.decoderBytes), orientation,
                                   options);
        !s)
        return s;
    std::vector<uint8_t> buf(static_cast<size_t>(block));
    std::vector<uint16_t> rows(size_t(w) * th * stride);
    const bool separate = planar == PLANARCONFIG_SEPARATE && spp > 1;
    const uint32_t planes = separate ? spp : 1, perBlock = separate ? 1 : spp;
    const uint32_t blockWidth = tiled ? tw : w;
    const uint64_t blockRow = (uint64_t(blockWidth) * perBlock * bps + 7) / 8;
    Image out;
    for (uint32_t y0 = 0; y0 < h; y0 += th) {
        if (options.stop.stopRequested()) return Status::cancelled();
        const uint32_t n = std::min(th, h - y0);
        for (uint32_t p = 0; p < planes; ++p) {
            for (uint32_t x0 = 0; x0 < w; x0 += blockWidth) {
                const tmsize_t got =
                    tiled ? TIFFReadEncodedTile(tif.get(), TIFFComputeTile(tif.get(), x0, y0, 0, uint16_t(p)),
                                                buf.data(), tmsize_t(block))
                          : TIFFReadEncodedStrip(tif.get(), TIFFComputeStrip(tif.get(), y0, uint16_t(p)), buf.data(),
                                                 tmsize_t(block));
                if (got < 0 || uint64_t(got) < blockRow * (tiled ? th : n))
                    return tiffError(errors, "the image data ends early");
                const uint32_t cols = std::min(blockWidth, w - x0);
                for (uint32_t r = 0; r < n; ++r) {
                    const uint8_t* s = buf.data() + blockRow * r;
                    uint16_t* d = rows.data() + (size_t(r) * w + x0) * stride + (separate ? p : 0);
                    const uint32_t count = cols * perBlock;
                    for (uint32_t i = 0; i < count; ++i) {
                        uint32_t v;
                        if (bps == 16) {
                            uint16_t u;
                            std::memcpy(&u, s + size_t(i) * 2, 2);  // libtiff gives host order
                            v = u;
                        } else if (bps == 8) {
                            v = palette ? s[i] : s[i] * 257u;
                        } else {  // 1, 2 or 4 bits: scaled to 0..255 (a palette index stays an index)
                            const uint32_t bit = i * bps, max = (1u << bps) - 1;
                            v = (s[bit / 8] >> (8 - bps - bit % 8)) & max;
                            if (!palette) v = v * 255u / max * 257u;
                        }
                        d[size_t(i / perBlock) * stride + (i % perBlock)] = uint16_t(v);
                    }
                }
            }
        }
        if (out.channels.empty()) allocatePlanes(out, int(w), int(h), L);  // once pixels decode
        for (uint32_t r = 0; r < n; ++r) {
            uint16_t* row = rows.data() + size_t(r) * w * stride;
            if (palette)  // indices to the colour map's RGB, its 16-bit entries scaled to 8 bits rounding down (as
                          // OpenImageIO)
                for (uint32_t x = 0; x < w; ++x) {
                    const uint16_t k = row[size_t(x) * 3];
                    const uint16_t* map[3] = {red, green, blue};
                    for (int c = 0; c < 3; ++c) row[size_t(x) * 3 + size_t(c)] = uint16_t(map[c][k] / 257 * 257);
                }
            storeRow(out, L, row, 16, int(y0 + r), 0, int(w));
        }
    }
    if (out.channels.empty()) return tiffError(errors, "no image data");
    const bool more = TIFFLastDirectory(tif.get()) == 0;
    std::string type = bps == 16 ? "uint16" : bps == 8 ? "uint8" : std::to_string(bps) + "-bit";
    finishRead(out, orientation, "tiff", nch, type, more ? "multi-image file: only the first image was read" : "", info,
               image);
    if (info) info->dpi = tiffResolution(tif.get());
    return Status::ok();
}

namespace {

/// Compresses `raw` into `out` as one zlib stream (what TIFF's Adobe Deflate strips hold); false when zlib fails.
bool deflateStrip(const std::vector<uint8_t>& raw, int level, int strategy, std::vector<uint8_t>& out) {
    z_stream z{};
    if (deflateInit2(&z, level, Z_DEFLATED, 15, 8, strategy) != Z_OK) return false;
    out.resize(deflateBound(&z, uLong(raw.size())));
    z.next_in = const_cast<Bytef*>(raw.data());
    z.avail_in = uInt(raw.size());
    z.next_out = out.data();
    z.avail_out = uInt(out.size());
    const bool done = deflate(&z, Z_FINISH) == Z_STREAM_END;
    out.resize(z.total_out);
    deflateEnd(&z);
    return done;
}

}  // namespace

Status writeTiffRows(const std::string& path, const TiffLayout& layout,
                     const std::function<void(int y, uint8_t* row, uint8_t* scratch)>& fillRow,
                     const WriteOptions& options) {
    TiffErrors errors;
    TiffPtr tif(openTiff(path, "w", errors, 0));
    if (!tif) return Status::error("write failed: " + errors.first);
    const auto w = uint32_t(layout.width), h = uint32_t(layout.height);
    TIFF* t = tif.get();
    TIFFSetField(t, TIFFTAG_IMAGEWIDTH, w);
    TIFFSetField(t, TIFFTAG_IMAGELENGTH, h);
    TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, uint16_t(layout.samples));
    TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, uint16_t(layout.bits));
    TIFFSetField(t, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
    TIFFSetField(t, TIFFTAG_PHOTOMETRIC, uint16_t(layout.photometric));
    if (layout.photometric == PHOTOMETRIC_SEPARATED && layout.inkNames.empty())
        TIFFSetField(t, TIFFTAG_INKSET, INKSET_CMYK);
    if (!layout.inkNames
             .empty()) {  // named inks: InkSet CMYK for Cyan, Magenta, Yellow, Black in order, else multi-ink
        const bool cmyk = layout.inkNames == std::vector<std::string>{"Cyan", "Magenta", "Yellow", "Black"};
        TIFFSetField(t, TIFFTAG_INKSET, cmyk ? INKSET_CMYK : INKSET_MULTIINK);
        TIFFSetField(t, TIFFTAG_NUMBEROFINKS, uint16_t(layout.inkNames.size()));
        std::string joined;  // InkNames: the names, each ended by a NUL
        for (const std::string& n : layout.inkNames) joined += n + '\0';
        TIFFSetField(t, TIFFTAG_INKNAMES, int(joined.size()), joined.data());
    }
    if (!layout.pageName.empty()) TIFFSetField(t, TIFFTAG_PAGENAME, layout.pageName.c_str());
    if (layout.photometric == PHOTOMETRIC_PALETTE) {
        const size_t n = layout.colorMap.size() / 3;
        TIFFSetField(t, TIFFTAG_COLORMAP, layout.colorMap.data(), layout.colorMap.data() + n,
                     layout.colorMap.data() + 2 * n);
    }
    if (layout.alpha) {
        const uint16_t extra[1] = {EXTRASAMPLE_UNASSALPHA};
        TIFFSetField(t, TIFFTAG_EXTRASAMPLES, 1, extra);
    }
    const bool predict = layout.bits == 8 && layout.photometric != PHOTOMETRIC_PALETTE;
    TIFFSetField(t, TIFFTAG_COMPRESSION, COMPRESSION_ADOBE_DEFLATE);
    if (predict) TIFFSetField(t, TIFFTAG_PREDICTOR, PREDICTOR_HORIZONTAL);
    const size_t rowBytes = (size_t(w) * size_t(layout.samples) * size_t(layout.bits) + 7) / 8;
    const auto rowsPerStrip = uint32_t(std::clamp<size_t>((size_t(1) << 18) / rowBytes, 1, h));
    TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, rowsPerStrip);
    if (options.dpi > 0) {
        TIFFSetField(t, TIFFTAG_XRESOLUTION, float(options.dpi));
        TIFFSetField(t, TIFFTAG_YRESOLUTION, float(options.dpi));
        TIFFSetField(t, TIFFTAG_RESOLUTIONUNIT, RESUNIT_INCH);
    }
    // Strips in groups of a few per worker: each worker fills and compresses whole strips into its own buffers, then
    // the group is written in order.
    const uint32_t strips = (h + rowsPerStrip - 1) / rowsPerStrip;
    const int threads = std::max(1, threadsOrAll(options.control.threads));
    const uint32_t group = uint32_t(threads) * 2;
    const auto workers = size_t(threads);
    std::vector<std::vector<uint8_t>> raw(workers), scratch(workers);
    std::vector<std::vector<uint8_t>> packed(group);
    const int strategy = deflateStrategy(options.compressLevel, !predict);
    std::atomic<bool> deflateFailed{false};
    const RunControl quiet{{}, options.control.stop, threads};  // progress is reported per group below
    for (uint32_t s0 = 0; s0 < strips; s0 += group) {
        const uint32_t n = std::min(group, strips - s0);
        options.control.report(double(s0) / strips, "writing");
        const bool done = parallelChunks(n, 1, threads, quiet, {}, [&](int64_t i, int64_t, int worker) {
            const uint32_t strip = s0 + uint32_t(i), y0 = strip * rowsPerStrip, y1 = std::min(h, y0 + rowsPerStrip);
            std::vector<uint8_t>& r = raw[size_t(worker)];
            r.resize(rowBytes * (y1 - y0));
            scratch[size_t(worker)].resize(size_t(w) * size_t(layout.samples));
            for (uint32_t y = y0; y < y1; ++y) {
                uint8_t* row = r.data() + rowBytes * (y - y0);
                fillRow(int(y), row, scratch[size_t(worker)].data());
                if (predict)  // TIFF's horizontal differencing, from the right so each sample sees its left original
                    for (size_t k = rowBytes - 1; k >= size_t(layout.samples) && k < rowBytes; --k)
                        row[k] = uint8_t(row[k] - row[k - size_t(layout.samples)]);
            }
            if (!deflateStrip(r, options.compressLevel, strategy, packed[size_t(i)])) deflateFailed = true;
        });
        if (!done) return Status::cancelled();
        if (deflateFailed) return Status::error("out of memory while compressing");
        for (uint32_t i = 0; i < n; ++i)
            if (TIFFWriteRawStrip(t, s0 + i, packed[i].data(), tmsize_t(packed[i].size())) < 0)
                return Status::error("write failed: " + errors.first);
    }
    if (!TIFFFlush(t) || !errors.first.empty()) return Status::error("write failed: " + errors.first);
    return Status::ok();
}

Status writeTiff(const std::string& path, const Image& image, int bits, const WriteOptions& options) {
    TiffLayout layout;
    layout.width = image.width();
    layout.height = image.height();
    layout.bits = bits;
    layout.samples = image.channelCount() + (image.hasAlpha ? 1 : 0);
    layout.alpha = image.hasAlpha;
    layout.photometric = image.space == ColorSpace::Gray  ? PHOTOMETRIC_MINISBLACK
                         : image.space == ColorSpace::RGB ? PHOTOMETRIC_RGB
                                                          : PHOTOMETRIC_SEPARATED;
    uint8_t code[256];
    for (int v = 0; v < 256; ++v) code[v] = uint8_t(v * ((1 << bits) - 1) / 255);
    return writeTiffRows(
        path, layout,
        [&](int y, uint8_t* row, uint8_t*) {
            if (bits < 8)
                packRow(image.channels[0].row(y), layout.width, bits, row, code);
            else
                interleaveRow(image, y, row);
        },
        options);
}

Status writeTiffInks(const std::string& path, const std::vector<const Plane8*>& inks,
                     const std::vector<std::string>& names, const WriteOptions& options) {
    if (inks.empty() || inks.size() != names.size()) return Status::error("write failed: no inks to write");
    TiffLayout layout;
    layout.width = inks[0]->width;
    layout.height = inks[0]->height;
    layout.bits = 1;
    layout.samples = int(inks.size());
    if (inks.size() == 1) {
        layout.photometric = PHOTOMETRIC_MINISWHITE;
        layout.pageName = names[0];
    } else {
        layout.photometric = PHOTOMETRIC_SEPARATED;
        layout.inkNames = names;
    }
    const size_t spp = inks.size();
    return writeTiffRows(
        path, layout,
        [&](int y, uint8_t* row, uint8_t*) {
            std::fill(row, row + (size_t(layout.width) * spp + 7) / 8, uint8_t(0));
            for (size_t c = 0; c < spp; ++c) {
                const uint8_t* s = inks[c]->row(y);
                for (size_t x = 0, bit = c; x < size_t(layout.width); ++x, bit += spp)
                    if (s[x]) row[bit >> 3] |= uint8_t(0x80 >> (bit & 7));
            }
        },
        options);
}

}  // namespace halftone::io::detail
