// Reading and writing through OpenImageIO: sample conversion to 8 bit, layouts, 1-bit TIFF.
#include "io/oiio.h"
#include "io/png1bit.h"

#include <OpenImageIO/imageio.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
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
        for (const std::string& q : {"\"" + path + "\": ", "\"" + path + "\" : ", path + ": ", path, std::string(" (\"\")")})
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

Status readOiio(const std::string& path, Image& image, const ReadOptions& options, ReadInfo* info) {
    OIIO::ImageSpec config;
    config.attribute("oiio:UnassociatedAlpha", 1);  // keep alpha as stored, colour not premultiplied
    config.attribute("oiio:RawColor", 1);           // keep CMYK as CMYK
    auto in = OIIO::ImageInput::open(path, &config);
    if (!in) return Status::error(oneLine(OIIO::geterror(), path));
    if (std::string(in->format_name()) == "jpeg") {
        // CMYK JPEGs are often stored inverted (Adobe); let OpenImageIO convert them to RGB.
        in.reset();
        config.erase_attribute("oiio:RawColor");
        in = OIIO::ImageInput::open(path, &config);
        if (!in) return Status::error(oneLine(OIIO::geterror(), path));
    }
    const OIIO::ImageSpec spec = in->spec();
    if (spec.deep) return Status::error("deep images are not supported");
    if (spec.depth > 1) return Status::error("volume images (depth " + std::to_string(spec.depth) + ") are not supported");
    if (Status s = checkImageSize(spec.width, spec.height, spec.nchannels, options.maxPixels); !s) return s;

    const int nch = spec.nchannels;
    auto name = [&](int c) { return c < int(spec.channelnames.size()) ? spec.channelnames[size_t(c)] : std::string(); };
    const std::string colorspace = spec.get_string_attribute("tiff:ColorSpace");
    const bool separated = spec.get_int_attribute("tiff:PhotometricInterpretation", -1) == 5;  // TIFF CMYK (inks)
    const bool cmyk = nch >= 4 && (colorspace == "CMYK" || separated || (name(0) == "C" && name(1) == "M" && name(2) == "Y" && name(3) == "K"));
    int colorChannels = 0, alphaChannel = -1;
    ColorSpace space = ColorSpace::Gray;
    if (cmyk) {
        if (nch > 5) return Status::error("unsupported channel layout: CMYK with " + std::to_string(nch - 4) + " extra channels");
        space = ColorSpace::CMYK;
        colorChannels = 4;
        alphaChannel = nch == 5 ? 4 : -1;
    } else if (nch == 1 || nch == 2) {
        colorChannels = 1;
        alphaChannel = nch == 2 ? 1 : -1;
    } else if (nch == 3 || nch == 4) {
        space = ColorSpace::RGB;
        colorChannels = 3;
        alphaChannel = nch == 4 ? 3 : -1;
    } else {
        std::string names;
        for (int c = 0; c < nch; ++c) names += (c ? "," : "") + name(c);
        return Status::error("unsupported channel layout: " + std::to_string(nch) + " channels (" + names + ")");
    }

    std::string notes;
    if (in->seek_subimage(1, 0)) notes = "multi-image file: only the first image was read";
    if (!in->seek_subimage(0, 0)) return Status::error(oneLine(in->geterror(), path));
    in->geterror();  // clear the "no such subimage" of the probe above

    const OIIO::TypeDesc src = spec.format;
    const OIIO::TypeDesc readType = src == OIIO::TypeDesc::UINT8    ? OIIO::TypeDesc::UINT8
                                    : src == OIIO::TypeDesc::UINT16 ? OIIO::TypeDesc::UINT16
                                                                    : OIIO::TypeDesc::FLOAT;
    const size_t sampleBytes = readType.size();
    const int w = spec.width, h = spec.height;

    Image out;
    out.space = space;
    out.channels.assign(size_t(colorChannels), Plane8(w, h));
    if (alphaChannel >= 0) {
        out.hasAlpha = true;
        out.alpha = Plane8(w, h);
    }
    const size_t rowBytes = size_t(w) * size_t(nch) * sampleBytes;
    // Strips of scanlines keep memory small; tiled files are read whole (OpenImageIO 2.4 crashes in
    // read_scanlines on tiled TIFF).
    const bool tiled = spec.tile_width > 0;
    const int chunk = tiled ? h : int(std::clamp<size_t>((size_t(16) << 20) / std::max<size_t>(rowBytes, 1), 1, size_t(h)));
    std::vector<unsigned char> buf(rowBytes * size_t(chunk));
    for (int y0 = 0; y0 < h; y0 += chunk) {
        const int y1 = std::min(h, y0 + chunk);
        // Some codecs (libtiff on a short strip) report the error but still return true.
        const bool ok = tiled ? in->read_image(0, 0, 0, nch, readType, buf.data())
                              : in->read_scanlines(0, 0, spec.y + y0, spec.y + y1, spec.z, 0, nch, readType, buf.data());
        if (!ok || in->has_error())
            return Status::error(oneLine(in->geterror(), path));
        for (int y = y0; y < y1; ++y) {
            const unsigned char* r = buf.data() + size_t(y - y0) * rowBytes;
            for (int c = 0; c < nch; ++c) {
                uint8_t* d = c == alphaChannel ? out.alpha.row(y)
                             : c < colorChannels ? out.channels[size_t(c)].row(y)
                                                 : nullptr;
                if (!d) continue;
                if (readType == OIIO::TypeDesc::UINT8) {
                    for (int x = 0; x < w; ++x) d[x] = r[size_t(x) * nch + c];
                } else if (readType == OIIO::TypeDesc::UINT16) {
                    const uint16_t* s = reinterpret_cast<const uint16_t*>(r);
                    for (int x = 0; x < w; ++x) d[x] = fromUint16(s[size_t(x) * nch + c]);
                } else {
                    const float* s = reinterpret_cast<const float*>(r);
                    for (int x = 0; x < w; ++x) d[x] = fromFloat(s[size_t(x) * nch + c]);
                }
            }
        }
    }
    const int orientation = spec.get_int_attribute("Orientation", 1);
    if (orientation >= 2 && orientation <= 8) out = applyExifOrientation(out, orientation);
    if (info) {
        info->format = in->format_name();
        info->sourceChannels = nch;
        info->sourceType = src.c_str();
        const int bits = spec.get_int_attribute("oiio:BitsPerSample", 0);
        if (bits > 0 && bits < 8) info->sourceType = std::to_string(bits) + "-bit";
        info->notes = notes;
    }
    image = std::move(out);
    return Status::ok();
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

Status writeOiio(const std::string& finalPath, const std::string& tmpPath, const Image& image, const WriteOptions& options) {
    auto out = OIIO::ImageOutput::create(finalPath);
    if (!out) return Status::error(oneLine(OIIO::geterror(), finalPath));
    const std::string ext = lowerExt(finalPath);
    const bool tiff = ext == ".tif" || ext == ".tiff";
    const int w = image.width(), h = image.height();
    const int colorChannels = image.channelCount();
    const bool png = ext == ".png";
    if (image.space == ColorSpace::CMYK && !tiff)
        return Status::error("only TIFF output holds CMYK; write .tif, or halftone in gray or RGB");
    const bool alpha = image.hasAlpha && out->supports("alpha");
    const int nch = colorChannels + (alpha ? 1 : 0);

    OIIO::ImageSpec spec(w, h, nch, OIIO::TypeDesc::UINT8);
    spec.channelnames.clear();
    if (image.space == ColorSpace::Gray) spec.channelnames = {"Y"};
    else if (image.space == ColorSpace::RGB) spec.channelnames = {"R", "G", "B"};
    else spec.channelnames = {"C", "M", "Y", "K"};
    if (alpha) {
        spec.channelnames.push_back("A");
        spec.alpha_channel = colorChannels;
        spec.attribute("oiio:UnassociatedAlpha", 1);
    } else {
        spec.alpha_channel = -1;
    }
    if (image.space == ColorSpace::CMYK) spec.attribute("tiff:ColorSpace", "CMYK");
    if (tiff) spec.attribute("compression", "zip");
    bool bilevel = false;
    if ((tiff || png) && options.levels == 2 && image.space == ColorSpace::Gray && !alpha) {
        bilevel = std::all_of(image.channels[0].data.begin(), image.channels[0].data.end(),
                              [](uint8_t v) { return v == 0 || v == 255; });
        if (bilevel) spec.attribute("oiio:BitsPerSample", 1);
    }
    // Resolution: a printer needs it to size a 1-bit halftone (300 dpi when the source did not say).
    const double dpi = options.dpi > 0 ? options.dpi : (tiff && bilevel ? 300.0 : 0.0);
    if (dpi > 0 && (tiff || png)) {
        spec.attribute("XResolution", float(dpi));
        spec.attribute("YResolution", float(dpi));
        spec.attribute("ResolutionUnit", "inch");
    }
    if (png && bilevel) return writePng1Bit(tmpPath, image.channels[0], dpi);
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

Status checkJpegComplete(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::vector<unsigned char> d((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    const size_t n = d.size();
    if (n < 4 || d[0] != 0xFF || d[1] != 0xD8) return Status::error("not a JPEG file (bad signature)");
    size_t i = 2;
    while (i + 1 < n) {
        if (d[i] != 0xFF) return Status::error("corrupt JPEG: bad marker at byte " + std::to_string(i));
        unsigned char m = d[i + 1];
        if (m == 0xFF) { ++i; continue; }  // fill byte
        i += 2;
        if (m == 0xD9) return Status::ok();                        // end of image
        if (m == 0x01 || (m >= 0xD0 && m <= 0xD7)) continue;       // no length
        if (i + 1 >= n) break;
        const size_t len = (size_t(d[i]) << 8) | d[i + 1];
        if (len < 2) return Status::error("corrupt JPEG: bad segment length at byte " + std::to_string(i));
        i += len;
        if (m == 0xDA) {  // start of scan: entropy-coded data up to the next marker other than RST/stuffing
            while (i + 1 < n && !(d[i] == 0xFF && d[i + 1] != 0x00 && !(d[i + 1] >= 0xD0 && d[i + 1] <= 0xD7))) ++i;
        }
    }
    return Status::error("truncated or corrupt JPEG: no end-of-image marker where the file's structure says it ends");
}

}  // namespace halftone::io::detail
