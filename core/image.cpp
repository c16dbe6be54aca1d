#include "core/image.h"

#include "core/job/names.h"
#include "core/threads.h"
#include "core/workerpool.h"

#include <algorithm>
#include <limits>
#include <sstream>

namespace halftone {

Status checkImageSize(int64_t width, int64_t height, int64_t channels, uint64_t maxPixels) {
    if (width <= 0 || height <= 0) {
        std::ostringstream s;
        s << "image has zero size (" << width << " x " << height << ")";
        return Status::error(s.str());
    }
    if (channels <= 0 || channels > 64)
        return Status::error("image has an unsupported channel count " + std::to_string(channels));
    const uint64_t w = uint64_t(width), h = uint64_t(height);
    if (w > uint64_t(std::numeric_limits<int32_t>::max()) || h > uint64_t(std::numeric_limits<int32_t>::max()))
        return Status::error("image dimensions " + std::to_string(width) + " x " + std::to_string(height) +
                             " are too large");
    const uint64_t pixels = w * h;  // < 2^62, no overflow
    if (pixels > maxPixels) {
        std::ostringstream s;
        s << "image is " << width << " x " << height << " = " << double(pixels) / 1e6 << " Mpixel, over the limit of "
          << double(maxPixels) / 1e6 << " Mpixel; raise it with --max-pixels";
        return Status::error(s.str());
    }
    if (pixels > std::numeric_limits<uint64_t>::max() / uint64_t(channels))
        return Status::error("image size overflows");
    return Status::ok();
}

namespace {
constexpr EnumName<ColorMode> kColorModes[] = {
    {ColorMode::Gray, "gray"}, {ColorMode::RGB, "rgb"}, {ColorMode::CMYK, "cmyk"}, {ColorMode::Gray, "grey"}};
}  // namespace

const char* toString(ColorMode m) { return enumName(kColorModes, m); }

bool parseColorMode(const std::string& text, ColorMode& out) { return parseEnumName(kColorModes, nameKey(text), out); }

namespace {

Image toRgb(const Image& in) {
    Image out;
    out.space = ColorSpace::RGB;
    out.hasAlpha = in.hasAlpha;
    out.alpha = in.alpha;
    const int w = in.width(), h = in.height();
    if (in.space == ColorSpace::RGB) {
        out.channels = in.channels;
    } else if (in.space == ColorSpace::Gray) {
        out.channels.assign(3, in.channels[0]);
    } else {  // CMYK; each plane allocated in place (assign from one prototype would copy it)
        out.channels.assign(3, Plane8());
        for (Plane8& plane : out.channels) plane = Plane8(w, h);
        for (size_t i = 0; i < in.channels[0].size(); ++i) {
            const int k = in.channels[3].data[i];
            for (int c = 0; c < 3; ++c)
                out.channels[c].data[i] = uint8_t(255 - std::min(255, in.channels[c].data[i] + k));
        }
    }
    return out;
}

}  // namespace

bool isColorIdentity(const Image& in, ColorMode mode, const SeparationParams& separation) {
    switch (mode) {
        case ColorMode::Gray:
            return in.space == ColorSpace::Gray;
        case ColorMode::RGB:
            return in.space == ColorSpace::RGB;
        default:
            return in.space == ColorSpace::CMYK && inkCap(separation.inkLimit) >= 4 * 255;
    }
}

Image convertColor(const Image& in, ColorMode mode) { return convertColor(in, mode, SeparationParams{}); }

Image convertColor(const Image& in, ColorMode mode, const SeparationParams& separation) {
    const int w = in.width(), h = in.height();
    if (mode == ColorMode::RGB) return toRgb(in);
    if (mode == ColorMode::Gray) {
        if (in.space == ColorSpace::Gray) return in;
        const Image converted = in.space == ColorSpace::RGB ? Image() : toRgb(in);  // RGB is read in place
        const Image& rgb = in.space == ColorSpace::RGB ? in : converted;
        Image out;
        out.space = ColorSpace::Gray;
        out.hasAlpha = in.hasAlpha;
        out.alpha = in.alpha;
        Plane8 g(w, h);
        const uint8_t *r = rgb.channels[0].data.data(), *gr = rgb.channels[1].data.data(),
                      *b = rgb.channels[2].data.data();
        uint8_t* y = g.data.data();
        const int64_t n = int64_t(g.size());
        parallelChunks(n, int64_t(1) << 20, threadsOrAll(0), RunControl{}, {}, [&](int64_t i0, int64_t i1, int) {
            for (int64_t i = i0; i < i1; ++i) y[i] = uint8_t((77 * r[i] + 150 * gr[i] + 29 * b[i] + 128) >> 8);
        });
        out.channels.push_back(std::move(g));
        return out;
    }
    // CMYK
    if (in.space == ColorSpace::CMYK) {
        if (inkCap(separation.inkLimit) >= 4 * 255) return in;
        Image out = in;
        for (size_t i = 0; i < out.channels[0].size(); ++i) {
            std::array<uint8_t, 4> v;
            for (size_t c = 0; c < 4; ++c) v[c] = out.channels[c].data[i];
            limitInk(v, separation.inkLimit);
            for (size_t c = 0; c < 4; ++c) out.channels[c].data[i] = v[c];
        }
        return out;
    }
    Image rgb = toRgb(in);
    Image out;
    out.space = ColorSpace::CMYK;
    out.hasAlpha = in.hasAlpha;
    out.alpha = in.alpha;
    out.channels.assign(4, Plane8());  // then each plane allocated in place, not copied
    for (Plane8& plane : out.channels) plane = Plane8(w, h);
    if (!separation.separator) {
        for (size_t i = 0; i < rgb.channels[0].size(); ++i) {
            const std::array<uint8_t, 4> v =
                separatePixel(rgb.channels[0].data[i], rgb.channels[1].data[i], rgb.channels[2].data[i], separation);
            for (size_t c = 0; c < 4; ++c) out.channels[c].data[i] = v[c];
        }
        return out;
    }
    // Through the separator in runs of pixels interleaved as it takes them, then the ink limit on each pixel.
    constexpr size_t kRun = 4096;
    std::vector<uint8_t> in3(kRun * 3), out4(kRun * 4);
    const size_t total = rgb.channels[0].size();
    for (size_t start = 0; start < total; start += kRun) {
        const size_t n = std::min(kRun, total - start);
        for (size_t i = 0; i < n; ++i)
            for (size_t c = 0; c < 3; ++c) in3[i * 3 + c] = rgb.channels[c].data[start + i];
        separation.separator->separate(in3.data(), out4.data(), n);
        for (size_t i = 0; i < n; ++i) {
            std::array<uint8_t, 4> v = {out4[i * 4], out4[i * 4 + 1], out4[i * 4 + 2], out4[i * 4 + 3]};
            limitInk(v, separation.inkLimit);
            for (size_t c = 0; c < 4; ++c) out.channels[c].data[start + i] = v[c];
        }
    }
    return out;
}

Plane8 noisyGradient(const Plane8& noise) {
    const int w = noise.width, h = noise.height;
    Plane8 p(w, h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            p.at(y, x) = uint8_t(
                (((x * 255) / std::max(1, w - 1)) * 3 + (y * 255) / std::max(1, h - 1) + noise.at(y, x) % 64) / 4);
    return p;
}

}  // namespace halftone
