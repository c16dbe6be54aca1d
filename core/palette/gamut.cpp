#include "core/palette/gamut.h"

#include <algorithm>
#include <cmath>

#include "core/ed/quantizer.h"
#include "core/job/names.h"
#include "core/quality/metrics.h"

namespace halftone {

namespace {

constexpr EnumName<ToneMap> kToneMaps[] = {
    {ToneMap::None, "none"}, {ToneMap::Auto, "auto"}, {ToneMap::SCurve, "s-curve"}};
constexpr EnumName<GamutMap> kGamutMaps[] = {
    {GamutMap::None, "none"}, {GamutMap::Clip, "clip"}, {GamutMap::Compress, "compress"}};

using V3 = std::array<double, 3>;

V3 sub(const V3& a, const V3& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
double dot(const V3& a, const V3& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
V3 cross(const V3& a, const V3& b) {
    return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
double length(const V3& a) { return std::sqrt(dot(a, a)); }
double luminance(const V3& v) { return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2]; }

V3 linearOf(const Rgb8& c) {
    return {srgbToLinear(c[0] / 255.0), srgbToLinear(c[1] / 255.0), srgbToLinear(c[2] / 255.0)};
}

Rgb8 encode(const V3& v) {
    Rgb8 out{};
    for (size_t k = 0; k < 3; ++k) {
        const double x = std::clamp(v[k], 0.0, 1.0);
        const double e = x <= 0.0031308 ? 12.92 * x : 1.055 * std::pow(x, 1.0 / 2.4) - 0.055;
        out[k] = uint8_t(std::lround(255.0 * std::clamp(e, 0.0, 1.0)));
    }
    return out;
}

Lab labOf(const V3& v) { return linearSrgbToLab(v[0], v[1], v[2]); }

constexpr double kEps = 1e-9;          ///< points and planes closer than this are the same
constexpr double kSlack = 1e-6;        ///< a colour this far outside still counts as inside
constexpr size_t kMaxHullColors = 64;  ///< above this the hull is not computed: every colour counts as inside

}  // namespace

const char* toString(ToneMap t) { return enumName(kToneMaps, t); }
bool parseToneMap(const std::string& s, ToneMap& out) { return parseEnumName(kToneMaps, s, out); }
const char* toString(GamutMap g) { return enumName(kGamutMaps, g); }
bool parseGamutMap(const std::string& s, GamutMap& out) { return parseEnumName(kGamutMaps, s, out); }

PaletteGamut::PaletteGamut(const Palette& palette) {
    for (const Rgb8& c : palette.colors) points_.push_back(linearOf(c));
    if (points_.empty()) return;
    dark_ = light_ = points_.front();
    for (const V3& p : points_) {
        if (luminance(p) < luminance(dark_)) dark_ = p;
        if (luminance(p) > luminance(light_)) light_ = p;
    }
    blackL_ = labOf(dark_).L;
    whiteL_ = labOf(light_).L;
    if (points_.size() > kMaxHullColors) {
        rank_ = -1;
        return;
    }
    // The affine dimension: a second point away from the first, a third off their line, a fourth off their plane.
    const V3 p0 = points_.front();
    V3 p1 = p0, normal{};
    for (const V3& p : points_)
        if (length(sub(p, p0)) > length(sub(p1, p0))) p1 = p;
    if (length(sub(p1, p0)) <= kEps) return;
    rank_ = 1;
    for (const V3& p : points_) {
        const V3 n = cross(sub(p1, p0), sub(p, p0));
        if (length(n) > length(normal)) normal = n;
    }
    if (length(normal) <= kEps) return;
    rank_ = 2;
    const double ln = length(normal);
    for (double& x : normal) x /= ln;
    for (const V3& p : points_)
        if (std::abs(dot(normal, sub(p, p0))) > kEps) rank_ = 3;
    // A face plane has every point on one side: from triples of points in 3-D, from pairs (with the plane's normal)
    // for a flat palette.
    auto addIfFace = [&](V3 n, const V3& through) {
        const double ln2 = length(n);
        if (ln2 <= kEps) return;
        for (double& x : n) x /= ln2;
        const double d = dot(n, through);
        bool below = true, above = true;
        for (const V3& p : points_) {
            below = below && dot(n, p) <= d + kEps;
            above = above && dot(n, p) >= d - kEps;
        }
        if (below) planes_.push_back({n[0], n[1], n[2], d});
        if (above) planes_.push_back({-n[0], -n[1], -n[2], -d});
    };
    const size_t n = points_.size();
    if (rank_ == 2) {
        planes_.push_back({normal[0], normal[1], normal[2], dot(normal, p0)});
        planes_.push_back({-normal[0], -normal[1], -normal[2], -dot(normal, p0)});
    }
    for (size_t i = 0; i < n; ++i)
        for (size_t j = i + 1; j < n; ++j) {
            if (rank_ == 2) addIfFace(cross(sub(points_[j], points_[i]), normal), points_[i]);
            if (rank_ == 3)
                for (size_t k = j + 1; k < n; ++k)
                    addIfFace(cross(sub(points_[j], points_[i]), sub(points_[k], points_[i])), points_[i]);
        }
}

bool PaletteGamut::contains(const V3& x) const {
    if (rank_ < 0) return true;
    if (points_.empty()) return false;
    if (rank_ == 0) return length(sub(x, points_.front())) <= kSlack;
    if (rank_ == 1) {
        // On the segment between the two extreme points.
        V3 a = points_.front(), b = a;
        for (const V3& p : points_) {
            if (length(sub(p, a)) > length(sub(b, a))) b = p;
        }
        for (const V3& p : points_)
            if (length(sub(p, b)) > length(sub(a, b))) a = p;
        const V3 ab = sub(b, a);
        const double t = std::clamp(dot(sub(x, a), ab) / dot(ab, ab), 0.0, 1.0);
        const V3 nearest = {a[0] + t * ab[0], a[1] + t * ab[1], a[2] + t * ab[2]};
        return length(sub(x, nearest)) <= kSlack;
    }
    for (const auto& p : planes_)
        if (p[0] * x[0] + p[1] * x[1] + p[2] * x[2] > p[3] + kSlack) return false;
    return true;
}

V3 PaletteGamut::axisPoint(double y) const {
    const double y0 = luminance(dark_), y1 = luminance(light_);
    const double s = y1 > y0 ? std::clamp((y - y0) / (y1 - y0), 0.0, 1.0) : 0.0;
    return {dark_[0] + s * (light_[0] - dark_[0]), dark_[1] + s * (light_[1] - dark_[1]),
            dark_[2] + s * (light_[2] - dark_[2])};
}

Rgb8 mapColor(const Rgb8& rgb, const PaletteGamut& gamut, ToneMap tone, GamutMap mapping) {
    Lab p = labOf(linearOf(rgb));
    if (tone != ToneMap::None) {
        const double t = std::clamp(p.L / 100.0, 0.0, 1.0);
        const double s = tone == ToneMap::SCurve ? 0.6 * t + 0.4 * (3 * t * t - 2 * t * t * t) : t;
        p.L = gamut.blackL() + (gamut.whiteL() - gamut.blackL()) * s;
    }
    const V3 lin = labToLinearSrgb(p);
    if (mapping == GamutMap::None || (mapping == GamutMap::Clip && gamut.contains(lin))) return encode(lin);
    // The ray at constant L* from the palette's gray axis (the point of the same luminance between its darkest and
    // lightest colours) through the colour: f = 0 on the axis, f = 1 the colour.
    const Lab a = labOf(gamut.axisPoint(luminance(lin)));
    auto at = [&](double f) { return labToLinearSrgb({p.L, a.a + f * (p.a - a.a), a.b + f * (p.b - a.b)}); };
    auto inSrgb = [&](double f) {
        const V3 v = at(f);
        return std::all_of(v.begin(), v.end(), [](double x) { return x >= -1e-9 && x <= 1 + 1e-9; });
    };
    // Largest f in [lo, hi] where ok(f) holds, by bisection (ok(lo) assumed).
    auto boundary = [](double lo, double hi, auto ok) {
        if (ok(hi)) return hi;
        for (int i = 0; i < 30; ++i) {
            const double mid = 0.5 * (lo + hi);
            (ok(mid) ? lo : hi) = mid;
        }
        return lo;
    };
    auto inGamut = [&](double f) { return gamut.contains(at(f)); };
    if (mapping == GamutMap::Clip) return encode(at(boundary(0.0, 1.0, inGamut)));
    // Compress: the sRGB boundary fs (at least the colour itself) maps onto the gamut's boundary fb, the part above
    // 70 % of fb linearly.
    const double fs = inSrgb(1.0) ? boundary(1.0, 16.0, inSrgb) : 1.0;
    const double fb = boundary(0.0, fs, inGamut);
    constexpr double k = 0.7;
    if (fb >= fs || 1.0 <= k * fb) return encode(lin);
    const double f = k * fb + (1.0 - k * fb) * (fb - k * fb) / (fs - k * fb);
    return encode(at(f));
}

Status mapToPalette(Image& rgb, const Palette& palette, ToneMap tone, GamutMap mapping, const RunControl& control) {
    if (tone == ToneMap::None && mapping == GamutMap::None) return Status::ok();
    if (rgb.space != ColorSpace::RGB || rgb.channelCount() != 3)
        return Status::error("tone and gamut mapping need an RGB image");
    const PaletteGamut gamut(palette);
    constexpr int kNodes = 33;
    std::vector<Rgb8> table(size_t(kNodes * kNodes * kNodes));
    auto node = [](int i) { return uint8_t((i * 255 + (kNodes - 1) / 2) / (kNodes - 1)); };
    for (int r = 0; r < kNodes; ++r)
        for (int g = 0; g < kNodes; ++g)
            for (int b = 0; b < kNodes; ++b)
                table[size_t((r * kNodes + g) * kNodes + b)] =
                    mapColor({node(r), node(g), node(b)}, gamut, tone, mapping);
    // Where each 8-bit value falls between two nodes.
    std::array<int, 256> cell{};
    std::array<float, 256> frac{};
    for (int v = 0; v < 256; ++v) {
        int i = 0;
        while (i + 1 < kNodes - 1 && node(i + 1) <= v) ++i;
        cell[size_t(v)] = i;
        frac[size_t(v)] = float(v - node(i)) / float(node(i + 1) - node(i));
    }
    Plane8 &R = rgb.channels[0], &G = rgb.channels[1], &B = rgb.channels[2];
    for (int y = 0; y < R.height; ++y) {
        if (control.cancelled()) return Status::cancelled();
        uint8_t *pr = R.row(y), *pg = G.row(y), *pb = B.row(y);
        for (int x = 0; x < R.width; ++x) {
            const int i = cell[pr[x]], j = cell[pg[x]], k = cell[pb[x]];
            const float fr = frac[pr[x]], fg = frac[pg[x]], fb = frac[pb[x]];
            float out[3] = {0, 0, 0};
            for (int c = 0; c < 8; ++c) {
                const int di = c >> 2, dj = (c >> 1) & 1, dk = c & 1;
                const float w = (di ? fr : 1 - fr) * (dj ? fg : 1 - fg) * (dk ? fb : 1 - fb);
                const Rgb8& t = table[size_t(((i + di) * kNodes + (j + dj)) * kNodes + (k + dk))];
                for (int ch = 0; ch < 3; ++ch) out[ch] += w * t[size_t(ch)];
            }
            pr[x] = uint8_t(std::lround(out[0]));
            pg[x] = uint8_t(std::lround(out[1]));
            pb[x] = uint8_t(std::lround(out[2]));
        }
    }
    control.report(1.0);
    return Status::ok();
}

}  // namespace halftone
