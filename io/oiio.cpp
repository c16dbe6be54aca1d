// Reading and writing through OpenImageIO: sample conversion to 8 bit, layouts, 1-bit TIFF.
#include "io/oiio.h"
#include "io/rgba.h"

#include <OpenImageIO/filesystem.h>
#include <OpenImageIO/imageio.h>

#include "core/budget.h"
#include "core/prepare/prepare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <vector>

namespace halftone::io::detail {

namespace {

namespace fs = std::filesystem;

/// OpenImageIO messages may span several lines and repeat the file name; make one clean line
/// of the distinct parts (the first is often only a codec warning, the real error follows).
std::string oneLine(const std::string& raw, const std::string& path) {
    std::vector<std::string> parts;
    size_t start = 0;
    while (start <= raw.size()) {
        size_t end = raw.find_first_of("\r\n", start);
        if (end == std::string::npos) end = raw.size();
        std::string line = raw.substr(start, end - start);
        // A quoted name goes with its quotes (and the space before them), so no "" is left behind.
        for (const std::string& q :
             {"\"" + path + "\": ", "\"" + path + "\" : ", " \"" + path + "\"", "\"" + path + "\"", path + ": ", path,
              std::string(" (\"\")"), std::string(" \"\"")})
            for (size_t p; (p = line.find(q)) != std::string::npos;) line.erase(p, q.size());
        while (!line.empty() && (line.back() == ' ' || line.back() == ':')) line.pop_back();
        while (!line.empty() && line.front() == ' ') line.erase(line.begin());
        if (!line.empty() && std::find(parts.begin(), parts.end(), line) == parts.end()) parts.push_back(line);
        start = end + 1;
    }
    std::string msg;
    for (const std::string& p : parts) msg += (msg.empty() ? "" : "; ") + p;
    if (msg.size() > 300) msg = msg.substr(0, 300) + "...";
    return msg.empty() ? std::string("the image data could not be decoded") : msg;
}

std::string lowerExt(const std::string& path) {
    std::string e = fs::path(path).extension().string();
    std::transform(e.begin(), e.end(), e.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return e;
}

uint8_t fromUint16(uint16_t v) { return uint8_t((uint32_t(v) * 255u + 32767u) / 65535u); }
uint8_t fromFloat(float v) {
    if (!(v > 0.0f)) return 0;  // also NaN
    if (v >= 1.0f) return 255;
    return uint8_t(std::lround(double(v) * 255.0));
}

}  // namespace

namespace {

/// How the channels of an opened file map onto planes, decided by the file's tags.
struct Layout {
    ColorSpace space = ColorSpace::Gray;
    int colorChannels = 0;  ///< channels that become colour planes (after conversion)
    int alphaChannel = -1;
    bool invert = false;           ///< samples are 1 - value (PSD CMYK; one-ink separations)
    bool lumaChroma = false;       ///< EXR Y, RY, BY (OpenEXR's luminance/chroma encoding)
    bool cieLab = false;           ///< TIFF CIELab: L* unsigned, a* and b* signed samples
    int y = -1, ry = -1, by = -1;  ///< channel indices for lumaChroma
    std::vector<int> order;        ///< source channel of each colour plane
};

std::string channelList(const OIIO::ImageSpec& spec) {
    std::string names;
    for (int c = 0; c < spec.nchannels; ++c)
        names += (c ? "," : "") + (c < int(spec.channelnames.size()) ? spec.channelnames[size_t(c)] : std::string("?"));
    return names;
}

/// TIFF photometric interpretations that OpenImageIO converts to RGB itself (through libtiff's RGBA
/// interface) when it is not asked for raw colour: YCbCr, ICCLab, ITULab, LogL, LogLuv. (CIELab is
/// converted here: libtiff's conversion takes a D65 white and turns L* = 100 yellowish.)
bool tiffNeedsConversion(int photometric) {
    return photometric == 6 || photometric == 9 || photometric == 10 || photometric == 32844 || photometric == 32845;
}

/// CIE L*a*b* (D50, as TIFF defines it) to 8-bit sRGB: Lab -> XYZ (D50) -> linear sRGB through the
/// Bradford-adapted matrix (Lindbloom) -> the sRGB transfer curve.
void labToSrgb(double L, double a, double b, uint8_t rgb[3]) {
    const double fy = (L + 16.0) / 116.0, fx = fy + a / 500.0, fz = fy - b / 200.0;
    auto finv = [](double t) {
        return t > 6.0 / 29.0 ? t * t * t : 3.0 * (6.0 / 29.0) * (6.0 / 29.0) * (t - 4.0 / 29.0);
    };
    const double X = 0.9642 * finv(fx), Y = finv(fy), Z = 0.8249 * finv(fz);
    const double lin[3] = {3.1338561 * X - 1.6168667 * Y - 0.4906146 * Z,
                           -0.9787684 * X + 1.9161415 * Y + 0.0334540 * Z,
                           0.0719453 * X - 0.2289914 * Y + 1.4052427 * Z};
    for (int c = 0; c < 3; ++c) {
        const double v = std::clamp(lin[c], 0.0, 1.0);
        const double e = v <= 0.0031308 ? 12.92 * v : 1.055 * std::pow(v, 1.0 / 2.4) - 0.055;
        rgb[c] = uint8_t(std::lround(std::clamp(e, 0.0, 1.0) * 255.0));
    }
}

Status decideLayout(const OIIO::ImageSpec& spec, const std::string& format, const HeaderFacts& facts, Layout& L) {
    const int nch = spec.nchannels;
    auto name = [&](int c) { return c < int(spec.channelnames.size()) ? spec.channelnames[size_t(c)] : std::string(); };
    auto find = [&](const char* n) {
        for (int c = 0; c < nch; ++c)
            if (name(c) == n) return c;
        return -1;
    };
    const bool cmykNames = nch >= 4 && name(0) == "C" && name(1) == "M" && name(2) == "Y" && name(3) == "K";
    auto simple = [&](ColorSpace space, int colors, int alphaCh) {
        L.space = space;
        L.colorChannels = colors;
        L.alphaChannel = alphaCh;
        L.order.clear();
        for (int c = 0; c < colors; ++c) L.order.push_back(c);
        return Status::ok();
    };

    if (format == "tiff") {
        const int photometric = spec.get_int_attribute("tiff:PhotometricInterpretation", -1);
        if (photometric == 5) {
            InkLayout inks;
            if (Status s =
                    separatedInks(spec.nchannels, facts, spec.get_string_attribute("tiff:ColorSpace") == "CMYK", inks);
                !s)
                return s;
            L.space = inks.space;
            L.colorChannels = int(inks.order.size());
            L.order = inks.order;
            L.alphaChannel = inks.alpha;
            L.invert = inks.invert;
            return Status::ok();
        }
        if (photometric == 8) {  // CIELab: L*, a*, b*, then extra samples
            if (nch < 3) return Status::error("CIELab TIFF with " + std::to_string(nch) + " channels");
            if (spec.format != OIIO::TypeDesc::UINT8 && spec.format != OIIO::TypeDesc::UINT16)
                return Status::error("CIELab TIFF with " + std::string(spec.format.c_str()) +
                                     " samples is not supported (8 or 16 bit only)");
            simple(ColorSpace::RGB, 3, nch == 4 && facts.tiffExtraSamples == 1 && facts.tiffFirstExtra != 0 ? 3 : -1);
            if (nch > 3 && L.alphaChannel < 0 && facts.tiffExtraSamples != nch - 3)
                return Status::error("CIELab TIFF with " + std::to_string(nch) + " channels is not supported");
            L.cieLab = true;
            return Status::ok();
        }
        if (photometric == 4) return Status::error("TIFF transparency mask (photometric 4) holds no image");
        if (photometric >= 0 && photometric != 0 && photometric != 1 && photometric != 2 && photometric != 3 &&
            !tiffNeedsConversion(photometric))
            return Status::error("TIFF photometric interpretation " + std::to_string(photometric) +
                                 " is not supported");
        if ((photometric == 0 || photometric == 1) && nch > 2)
            return Status::error("gray TIFF with " + std::to_string(nch) + " channels (" + channelList(spec) +
                                 ") is not supported");
    }
    if (format == "openexr") {
        // OpenEXR names say what channels mean: R,G,B; Y alone; Y,RY,BY (luminance/chroma); A.
        const int r = find("R"), g = find("G"), b = find("B"), y = find("Y"), ry = find("RY"), by = find("BY"),
                  a = find("A");
        const int known = (r >= 0) + (g >= 0) + (b >= 0) + (y >= 0) + (ry >= 0) + (by >= 0) + (a >= 0);
        if (known != nch)
            return Status::error("EXR channels (" + channelList(spec) +
                                 ") are not RGB, luminance or luminance/chroma; select the layer to halftone (e.g. "
                                 "with oiiotool) first");
        L.alphaChannel = a;
        if (r >= 0 && g >= 0 && b >= 0 && y < 0 && ry < 0 && by < 0) {
            L.space = ColorSpace::RGB;
            L.colorChannels = 3;
            L.order = {r, g, b};
            return Status::ok();
        }
        if (y >= 0 && ry >= 0 && by >= 0 && r < 0 && g < 0 && b < 0) {
            L.space = ColorSpace::RGB;
            L.colorChannels = 3;
            L.lumaChroma = true;
            L.y = y, L.ry = ry, L.by = by;
            return Status::ok();
        }
        if (y >= 0 && ry < 0 && by < 0 && r < 0 && g < 0 && b < 0) {
            L.space = ColorSpace::Gray;
            L.colorChannels = 1;
            L.order = {y};
            return Status::ok();
        }
        return Status::error("EXR channels (" + channelList(spec) + ") mix colour encodings");
    }
    if (format == "psd" && cmykNames) {  // Photoshop stores CMYK inverted (0 = full ink)
        if (nch > 5)
            return Status::error("unsupported channel layout: CMYK with " + std::to_string(nch - 4) +
                                 " extra channels");
        simple(ColorSpace::CMYK, 4, nch == 5 ? 4 : -1);
        L.invert = true;
        return Status::ok();
    }
    const std::string colorspace = spec.get_string_attribute("tiff:ColorSpace");
    if (cmykNames || (nch >= 4 && colorspace == "CMYK")) {
        if (nch > 5)
            return Status::error("unsupported channel layout: CMYK with " + std::to_string(nch - 4) +
                                 " extra channels");
        return simple(ColorSpace::CMYK, 4, nch == 5 ? 4 : -1);
    }
    if (nch == 1) return simple(ColorSpace::Gray, 1, -1);
    if (nch == 2) return simple(ColorSpace::Gray, 1, 1);
    if (nch == 3) return simple(ColorSpace::RGB, 3, -1);
    if (nch == 4) return simple(ColorSpace::RGB, 3, 3);
    return Status::error("unsupported channel layout: " + std::to_string(nch) + " channels (" + channelList(spec) +
                         ")");
}

std::string spaceName(ColorSpace s, bool alpha) {
    const char* n = s == ColorSpace::Gray ? "gray" : s == ColorSpace::RGB ? "RGB" : "CMYK";
    return std::string(n) + (alpha ? " + alpha" : "");
}

}  // namespace

namespace {

Status readOiioImpl(const std::string& path, const std::string& format, const HeaderFacts& facts,
                    const unsigned char* memory, size_t memorySize, Image& image, const ReadOptions& options,
                    ReadInfo* info) {
    OIIO::ImageSpec config;
    config.attribute("oiio:UnassociatedAlpha", 1);  // keep alpha as stored, colour not premultiplied
    config.attribute("oiio:RawColor", 1);           // keep CMYK as CMYK
    std::unique_ptr<OIIO::Filesystem::IOMemReader> proxy;
    if (memory) {
        proxy = std::make_unique<OIIO::Filesystem::IOMemReader>(memory, memorySize);
        void* p = proxy.get();
        config.attribute("oiio:ioproxy", OIIO::TypeDesc::PTR, &p);
    }
    // A known format goes straight to its reader: no probing of every other reader on a bad file.
    auto open = [&](std::unique_ptr<OIIO::ImageInput>& in) -> Status {
        in = OIIO::ImageInput::create(format.empty() ? path : format);
        if (!in) return Status::error(oneLine(OIIO::geterror(), path));
        OIIO::ImageSpec newspec;
        if (!in->open(path, newspec, config)) {
            const std::string e = oneLine(in->geterror(), path);
            in.reset();
            return Status::error(e);
        }
        return Status::ok();
    };
    std::unique_ptr<OIIO::ImageInput> in;
    if (Status s = open(in); !s) return s;
    const std::string fmt = in->format_name();
    const int photometric = fmt == "tiff" ? in->spec().get_int_attribute("tiff:PhotometricInterpretation", -1) : -1;
    const bool cooked = fmt == "jpeg" || tiffNeedsConversion(photometric);
    if (cooked) {
        // JPEG: CMYK JPEGs are often stored inverted (Adobe); TIFF YCbCr, CIELab and LogLuv: let
        // OpenImageIO (libtiff) convert them to RGB.
        in.reset();
        config.erase_attribute("oiio:RawColor");
        if (Status s = open(in); !s) return s;
    }
    const OIIO::ImageSpec spec = in->spec();
    if (spec.deep) return Status::error("deep images are not supported");
    if (spec.depth > 1)
        return Status::error("volume images (depth " + std::to_string(spec.depth) + ") are not supported");
    if (Status s = checkImageSize(spec.width, spec.height, spec.nchannels, options.maxPixels); !s) return s;

    Layout layout;
    if (Status s = decideLayout(spec, fmt, facts, layout); !s) return s;
    const int nch = spec.nchannels;
    const int colorChannels = layout.colorChannels, alphaChannel = layout.alphaChannel;

    const OIIO::TypeDesc src = spec.format;
    const OIIO::TypeDesc readType = layout.lumaChroma               ? OIIO::TypeDesc::FLOAT
                                    : src == OIIO::TypeDesc::UINT8  ? OIIO::TypeDesc::UINT8
                                    : src == OIIO::TypeDesc::UINT16 ? OIIO::TypeDesc::UINT16
                                                                    : OIIO::TypeDesc::FLOAT;
    const size_t sampleBytes = readType.size();
    const int w = spec.width, h = spec.height;
    const uint64_t rowBytes = mulBytes(mulBytes(uint64_t(w), uint64_t(nch)), sampleBytes);
    // Strips of scanlines, or rows of tiles, keep the conversion buffer small.
    // Strips of scanlines, or one tile at a time, keep the conversion buffer small.
    const bool tiled = spec.tile_width > 0;
    const int tw = tiled ? spec.tile_width : w, th = tiled ? std::max(1, spec.tile_height) : 1;
    const int band =
        tiled ? th : int(std::clamp<uint64_t>((uint64_t(16) << 20) / std::max<uint64_t>(rowBytes, 1), 1, uint64_t(h)));
    const uint64_t bandBytes = tiled ? mulBytes(mulBytes(uint64_t(tw) * uint64_t(th), uint64_t(nch)), sampleBytes)
                                     : mulBytes(rowBytes, std::min<uint64_t>(uint64_t(band), uint64_t(h)));
    const uint64_t bandWidth = uint64_t(tw);

    // The budget, before anything is allocated: planes, our band, the decoder's own buffers.
    const uint64_t pixels = uint64_t(w) * uint64_t(h);
    const uint64_t planes = mulBytes(pixels, uint64_t(colorChannels + (alphaChannel >= 0 ? 1 : 0)));
    uint64_t decoder = facts.decoderBytes;
    const uint64_t nativeSample = std::max<uint64_t>(src.size(), 1);
    if (fmt == "tiff") {
        // libtiff decodes one strip (or tile) at a time into a buffer of its size; the RGBA
        // conversion path works on 4 bytes a pixel for the whole image.
        const uint64_t rowsPerStrip = uint64_t(std::clamp(spec.get_int_attribute("tiff:RowsPerStrip", h), 1, h));
        decoder = addBytes(
            decoder, tiled ? mulBytes(mulBytes(uint64_t(spec.tile_width) * uint64_t(std::max(1, spec.tile_height)),
                                               uint64_t(nch)),
                                      nativeSample)
                           : mulBytes(mulBytes(uint64_t(w) * rowsPerStrip, uint64_t(nch)), nativeSample));
        if (cooked) decoder = addBytes(decoder, mulBytes(pixels, 4));
    }
    if (fmt == "openexr" && tiled)  // one tile in the file's own sample size
        decoder = addBytes(decoder, mulBytes(mulBytes(bandWidth * uint64_t(th), uint64_t(nch)), nativeSample));
    const int orientation = spec.get_int_attribute("Orientation", 1);
    const uint64_t turned = orientation >= 2 && orientation <= 8 ? planes : 0;  // the upright copy
    const uint64_t total = addBytes(addBytes(addBytes(planes, bandBytes), decoder), turned);
    if (Status s = checkMemory(total, options.maxMemory,
                               "reading this " + std::to_string(w) + " x " + std::to_string(h) + " " +
                                   spaceName(layout.space, alphaChannel >= 0) + " image");
        !s)
        return s;

    Image out;
    out.space = layout.space;
    std::vector<unsigned char> buf(static_cast<size_t>(bandBytes));
    const size_t bufRowBytes = size_t(bandWidth) * size_t(nch) * sampleBytes;
    // One row segment of n pixels starting at column x0 (src points at its first pixel) into the planes.
    auto convert = [&](const unsigned char* r, int y, int x0, int n) {
        if (layout.lumaChroma) {
            // OpenEXR's luminance/chroma to RGB (OpenEXR's RgbaYca, Rec. 709 primaries): R = (RY + 1) Y,
            // B = (BY + 1) Y, G = (Y - 0.2126 R - 0.0722 B) / 0.7152.
            const float* s = reinterpret_cast<const float*>(r);
            uint8_t* dr = out.channels[0].row(y) + x0;
            uint8_t* dg = out.channels[1].row(y) + x0;
            uint8_t* db = out.channels[2].row(y) + x0;
            for (int x = 0; x < n; ++x) {
                const float* p = s + size_t(x) * size_t(nch);
                const float Y = p[layout.y], R = (p[layout.ry] + 1.0f) * Y, B = (p[layout.by] + 1.0f) * Y;
                const float G = (Y - R * 0.2126f - B * 0.0722f) / 0.7152f;
                dr[x] = fromFloat(R), dg[x] = fromFloat(G), db[x] = fromFloat(B);
            }
            if (alphaChannel >= 0) {
                uint8_t* d = out.alpha.row(y) + x0;
                for (int x = 0; x < n; ++x) d[x] = fromFloat(s[size_t(x) * size_t(nch) + size_t(alphaChannel)]);
            }
            return;
        }
        if (layout.cieLab) {  // 8 bit: L* 0..255 = 0..100, a*, b* signed bytes; 16 bit: 0..65535, signed /256
            uint8_t* d[3] = {out.channels[0].row(y) + x0, out.channels[1].row(y) + x0, out.channels[2].row(y) + x0};
            for (int x = 0; x < n; ++x) {
                double L, A, B;
                if (readType == OIIO::TypeDesc::UINT8) {
                    const unsigned char* p = r + size_t(x) * size_t(nch);
                    L = p[0] * 100.0 / 255.0, A = int8_t(p[1]), B = int8_t(p[2]);
                } else {
                    const uint16_t* p = reinterpret_cast<const uint16_t*>(r) + size_t(x) * size_t(nch);
                    L = p[0] * 100.0 / 65535.0, A = int16_t(p[1]) / 256.0, B = int16_t(p[2]) / 256.0;
                }
                uint8_t rgb[3];
                labToSrgb(L, A, B, rgb);
                d[0][x] = rgb[0], d[1][x] = rgb[1], d[2][x] = rgb[2];
            }
            if (alphaChannel < 0) return;
        }
        for (int k = layout.cieLab ? colorChannels : 0; k < colorChannels + (alphaChannel >= 0 ? 1 : 0); ++k) {
            const bool isAlpha = k == colorChannels;
            const int c = isAlpha ? alphaChannel : layout.order[size_t(k)];
            uint8_t* d = (isAlpha ? out.alpha.row(y) : out.channels[size_t(k)].row(y)) + x0;
            if (c < 0) continue;  // an ink the file does not have: the plane stays 0 (no ink)
            if (readType == OIIO::TypeDesc::UINT8) {
                for (int x = 0; x < n; ++x) d[x] = r[size_t(x) * nch + c];
            } else if (readType == OIIO::TypeDesc::UINT16) {
                const uint16_t* s = reinterpret_cast<const uint16_t*>(r);
                for (int x = 0; x < n; ++x) d[x] = fromUint16(s[size_t(x) * nch + c]);
            } else {
                const float* s = reinterpret_cast<const float*>(r);
                for (int x = 0; x < n; ++x) d[x] = fromFloat(s[size_t(x) * nch + c]);
            }
            if (layout.invert && !isAlpha)
                for (int x = 0; x < n; ++x) d[x] = uint8_t(255 - d[x]);
        }
    };
    auto allocate = [&] {  // once the first pixels decode: a file with no pixel data costs no planes
        if (!out.channels.empty()) return;
        out.channels.assign(size_t(colorChannels), Plane8());  // then each plane allocated in place, not copied
        for (Plane8& plane : out.channels) plane = Plane8(w, h);
        if (alphaChannel >= 0) {
            out.hasAlpha = true;
            out.alpha = Plane8(w, h);
        }
    };
    for (int y0 = 0; y0 < h; y0 += band) {
        const int y1 = std::min(h, y0 + band);
        if (tiled) {
            for (int x0 = 0; x0 < w; x0 += tw) {
                if (options.stop.stopRequested()) return Status::cancelled();
                // Some codecs report the error but still return true.
                if (!in->read_tile(spec.x + x0, spec.y + y0, spec.z, readType, buf.data()) || in->has_error())
                    return Status::error(oneLine(in->geterror(), path));
                allocate();
                const int n = std::min(tw, w - x0);
                for (int y = y0; y < y1; ++y) convert(buf.data() + size_t(y - y0) * bufRowBytes, y, x0, n);
            }
            continue;
        }
        if (options.stop.stopRequested()) return Status::cancelled();
        // Some codecs (libtiff on a short strip) report the error but still return true.
        if (!in->read_scanlines(0, 0, spec.y + y0, spec.y + y1, spec.z, 0, nch, readType, buf.data()) ||
            in->has_error())
            return Status::error(oneLine(in->geterror(), path));
        allocate();
        for (int y = y0; y < y1; ++y) convert(buf.data() + size_t(y - y0) * bufRowBytes, y, 0, w);
    }
    if (options.stop.stopRequested()) return Status::cancelled();
    std::string notes;
    // Asked after reading: some readers (WebP) lose their place when asked to seek and come back.
    if (in->seek_subimage(1, 0)) notes = "multi-image file: only the first image was read";
    in->geterror();  // clear the "no such subimage" of the probe
    if (orientation >= 2 && orientation <= 8) out = applyOrientation(out, orientation);
    if (info) {
        info->format = fmt;
        info->sourceChannels = nch;
        info->sourceType = src.c_str();
        const int bits = spec.get_int_attribute("oiio:BitsPerSample", 0);
        if (bits > 0 && bits < 8) info->sourceType = std::to_string(bits) + "-bit";
        info->notes = notes;
        const float res = spec.get_float_attribute("XResolution", 0.0f);
        const std::string unit = spec.get_string_attribute("ResolutionUnit");
        if (res > 0 && std::isfinite(res) && (unit == "in" || unit == "inch" || unit == "cm"))
            info->dpi = unit == "cm" ? double(res) * 2.54 : double(res);
    }
    image = std::move(out);
    return Status::ok();
}

}  // namespace

Status readOiio(const std::string& path, Image& image, const ReadOptions& options, ReadInfo* info) {
    // The reader by extension, with the facts of the header check (TIFF ink names, decoder buffers).
    HeaderFacts facts;
    unsigned char head[64] = {};
    size_t n = 0;
    if (std::FILE* f = std::fopen(path.c_str(), "rb")) {
        n = std::fread(head, 1, sizeof head, f);
        std::fclose(f);
    }
    if (Status s = checkHeader(path, sniffFormat(head, n), options, facts); !s) return s;
    return readOiioImpl(path, std::string(), facts, nullptr, 0, image, options, info);
}

Status readOiioAs(const std::string& path, const std::string& format, const HeaderFacts& facts, Image& image,
                  const ReadOptions& options, ReadInfo* info) {
    return readOiioImpl(path, format, facts, nullptr, 0, image, options, info);
}

Status readOiioMemory(const std::string& format, const unsigned char* data, size_t size, Image& image,
                      const ReadOptions& options, ReadInfo* info) {
    return readOiioImpl("memory." + format, format, HeaderFacts{}, data, size, image, options, info);
}

bool oiioCanWrite(const std::string& path, std::string& why) {
    auto out = OIIO::ImageOutput::create(path);
    if (!out) {
        OIIO::geterror();  // clear
        why = "no image format is known for the extension '" + fs::path(path).extension().string() +
              "'; use .png, .tif, .pgm, .ppm or .pbm";
        return false;
    }
    return true;
}

Status writeOiio(const std::string& finalPath, const std::string& tmpPath, const Image& image,
                 const WriteOptions& options) {
    auto out = OIIO::ImageOutput::create(finalPath);
    if (!out) return Status::error(oneLine(OIIO::geterror(), finalPath));
    const int w = image.width(), h = image.height();
    const int colorChannels = image.channelCount();
    if (image.space == ColorSpace::CMYK)
        return Status::error("only TIFF output holds CMYK; write .tif, or halftone in gray or RGB");
    const bool alpha = image.hasAlpha && out->supports("alpha");
    const int nch = colorChannels + (alpha ? 1 : 0);

    OIIO::ImageSpec spec(w, h, nch, OIIO::TypeDesc::UINT8);
    spec.channelnames.clear();
    if (image.space == ColorSpace::Gray)
        spec.channelnames = {"Y"};
    else if (image.space == ColorSpace::RGB)
        spec.channelnames = {"R", "G", "B"};
    else
        spec.channelnames = {"C", "M", "Y", "K"};
    if (alpha) {
        spec.channelnames.push_back("A");
        spec.alpha_channel = colorChannels;
        spec.attribute("oiio:UnassociatedAlpha", 1);
    } else {
        spec.alpha_channel = -1;
    }
    if (options.dpi > 0) {  // where the format keeps a resolution
        spec.attribute("XResolution", float(options.dpi));
        spec.attribute("YResolution", float(options.dpi));
        spec.attribute("ResolutionUnit", "inch");
    }
    if (!out->open(tmpPath, spec)) return Status::error(oneLine(out->geterror(), tmpPath));

    std::vector<unsigned char> row(size_t(w) * size_t(nch));
    for (int y = 0; y < h; ++y) {
        for (int c = 0; c < nch; ++c) {
            const uint8_t* s = c < colorChannels ? image.channels[size_t(c)].row(y) : image.alpha.row(y);
            for (int x = 0; x < w; ++x) row[size_t(x) * nch + c] = s[x];
        }
        if (!out->write_scanline(y, 0, OIIO::TypeDesc::UINT8, row.data())) {
            const std::string e = oneLine(out->geterror(), tmpPath);
            out->close();
            return Status::error(e);
        }
    }
    if (!out->close()) return Status::error(oneLine(out->geterror(), tmpPath));
    return Status::ok();
}

Status verifyWrittenOiio(const std::string& finalPath, const std::string& writtenPath, const Image& image, bool exact) {
    const Status incomplete =
        Status::error("write failed: the file written does not read back complete (is the disk full?)");
    // The reader is chosen by the final name's extension (the written file's name may have none);
    // create() takes a bare extension as a format name and opens nothing.
    const std::string ext = lowerExt(finalPath);
    auto in = OIIO::ImageInput::create(ext.empty() ? ext : ext.substr(1));
    if (!in) {
        OIIO::geterror();
        return incomplete;
    }
    OIIO::ImageSpec spec, config;
    config.attribute("oiio:UnassociatedAlpha", 1);  // alpha as stored
    config.attribute("oiio:RawColor", 1);           // CMYK as CMYK
    if (!in->open(writtenPath, spec, config)) {
        in->geterror();
        return incomplete;
    }
    const int w = image.width(), h = image.height(), n = image.channelCount();
    if (spec.width != w || spec.height != h || spec.nchannels < 1) return incomplete;
    const int nch = spec.nchannels;
    // Which source plane each channel read back must equal: the colour planes (gray may be stored as
    // RGB), then alpha when the format kept it.
    std::vector<const Plane8*> source;
    if (nch == n || nch == n + 1) {
        for (int c = 0; c < n; ++c) source.push_back(&image.channels[size_t(c)]);
    } else if (n == 1 && (nch == 3 || nch == 4)) {
        source.assign(3, &image.channels[0]);
    } else if (exact) {
        return Status::error("the file holds " + std::to_string(nch) + " channels, not " + std::to_string(n));
    }
    if (int(source.size()) < nch && image.hasAlpha) source.push_back(&image.alpha);
    const int compared = int(source.size());
    const size_t rowBytes = size_t(w) * size_t(nch);
    const bool tiled = spec.tile_width > 0;
    const int chunk =
        tiled ? h : int(std::clamp<size_t>((size_t(16) << 20) / std::max<size_t>(rowBytes, 1), 1, size_t(h)));
    std::vector<unsigned char> buf(rowBytes * size_t(chunk));
    bool same = true;
    for (int y0 = 0; y0 < h; y0 += chunk) {
        const int y1 = std::min(h, y0 + chunk);
        const bool ok = tiled ? in->read_image(0, 0, 0, nch, OIIO::TypeDesc::UINT8, buf.data())
                              : in->read_scanlines(0, 0, spec.y + y0, spec.y + y1, spec.z, 0, nch,
                                                   OIIO::TypeDesc::UINT8, buf.data());
        if (!ok || in->has_error()) {
            in->geterror();
            return incomplete;
        }
        for (int y = y0; y < y1 && exact && same; ++y) {
            const unsigned char* r = buf.data() + size_t(y - y0) * rowBytes;
            for (int c = 0; c < compared && same; ++c) {
                const uint8_t* src = source[size_t(c)]->row(y);
                for (int x = 0; x < w; ++x)
                    if (r[size_t(x) * nch + c] != src[x]) {
                        same = false;
                        break;
                    }
            }
        }
    }
    if (!same)
        return Status::error("the format changed pixel values: the file would not hold the halftone's dots exactly");
    return Status::ok();
}

}  // namespace halftone::io::detail
