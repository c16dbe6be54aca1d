// The built-in codecs: which formats they take, and what every one of them shares (sample layouts, the memory
// budget, EXIF orientation, the end of a read).
#include "io/codecs.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "core/budget.h"
#include "core/prepare/prepare.h"
#include "core/print/separation.h"
#include "io/indexed.h"

namespace halftone::io::detail {

namespace {

bool isJpegExt(const std::string& ext) {
    return ext == ".jpg" || ext == ".jpeg" || ext == ".jpe" || ext == ".jfif" || ext == ".jif";
}
bool isTiffExt(const std::string& ext) { return ext == ".tif" || ext == ".tiff"; }

std::string spaceName(ColorSpace s, bool alpha) {
    const char* n = s == ColorSpace::Gray ? "gray" : s == ColorSpace::RGB ? "RGB" : "CMYK";
    return std::string(n) + (alpha ? " + alpha" : "");
}

}  // namespace

bool builtInReads(const std::string& format, const HeaderFacts& facts) {
    return format == "png" || format == "jpeg" || format == "webp" || format == "gif" ||
           (format == "tiff" && builtInTiff(facts));
}

bool useBuiltInReader(const std::string& format, const HeaderFacts& facts, const ReadOptions& options) {
    if (!builtInReads(format, facts) || options.decoder == Decoder::OpenImageIO) return false;
    if (options.decoder == Decoder::BuiltIn) return true;
    const char* env = std::getenv("HALFTONE_DECODER");
    return !(env && std::strcmp(env, "openimageio") == 0);
}

Status readBuiltIn(const std::string& path, const std::string& format, const HeaderFacts& facts, Image& image,
                   const ReadOptions& options, ReadInfo* info) {
    if (format == "png") return readPng(path, facts, image, options, info);
    if (format == "jpeg") return readJpeg(path, facts, image, options, info);
    if (format == "tiff") return readTiff(path, facts, image, options, info);
    if (format == "webp") return readWebp(path, image, options, info);
    if (format == "gif") return readGif(path, facts, image, options, info);
    return Status::error("no built-in reader for " + format);
}

bool builtInWrites(const std::string& ext, const Image* image) {
    return ext == ".png" || isJpegExt(ext) || isTiffExt(ext) || ext == ".webp" ||
           (ext == ".gif" && image && hasExactPalette(*image));
}

std::string builtInLayoutProblem(const std::string& ext, ColorSpace space) {
    if (space == ColorSpace::CMYK && !isTiffExt(ext))
        return "only TIFF output holds CMYK; write .tif, or halftone in gray or RGB";
    return {};
}

Status writeBuiltIn(const std::string& ext, const std::string& tmpPath, const Image& image,
                    const WriteOptions& options) {
    if (const std::string why = builtInLayoutProblem(ext, image.space); !why.empty()) return Status::error(why);
    const bool png = ext == ".png", tiff = isTiffExt(ext);
    // 1-bit separations: a binary CMYK halftone, or one ink's plate.
    const bool binary =
        !image.hasAlpha && std::all_of(image.channels.begin(), image.channels.end(), [](const Plane8& p) {
            return std::all_of(p.data.begin(), p.data.end(), [](uint8_t v) { return v == 0 || v == 255; });
        });
    const bool plate = !options.plateInk.empty();
    if (plate && (!tiff || image.channelCount() != 1 || !binary))
        return Status::error("a plate is a 1-bit TIFF of one ink of a binary halftone");
    if (tiff && (plate || (binary && image.space == ColorSpace::CMYK))) {
        std::vector<const Plane8*> inks;
        for (const Plane8& p : image.channels) inks.push_back(&p);
        WriteOptions o = options;
        if (o.dpi <= 0) o.dpi = 300.0;  // a printer needs it to size a 1-bit halftone
        return writeTiffInks(tmpPath, inks,
                             plate ? std::vector<std::string>{options.plateInk}
                                   : std::vector<std::string>(kInkNames.begin(), kInkNames.end()),
                             o);
    }
    if (ext == ".gif") return writeGifIndexed(tmpPath, image);
    if (ext == ".webp") return writeWebp(tmpPath, image);
    if (!png && !tiff) return writeJpeg(tmpPath, image);
    // The smallest form that holds the pixels exactly: few gray levels in fewer bits, few colours indexed (a palette
    // halftone's indices exactly as the method chose them; a PNG keeps alpha in its tRNS chunk).
    const int bits = grayBits(image);
    WriteOptions o = options;
    // Resolution: a printer needs it to size a 1-bit halftone (300 dpi in a TIFF when the source did not say).
    if (o.dpi <= 0 && tiff && bits == 1) o.dpi = 300.0;
    IndexedRows indexed;
    if (bits == 8 && indexedForm(image, png, indexed))
        return png ? writePngIndexed(tmpPath, image.width(), image.height(), indexed, o)
                   : writeTiffIndexed(tmpPath, image.width(), image.height(), indexed, o);
    if (tiff) return writeTiff(tmpPath, image, bits, o);
    return bits < 8 ? writePngGray(tmpPath, image.channels[0], bits, o) : writePng(tmpPath, image, o);
}

int grayBits(const Image& image) {
    if (image.space != ColorSpace::Gray || image.hasAlpha || image.channels.size() != 1) return 8;
    bool seen[256] = {};
    for (const uint8_t v : image.channels[0].data) seen[v] = true;
    for (const int bits : {1, 2, 4}) {
        const int step = 255 / ((1 << bits) - 1);
        bool fits = true;
        for (int v = 0; v < 256 && fits; ++v) fits = !seen[v] || v % step == 0;
        if (fits) return bits;
    }
    return 8;
}

void interleaveRow(const Image& image, int y, uint8_t* out) {
    const size_t colors = image.channels.size(), samples = colors + (image.hasAlpha ? 1 : 0);
    const int w = image.width();
    for (size_t c = 0; c < samples; ++c) {
        const uint8_t* s = c < colors ? image.channels[c].row(y) : image.alpha.row(y);
        for (int x = 0; x < w; ++x) out[size_t(x) * samples + c] = s[x];
    }
}

int exifOrientation(const unsigned char* t, size_t n) {
    if (n < 8) return 1;
    const bool le = t[0] == 'I' && t[1] == 'I';
    if (!le && !(t[0] == 'M' && t[1] == 'M')) return 1;
    auto u16 = [&](size_t at) { return le ? unsigned(t[at] | t[at + 1] << 8) : unsigned(t[at] << 8 | t[at + 1]); };
    auto u32 = [&](size_t at) {
        return le ? uint32_t(t[at]) | uint32_t(t[at + 1]) << 8 | uint32_t(t[at + 2]) << 16 | uint32_t(t[at + 3]) << 24
                  : uint32_t(t[at]) << 24 | uint32_t(t[at + 1]) << 16 | uint32_t(t[at + 2]) << 8 | uint32_t(t[at + 3]);
    };
    if (u16(2) != 42) return 1;
    const uint64_t ifd = u32(4);
    if (ifd + 2 > n) return 1;
    const unsigned count = u16(size_t(ifd));
    for (unsigned e = 0; e < count; ++e) {
        const uint64_t at = ifd + 2 + 12 * uint64_t(e);
        if (at + 12 > n) break;
        if (u16(size_t(at)) == 0x0112 && u16(size_t(at) + 2) == 3) {
            const unsigned v = u16(size_t(at) + 8);
            return v >= 1 && v <= 8 ? int(v) : 1;
        }
    }
    return 1;
}

SampleLayout plainLayout(int samples) {
    SampleLayout L;
    L.samples = samples;
    L.space = samples >= 3 ? ColorSpace::RGB : ColorSpace::Gray;
    const int colors = samples >= 3 ? 3 : 1;
    for (int c = 0; c < colors; ++c) L.order.push_back(c);
    L.alpha = samples == 2 || samples == 4 ? colors : -1;
    return L;
}

Status checkReadMemory(int w, int h, const SampleLayout& layout, uint64_t decoderBytes, int orientation,
                       const ReadOptions& options) {
    const uint64_t planes =
        mulBytes(uint64_t(w) * uint64_t(h), uint64_t(layout.order.size() + (layout.alpha >= 0 ? 1 : 0)));
    const uint64_t turned = orientation >= 2 && orientation <= 8 ? planes : 0;  // the upright copy
    return checkMemory(addBytes(addBytes(planes, decoderBytes), turned), options.maxMemory,
                       "reading this " + std::to_string(w) + " x " + std::to_string(h) + " " +
                           spaceName(layout.space, layout.alpha >= 0) + " image");
}

void allocatePlanes(Image& image, int w, int h, const SampleLayout& layout) {
    image.space = layout.space;
    image.channels.assign(layout.order.size(), Plane8());  // then each plane allocated in place, not copied
    for (Plane8& plane : image.channels) plane = Plane8(w, h);
    image.hasAlpha = layout.alpha >= 0;
    if (image.hasAlpha) image.alpha = Plane8(w, h);
}

void storeRow(Image& image, const SampleLayout& L, const void* row, int bits, int y, int x0, int n) {
    const size_t ns = size_t(L.samples);
    const size_t planes = L.order.size() + (L.alpha >= 0 ? 1 : 0);
    for (size_t k = 0; k < planes; ++k) {
        const bool isAlpha = k == L.order.size();
        const int c = isAlpha ? L.alpha : L.order[k];
        if (c < 0) continue;  // an ink the file does not have: the plane stays 0 (no ink)
        uint8_t* d = (isAlpha ? image.alpha.row(y) : image.channels[k].row(y)) + x0;
        if (bits == 8) {
            const uint8_t* s = static_cast<const uint8_t*>(row) + c;
            for (int x = 0; x < n; ++x) d[x] = s[size_t(x) * ns];
        } else {
            const uint16_t* s = static_cast<const uint16_t*>(row) + c;
            for (int x = 0; x < n; ++x) d[x] = uint8_t((uint32_t(s[size_t(x) * ns]) * 255u + 32767u) / 65535u);
        }
        if (L.invert && !isAlpha)
            for (int x = 0; x < n; ++x) d[x] = uint8_t(255 - d[x]);
    }
}

void finishRead(Image& out, int orientation, const std::string& format, int sourceChannels,
                const std::string& sourceType, const std::string& notes, ReadInfo* info, Image& image) {
    if (orientation >= 2 && orientation <= 8) out = applyOrientation(out, orientation);
    if (info) {
        info->format = format;
        info->sourceChannels = sourceChannels;
        info->sourceType = sourceType;
        info->notes = notes;
    }
    image = std::move(out);
}

}  // namespace halftone::io::detail
