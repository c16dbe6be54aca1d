#include "core/prepare/prepare.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <numbers>
#include <vector>

#include "core/job/names.h"
#include "core/number.h"
#include "core/ed/quantizer.h"
#include "core/threads.h"
#include "core/workerpool.h"

namespace halftone {

namespace {
constexpr EnumName<ResizeFilter> kResizeFilters[] = {
    {ResizeFilter::Lanczos3, "lanczos"}, {ResizeFilter::Bicubic, "bicubic"},   {ResizeFilter::Box, "box"},
    {ResizeFilter::Nearest, "nearest"},  {ResizeFilter::Lanczos3, "lanczos3"}, {ResizeFilter::Bicubic, "catmull-rom"},
    {ResizeFilter::Box, "area"}};
}  // namespace

const char* toString(ResizeFilter f) { return enumName(kResizeFilters, f); }

bool parseResizeFilter(const std::string& s, ResizeFilter& out) { return parseEnumName(kResizeFilters, s, out); }

namespace {
constexpr EnumName<ResizeFit> kResizeFits[] = {{ResizeFit::Inside, "inside"}, {ResizeFit::Stretch, "stretch"},
                                               {ResizeFit::Cover, "cover"},   {ResizeFit::Contain, "contain"},
                                               {ResizeFit::Cover, "fill"},    {ResizeFit::Contain, "letterbox"},
                                               {ResizeFit::Inside, "fit"}};
constexpr EnumName<Gravity> kGravities[] = {{Gravity::Center, "center"},       {Gravity::North, "north"},
                                            {Gravity::South, "south"},         {Gravity::East, "east"},
                                            {Gravity::West, "west"},           {Gravity::NorthEast, "northeast"},
                                            {Gravity::NorthWest, "northwest"}, {Gravity::SouthEast, "southeast"},
                                            {Gravity::SouthWest, "southwest"}, {Gravity::Center, "centre"},
                                            {Gravity::North, "top"},           {Gravity::South, "bottom"},
                                            {Gravity::East, "right"},          {Gravity::West, "left"}};
}  // namespace

const char* toString(ResizeFit f) { return enumName(kResizeFits, f); }

bool parseResizeFit(const std::string& s, ResizeFit& out) { return parseEnumName(kResizeFits, s, out); }

const char* toString(Gravity g) { return enumName(kGravities, g); }

bool parseGravity(const std::string& s, Gravity& out) { return parseEnumName(kGravities, s, out); }

bool PrepareSettings::changesTone() const {
    return blackPoint != 0 || whitePoint != 255 || brightness != 0 || contrast != 0 || gamma != 1.0 ||
           saturation != 100 || sharpenAmount != 0;
}

bool PrepareSettings::isIdentity() const {
    return width == 0 && height == 0 && scale == 0 && pixelSize == 1 && rotate == 0 && !background && !changesTone();
}

namespace {

/// The setting's rule (core/number.h), its name as people read it in front of the message.
Status range(const char* name, const char* key, double v) {
    if (Status s = checkNumber(*jobNumberRule(key), {v, {}}); !s)
        return Status::error(std::string(name) + " " + s.message());
    return Status::ok();
}

}  // namespace

Status PrepareSettings::validate() const {
    struct Setting {
        const char* name;
        const char* key;
        double value;
    };
    const Setting sizes[] = {{"width", "width", double(width)},
                             {"height", "height", double(height)},
                             {"scale", "scale", scale},
                             {"pixel size", "pixel-size", double(pixelSize)},
                             {"black point", "black-point", double(blackPoint)},
                             {"white point", "white-point", double(whitePoint)}};
    const Setting tones[] = {{"brightness", "brightness", brightness},
                             {"contrast", "contrast", contrast},
                             {"gamma", "gamma", gamma},
                             {"saturation", "saturation", saturation},
                             {"sharpen amount", "sharpen-amount", sharpenAmount},
                             {"sharpen radius", "sharpen-radius", sharpenRadius}};
    for (const Setting& s : sizes)
        if (Status st = range(s.name, s.key, s.value); !st) return st;
    if (blackPoint >= whitePoint)
        return Status::error("black point (" + std::to_string(blackPoint) + ") must be below white point (" +
                             std::to_string(whitePoint) + ")");
    for (const Setting& s : tones)
        if (Status st = range(s.name, s.key, s.value); !st) return st;
    if (rotate != 0 && rotate != 90 && rotate != 180 && rotate != 270)
        return Status::error("rotate must be 0, 90, 180 or 270 (degrees clockwise), got " + std::to_string(rotate));
    return Status::ok();
}

Status parsePrintSize(const std::string& text, double& widthInches, double& heightInches) {
    // NUMBER [UNIT] x NUMBER [UNIT]; a unit given once applies to both.
    const std::string bad = "print size '" + text + "' must look like 6x4in, 15x10cm or 210x297mm";
    size_t pos = 0;
    auto number = [&](double& v) {
        const size_t start = pos;
        while (pos < text.size() && (std::isdigit(static_cast<unsigned char>(text[pos])) || text[pos] == '.')) ++pos;
        if (pos == start) return false;
        try {
            v = std::stod(text.substr(start, pos - start));
        } catch (...) {
            return false;
        }
        return v > 0 && std::isfinite(v);
    };
    auto unit = [&](std::string& u) {
        const size_t start = pos;
        while (pos < text.size() && std::isalpha(static_cast<unsigned char>(text[pos]))) ++pos;
        u = text.substr(start, pos - start);
        if (!u.empty() && (u.back() == 'x' || u.back() == 'X')) {  // "6x4", "6inx4in": the x is the separator
            u.pop_back();
            --pos;
        }
    };
    double w = 0, h = 0;
    std::string uw, uh;
    if (!number(w)) return Status::error(bad);
    unit(uw);
    if (pos >= text.size() || (text[pos] != 'x' && text[pos] != 'X')) return Status::error(bad);
    ++pos;
    if (!number(h)) return Status::error(bad);
    unit(uh);
    if (pos != text.size()) return Status::error(bad);
    if (uw.empty()) uw = uh;
    if (uh.empty()) uh = uw;
    auto perInch = [](const std::string& u, double& f) {
        if (u == "in" || u == "inch" || u == "inches" || u.empty())
            f = 1.0;
        else if (u == "cm")
            f = 1.0 / 2.54;
        else if (u == "mm")
            f = 1.0 / 25.4;
        else
            return false;
        return true;
    };
    double fw = 1, fh = 1;
    if (!perInch(uw, fw) || !perInch(uh, fh)) return Status::error(bad + " (units: in, cm, mm)");
    widthInches = w * fw;
    heightInches = h * fh;
    return Status::ok();
}

Status applyPrintSize(PrepareSettings& s, const std::string& printSize, double dpi) {
    if (!(dpi > 0 && dpi <= 100000)) return Status::error("a print size needs --dpi between 1 and 100000");
    double wi = 0, hi = 0;
    if (Status st = parsePrintSize(printSize, wi, hi); !st) return st;
    const double w = std::round(wi * dpi), h = std::round(hi * dpi);
    if (w < 1 || h < 1 || w > (1 << 20) || h > (1 << 20))
        return Status::error("print size '" + printSize + "' at " + std::to_string(int(dpi)) +
                             " dpi gives an image of " + std::to_string(int64_t(w)) + " x " +
                             std::to_string(int64_t(h)) + " pixels; it must be 1 to 1048576 pixels a side");
    s.width = int(w);
    s.height = int(h);
    return Status::ok();
}

namespace {

/// Where the geometry steps put the image: the cover crop (in the rotated input), the size after the resize, and the
/// canvas with the place of the resized image on it (the contain letterbox).
struct Frame {
    int cropX = 0, cropY = 0, cropW = 0, cropH = 0;
    int sizeW = 0, sizeH = 0;
    int canvasW = 0, canvasH = 0;
    int padX = 0, padY = 0;
};

/// The share (0, 1 or 2 halves) of the free space that lies before the image along x and along y.
std::pair<int, int> gravityHalves(Gravity g) {
    switch (g) {
        case Gravity::North:
            return {1, 0};
        case Gravity::South:
            return {1, 2};
        case Gravity::East:
            return {2, 1};
        case Gravity::West:
            return {0, 1};
        case Gravity::NorthEast:
            return {2, 0};
        case Gravity::NorthWest:
            return {0, 0};
        case Gravity::SouthEast:
            return {2, 2};
        case Gravity::SouthWest:
            return {0, 2};
        case Gravity::Center:
            break;
    }
    return {1, 1};
}

/// The frame of an input of inWidth x inHeight (before the rotation) at 1/pixelSize of the target size.
Status planFrame(const PrepareSettings& s, int inWidth, int inHeight, int pixelSize, Frame& f) {
    const bool turned = s.rotate == 90 || s.rotate == 270;
    const int iw = turned ? inHeight : inWidth, ih = turned ? inWidth : inHeight;
    f = Frame{0, 0, iw, ih, iw, ih, iw, ih, 0, 0};
    const bool framed = s.width > 0 && s.height > 0 && (s.fit == ResizeFit::Cover || s.fit == ResizeFit::Contain);
    if (framed) {
        const int fw = std::max(1, int(std::lround(double(s.width) / pixelSize)));
        const int fh = std::max(1, int(std::lround(double(s.height) / pixelSize)));
        const auto [hx, hy] = gravityHalves(s.gravity);
        f.canvasW = f.sizeW = fw;
        f.canvasH = f.sizeH = fh;
        if (s.fit == ResizeFit::Cover) {
            // The largest part of the input with the frame's aspect ratio, placed by the gravity.
            if (double(iw) * fh > double(ih) * fw)
                f.cropW = std::clamp(int(std::lround(double(ih) * fw / fh)), 1, iw);
            else
                f.cropH = std::clamp(int(std::lround(double(iw) * fh / fw)), 1, ih);
            f.cropX = (iw - f.cropW) * hx / 2;
            f.cropY = (ih - f.cropH) * hy / 2;
        } else {
            const double k = std::min(double(fw) / iw, double(fh) / ih);
            f.sizeW = std::clamp(int(std::lround(iw * k)), 1, fw);
            f.sizeH = std::clamp(int(std::lround(ih * k)), 1, fh);
            f.padX = (fw - f.sizeW) * hx / 2;
            f.padY = (fh - f.sizeH) * hy / 2;
        }
        return Status::ok();
    }
    // In double: a wide strip made tall (4096 x 1 to a height of 600000) asks for a side beyond int.
    const double w = iw, h = ih;
    double ow = w, oh = h;
    if (s.width > 0 && s.height > 0) {
        if (s.fit == ResizeFit::Stretch) {
            ow = s.width, oh = s.height;
        } else {
            const double k = std::min(double(s.width) / w, double(s.height) / h);
            ow = std::clamp(std::round(w * k), 1.0, double(s.width));
            oh = std::clamp(std::round(h * k), 1.0, double(s.height));
        }
    } else if (s.width > 0) {
        ow = s.width, oh = std::max(1.0, std::round(h * s.width / w));
    } else if (s.height > 0) {
        oh = s.height, ow = std::max(1.0, std::round(w * s.height / h));
    } else if (s.scale > 0) {
        ow = std::max(1.0, std::round(w * s.scale)), oh = std::max(1.0, std::round(h * s.scale));
    }
    const double maxSide = jobNumberRule("width")->hi;
    if (ow > maxSide || oh > maxSide)
        return Status::error("resizing " + std::to_string(iw) + " x " + std::to_string(ih) + " to " + numberText(ow) +
                             " x " + numberText(oh) + " pixels (aspect ratio kept) is over " + numberText(maxSide) +
                             " pixels a side; give both --width and --height, or a smaller size");
    if (pixelSize > 1) {
        ow = std::max(1.0, std::round(ow / pixelSize));
        oh = std::max(1.0, std::round(oh / pixelSize));
    }
    f.canvasW = f.sizeW = int(ow);
    f.canvasH = f.sizeH = int(oh);
    return Status::ok();
}

}  // namespace

Status preparedSize(const PrepareSettings& s, int inWidth, int inHeight, int& outWidth, int& outHeight) {
    Frame f;
    if (Status st = planFrame(s, inWidth, inHeight, 1, f); !st) return st;
    outWidth = f.canvasW;
    outHeight = f.canvasH;
    return Status::ok();
}

// ---- orientation

Image applyOrientation(const Image& in, int orientation) {
    if (orientation <= 1 || orientation > 8) return in;
    const int w = in.width(), h = in.height();
    const bool swap = orientation >= 5;
    const int ow = swap ? h : w, oh = swap ? w : h;
    auto transform = [&](const Plane8& p) {
        Plane8 o(ow, oh);
        for (int y = 0; y < oh; ++y)
            for (int x = 0; x < ow; ++x) {
                int sx = x, sy = y;  // source of output (x, y)
                switch (orientation) {
                    case 2:  // mirrored horizontally
                        sx = w - 1 - x;
                        break;
                    case 3:  // rotated 180
                        sx = w - 1 - x;
                        sy = h - 1 - y;
                        break;
                    case 4:  // mirrored vertically
                        sy = h - 1 - y;
                        break;
                    case 5:  // transposed
                        sx = y;
                        sy = x;
                        break;
                    case 6:  // stored rotated 90 counter-clockwise: turn clockwise
                        sx = y;
                        sy = h - 1 - x;
                        break;
                    case 7:  // transversed
                        sx = w - 1 - y;
                        sy = h - 1 - x;
                        break;
                    case 8:  // stored rotated 90 clockwise: turn counter-clockwise
                        sx = w - 1 - y;
                        sy = x;
                        break;
                    default:
                        break;
                }
                o.at(y, x) = p.at(sy, sx);
            }
        return o;
    };
    Image out = in;
    for (Plane8& c : out.channels) c = transform(c);
    if (out.hasAlpha) out.alpha = transform(in.alpha);
    if (!out.indices.empty()) out.indices = transform(in.indices);
    return out;
}

Image enlargePixels(const Image& in, int n) {
    if (n <= 1) return in;
    auto enlarge = [n](const Plane8& p) {
        Plane8 o(p.width * n, p.height * n);
        for (int y = 0; y < o.height; ++y) {
            const uint8_t* src = p.row(y / n);
            uint8_t* dst = o.row(y);
            for (int x = 0; x < o.width; ++x) dst[x] = src[x / n];
        }
        return o;
    };
    Image out;
    out.space = in.space;
    for (const Plane8& c : in.channels) out.channels.push_back(enlarge(c));
    out.hasAlpha = in.hasAlpha;
    if (in.hasAlpha) out.alpha = enlarge(in.alpha);
    out.palette = in.palette;
    if (!in.indices.empty()) out.indices = enlarge(in.indices);
    return out;
}

namespace {

// ---- resampling

struct Taps {
    int first = 0;
    std::vector<float> w;
};

double filterSupport(ResizeFilter f) {
    switch (f) {
        case ResizeFilter::Lanczos3:
            return 3.0;
        case ResizeFilter::Bicubic:
            return 2.0;
        case ResizeFilter::Box:
            return 0.5;
        case ResizeFilter::Nearest:
            return 0.5;
    }
    return 3.0;
}

double filterValue(ResizeFilter f, double x) {
    x = std::abs(x);
    switch (f) {
        case ResizeFilter::Lanczos3: {
            if (x >= 3.0) return 0.0;
            if (x < 1e-9) return 1.0;
            const double px = std::numbers::pi * x;
            return 3.0 * std::sin(px) * std::sin(px / 3.0) / (px * px);
        }
        case ResizeFilter::Bicubic: {  // Catmull-Rom (B = 0, C = 0.5)
            if (x < 1.0) return 1.5 * x * x * x - 2.5 * x * x + 1.0;
            if (x < 2.0) return -0.5 * x * x * x + 2.5 * x * x - 4.0 * x + 2.0;
            return 0.0;
        }
        case ResizeFilter::Box:
        case ResizeFilter::Nearest:
            return x <= 0.5 ? 1.0 : 0.0;
    }
    return 0.0;
}

/// Weights of every output sample along one axis; sources past the edges repeat the edge sample.
std::vector<Taps> axisTaps(int inSize, int outSize, ResizeFilter f) {
    std::vector<Taps> taps(static_cast<size_t>(outSize));
    const double scale = double(outSize) / inSize;
    if (f == ResizeFilter::Nearest) {
        for (int o = 0; o < outSize; ++o) {
            taps[size_t(o)].first = std::min(inSize - 1, int(std::floor((o + 0.5) / scale)));
            taps[size_t(o)].w = {1.0f};
        }
        return taps;
    }
    const double widen = scale < 1.0 ? 1.0 / scale : 1.0;  // a reduction widens the filter (no aliasing)
    const double radius = filterSupport(f) * widen;
    for (int o = 0; o < outSize; ++o) {
        const double center = (o + 0.5) / scale - 0.5;
        const int lo = int(std::ceil(center - radius)), hi = int(std::floor(center + radius));
        const int first = std::clamp(lo, 0, inSize - 1), last = std::clamp(hi, 0, inSize - 1);
        std::vector<double> w(size_t(last - first + 1), 0.0);
        double sum = 0;
        for (int i = lo; i <= hi; ++i) {
            double v = filterValue(f, (i - center) / widen);
            if (f == ResizeFilter::Box && std::abs(std::abs((i - center) / widen) - 0.5) < 1e-9) v = 0.5;
            w[size_t(std::clamp(i, 0, inSize - 1) - first)] += v;
            sum += v;
        }
        Taps& t = taps[size_t(o)];
        t.first = first;
        for (double v : w) t.w.push_back(float(sum != 0 ? v / sum : 0));
        if (sum == 0) t.w[size_t(std::clamp(int(std::lround(center)), first, last) - first)] = 1.0f;
    }
    return taps;
}

/// Runs fn(y) for y in [0, rows) on the shared workers, progress mapped onto [lo, hi]; false when cancelled.
bool parallelRows(int rows, const RunControl& control, double lo, double hi, const std::function<void(int)>& fn) {
    const int threads = std::min(threadsOrAll(control.threads), rows / 16 + 1);
    return parallelChunks(rows, 8, threads, control.scaled(lo, hi), {}, [&](int64_t y0, int64_t y1, int) {
        for (int64_t y = y0; y < y1; ++y) fn(int(y));
    });
}

/// The linear-light value of each 8-bit sRGB code, and the linear thresholds between codes for encoding.
struct LinearTables {
    std::array<float, 256> toLinear{};
    std::array<float, 255> mid{};  ///< lin((k + 0.5) / 255): linear values above mid[k] encode to k + 1 or more
    LinearTables() {
        for (int a = 0; a < 256; ++a) toLinear[size_t(a)] = float(srgbToLinear(a / 255.0));
        for (int k = 0; k < 255; ++k) mid[size_t(k)] = float(srgbToLinear((k + 0.5) / 255.0));
    }
    uint8_t encode(float v) const { return uint8_t(std::upper_bound(mid.begin(), mid.end(), v) - mid.begin()); }
};

const LinearTables& linearTables() {
    static const LinearTables t;
    return t;
}

Status resizePlane(const Plane8& in, int ow, int oh, ResizeFilter f, bool linear, Plane8& out,
                   const RunControl& control, double lo, double hi) {
    const int iw = in.width, ih = in.height;
    const std::vector<Taps> tx = axisTaps(iw, ow, f), ty = axisTaps(ih, oh, f);
    const LinearTables& lt = linearTables();
    std::array<float, 256> decode{};
    for (int a = 0; a < 256; ++a) decode[size_t(a)] = linear ? lt.toLinear[size_t(a)] : float(a);
    // Horizontal pass into floats, then vertical into 8 bits.
    PlaneT<float> mid(ow, ih);
    const double split = lo + (hi - lo) * 0.5;
    if (!parallelRows(ih, control, lo, split, [&](int y) {
            const uint8_t* src = in.row(y);
            float* dst = mid.row(y);
            for (int x = 0; x < ow; ++x) {
                const Taps& t = tx[size_t(x)];
                float acc = 0;
                for (size_t k = 0; k < t.w.size(); ++k) acc += t.w[k] * decode[src[t.first + int(k)]];
                dst[x] = acc;
            }
        }))
        return Status::cancelled();
    out = Plane8(ow, oh);
    if (!parallelRows(oh, control, split, hi, [&](int y) {
            const Taps& t = ty[size_t(y)];
            uint8_t* dst = out.row(y);
            std::vector<float> acc(size_t(ow), 0.0f);
            for (size_t k = 0; k < t.w.size(); ++k) {
                const float wk = t.w[k];
                const float* src = mid.row(t.first + int(k));
                for (int x = 0; x < ow; ++x) acc[size_t(x)] += wk * src[x];
            }
            for (int x = 0; x < ow; ++x) {
                const float v = acc[size_t(x)];
                dst[x] = linear ? lt.encode(v) : uint8_t(std::clamp(std::lround(v), 0L, 255L));
            }
        }))
        return Status::cancelled();
    return Status::ok();
}

// ---- tone

/// The tone curve (levels, brightness, contrast, gamma) as a table over the 8-bit levels.
std::array<uint8_t, 256> toneTable(const PrepareSettings& s) {
    std::array<uint8_t, 256> t{};
    for (int a = 0; a < 256; ++a) {
        double v = (double(a) - s.blackPoint) * 255.0 / (s.whitePoint - s.blackPoint);
        v = std::clamp(v, 0.0, 255.0);
        v += s.brightness * 2.55;
        if (s.contrast >= 100)
            v = v >= 127.5 ? 255.0 : 0.0;
        else if (s.contrast != 0)
            v = 127.5 + (v - 127.5) * (100.0 + s.contrast) / (100.0 - s.contrast);
        v = std::clamp(v, 0.0, 255.0);
        if (s.gamma != 1.0) v = 255.0 * std::pow(v / 255.0, 1.0 / s.gamma);
        t[size_t(a)] = uint8_t(std::clamp(std::lround(v), 0L, 255L));
    }
    return t;
}

/// One Gaussian blur pass (separable, edges repeated) of a float plane.
std::vector<float> gaussianKernel(double sigma) {
    const int r = std::max(1, int(std::ceil(3.0 * sigma)));
    std::vector<float> k(size_t(2 * r + 1));
    double sum = 0;
    for (int i = -r; i <= r; ++i) sum += (k[size_t(i + r)] = float(std::exp(-0.5 * i * i / (sigma * sigma))));
    for (float& v : k) v = float(v / sum);
    return k;
}

Status sharpenPlane(Plane8& p, const PrepareSettings& s, const RunControl& control, double lo, double hi) {
    const std::vector<float> k = gaussianKernel(s.sharpenRadius);
    const int r = int(k.size() / 2), w = p.width, h = p.height;
    PlaneT<float> tmp(w, h);
    const double split = lo + (hi - lo) * 0.5;
    if (!parallelRows(h, control, lo, split, [&](int y) {
            const uint8_t* src = p.row(y);
            float* dst = tmp.row(y);
            for (int x = 0; x < w; ++x) {
                float acc = 0;
                for (int i = -r; i <= r; ++i) acc += k[size_t(i + r)] * src[std::clamp(x + i, 0, w - 1)];
                dst[x] = acc;
            }
        }))
        return Status::cancelled();
    Plane8 out(w, h);
    const float amount = float(s.sharpenAmount / 100.0);
    if (!parallelRows(h, control, split, hi, [&](int y) {
            std::vector<float> blur(size_t(w), 0.0f);
            for (int i = -r; i <= r; ++i) {
                const float* src = tmp.row(std::clamp(y + i, 0, h - 1));
                const float ki = k[size_t(i + r)];
                for (int x = 0; x < w; ++x) blur[size_t(x)] += ki * src[x];
            }
            const uint8_t* orig = p.row(y);
            uint8_t* dst = out.row(y);
            for (int x = 0; x < w; ++x) {
                const float v = orig[x] + amount * (orig[x] - blur[size_t(x)]);
                dst[x] = uint8_t(std::clamp(std::lround(v), 0L, 255L));
            }
        }))
        return Status::cancelled();
    p = std::move(out);
    return Status::ok();
}

// ---- frame

/// The values of `c` in an image of `space`: luma for gray (the formula of convertColor), the separation for CMYK.
std::vector<uint8_t> backgroundValues(ColorSpace space, const Rgb8& c) {
    Image one;
    one.space = ColorSpace::RGB;
    for (uint8_t v : c) one.channels.emplace_back(1, 1, v);
    if (space == ColorSpace::Gray) one = convertColor(one, ColorMode::Gray);
    if (space == ColorSpace::CMYK) one = convertColor(one, ColorMode::CMYK);
    std::vector<uint8_t> values;
    for (const Plane8& p : one.channels) values.push_back(p.data[0]);
    return values;
}

/// Composites every channel over the background values by its alpha (on the 8-bit values, as browsers and image
/// editors composite) and drops the alpha plane.
void flattenAlpha(Image& im, const std::vector<uint8_t>& fill) {
    for (size_t c = 0; c < im.channels.size(); ++c) {
        Plane8& p = im.channels[c];
        const int bg = fill[c];
        for (size_t i = 0; i < p.size(); ++i) {
            const int a = im.alpha.data[i];
            p.data[i] = uint8_t((a * p.data[i] + (255 - a) * bg + 127) / 255);
        }
    }
    im.hasAlpha = false;
    im.alpha = {};
}

std::vector<Plane8*> planesOf(Image& im) {
    std::vector<Plane8*> v;
    for (Plane8& p : im.channels) v.push_back(&p);
    if (im.hasAlpha) v.push_back(&im.alpha);
    return v;
}

Plane8 cropPlane(const Plane8& p, int x0, int y0, int w, int h) {
    Plane8 o(w, h);
    for (int y = 0; y < h; ++y) std::copy_n(p.row(y0 + y) + x0, w, o.row(y));
    return o;
}

Plane8 padPlane(const Plane8& p, int w, int h, int x0, int y0, uint8_t fill) {
    Plane8 o(w, h, fill);
    for (int y = 0; y < p.height; ++y) std::copy_n(p.row(y), p.width, o.row(y0 + y) + x0);
    return o;
}

}  // namespace

Status prepareImage(const Image& in, const PrepareSettings& s, Image& out, const RunControl& control) {
    if (Status st = s.validate(); !st) return st;
    if (in.channels.empty()) return Status::error("image has no channels");
    out = in;
    out.palette.clear();
    out.indices = {};

    // Geometry: the frame of the target (or the input size) reduced by the pixel size.
    Frame f;
    if (Status st = planFrame(s, in.width(), in.height(), s.pixelSize, f); !st) return st;
    if (s.rotate != 0) out = applyOrientation(out, s.rotate == 90 ? 6 : s.rotate == 180 ? 3 : 8);
    const bool letterbox = f.canvasW != f.sizeW || f.canvasH != f.sizeH;
    const Rgb8 paper = s.background.value_or(Rgb8{255, 255, 255});
    if (((s.background && out.hasAlpha) || letterbox) && out.space == ColorSpace::Gray &&
        !(paper[0] == paper[1] && paper[1] == paper[2]))
        out = convertColor(out, ColorMode::RGB);  // a coloured background keeps its colour
    const std::vector<uint8_t> fill = backgroundValues(out.space, paper);
    if (s.background && out.hasAlpha) flattenAlpha(out, fill);
    if (f.cropW != out.width() || f.cropH != out.height())
        for (Plane8* p : planesOf(out)) *p = cropPlane(*p, f.cropX, f.cropY, f.cropW, f.cropH);

    const int tw = f.sizeW, th = f.sizeH;
    const int planes = out.channelCount() + (out.hasAlpha ? 1 : 0);
    const bool resize = tw != out.width() || th != out.height();
    const bool sharpen = s.sharpenAmount > 0;
    const double resizeShare = resize ? (sharpen ? 0.7 : 0.95) : 0.0;
    if (resize) {
        // Colour planes in linear light (CMYK inks are not sRGB: their values are resampled as they are); alpha
        // is a coverage and is resampled as it is.
        const bool linear = s.linearResize && out.space != ColorSpace::CMYK;
        for (int c = 0; c < planes; ++c) {
            const bool isAlpha = c == out.channelCount();
            Plane8& p = isAlpha ? out.alpha : out.channels[size_t(c)];
            Plane8 r;
            const double lo = resizeShare * c / planes, hi = resizeShare * (c + 1) / planes;
            if (Status st = resizePlane(p, tw, th, s.filter, linear && !isAlpha, r, control, lo, hi); !st) return st;
            p = std::move(r);
        }
    }
    if (letterbox) {
        for (size_t c = 0; c < out.channels.size(); ++c)
            out.channels[c] = padPlane(out.channels[c], f.canvasW, f.canvasH, f.padX, f.padY, fill[c]);
        if (out.hasAlpha) out.alpha = padPlane(out.alpha, f.canvasW, f.canvasH, f.padX, f.padY, 0);
    }

    if (s.blackPoint != 0 || s.whitePoint != 255 || s.brightness != 0 || s.contrast != 0 || s.gamma != 1.0) {
        const std::array<uint8_t, 256> t = toneTable(s);
        const bool inks = out.space == ColorSpace::CMYK;  // ink amounts: the curve acts on the paper's lightness
        for (Plane8& p : out.channels)
            for (uint8_t& v : p.data) v = inks ? uint8_t(255 - t[size_t(255 - v)]) : t[v];
    }
    if (control.cancelled()) return Status::cancelled();

    if (s.saturation != 100 && out.space == ColorSpace::RGB) {
        const double f = s.saturation / 100.0;
        Plane8 &r = out.channels[0], &g = out.channels[1], &b = out.channels[2];
        for (size_t i = 0; i < r.size(); ++i) {
            const int y = (77 * r.data[i] + 150 * g.data[i] + 29 * b.data[i] + 128) >> 8;  // the luma of convertColor
            for (Plane8* p : {&r, &g, &b})
                p->data[i] = uint8_t(std::clamp(std::lround(y + f * (p->data[i] - y)), 0L, 255L));
        }
    }

    if (sharpen) {
        const int n = out.channelCount();
        for (int c = 0; c < n; ++c) {
            const double lo = resizeShare + (1.0 - resizeShare) * c / n,
                         hi = resizeShare + (1.0 - resizeShare) * (c + 1) / n;
            if (Status st = sharpenPlane(out.channels[size_t(c)], s, control, lo, hi); !st) return st;
        }
    }
    if (control.cancelled()) return Status::cancelled();
    control.report(1.0);
    return Status::ok();
}

}  // namespace halftone
