// Quality measures (docs/spec.md section 3). The spectrum uses FFTW3 when the build found it (HALFTONE_HAVE_FFTW),
// otherwise a separable DFT that is exact but O(N (W + H)), fine for the patch sizes used here.
#include "core/quality/metrics.h"

#include "core/ed/quantizer.h"
#include "core/threads.h"
#include "core/workerpool.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <limits>
#include <numbers>

#ifdef HALFTONE_HAVE_FFTW
#include <fftw3.h>
#include <mutex>
#endif

namespace halftone {

double hvsWeightedError(const Plane8& original, const Plane8& halftone, const HvsParams& hvs) {
    HvsFilter f;
    if (!makeHvsFilter(hvs, f) || !original.sameSize(halftone) || original.empty())
        return std::numeric_limits<double>::quiet_NaN();
    PlaneT<double> e(original.width, original.height);
    for (size_t i = 0; i < e.size(); ++i) e.data[i] = (double(halftone.data[i]) - double(original.data[i])) / 255.0;
    const PlaneT<double> q = hvsFullConvolution(e, f);
    double E = 0;
    for (double v : q.data) E += v * v;
    return E / double(e.size());
}

namespace {

/// The separable truncated Gaussian of section 3: taps outside the image are dropped and the rest renormalised.
class TruncatedGaussian {
public:
    TruncatedGaussian(double sigma, int radius) : w_(std::max(0, radius)), k_(size_t(2 * w_ + 1)) {
        for (int i = -w_; i <= w_; ++i)
            k_[size_t(i + w_)] = sigma > 0 ? std::exp(-double(i * i) / (2 * sigma * sigma)) : (i == 0);
        for (int i = -w_; i <= w_; ++i) full_ += k_[size_t(i + w_)];  // in the order the taps are added
    }
    int radius() const { return w_; }

    /// A row of W values filtered along it.
    void row(const double* in, int W, double* out) const {
        const int x0 = std::min(w_, W), x1 = std::max(x0, W - w_);
        for (int x = 0; x < x0; ++x) out[x] = taps(in + x, 1, std::max(-w_, -x), std::min(w_, W - 1 - x));
        inside(in + x0, 1, x1 - x0, out + x0);
        for (int x = x1; x < W; ++x) out[x] = taps(in + x, 1, std::max(-w_, -x), std::min(w_, W - 1 - x));
    }
    /// Row y of a plane H rows high, filtered down its columns; `at` points at row y of the row-filtered plane
    /// (rows W apart), whose rows the kernel reaches from y are there.
    void column(const double* at, int W, int y, int H, double* out) const {
        if (y >= w_ && y + w_ < H) return inside(at, W, W, out);
        const int lo = std::max(-w_, -y), hi = std::min(w_, H - 1 - y);
        for (int x = 0; x < W; ++x) out[x] = taps(at + x, W, lo, hi);
    }

private:
    /// One output from its taps lo..hi, `step` apart around `c`, by the weights of those taps.
    double taps(const double* c, ptrdiff_t step, int lo, int hi) const {
        double acc = 0, ws = 0;
        for (int i = lo; i <= hi; ++i) {
            acc += k_[size_t(i + w_)] * c[i * step];
            ws += k_[size_t(i + w_)];
        }
        return acc / ws;
    }
    /// n neighbouring outputs whose taps all lie inside: output j's tap i is `in[j + i * step]`. A block of outputs
    /// is summed tap by tap: each output still adds its taps from the first to the last, the value `taps` gives
    /// (`full_` is their weights' sum in that order), and the compiler keeps several outputs in a vector register.
    void inside(const double* in, ptrdiff_t step, int n, double* out) const {
        constexpr int kBlock = 256;
        double acc[kBlock];
        for (int j0 = 0; j0 < n; j0 += kBlock) {
            const int m = std::min(kBlock, n - j0);
            std::fill_n(acc, m, 0.0);
            for (int i = -w_; i <= w_; ++i) {
                const double kk = k_[size_t(i + w_)];
                const double* src = in + j0 + i * step;
                for (int j = 0; j < m; ++j) acc[j] += kk * src[j];
            }
            for (int j = 0; j < m; ++j) out[j0 + j] = acc[j] / full_;
        }
    }

    int w_;
    std::vector<double> k_;
    double full_ = 0;
};

/// The mean over a W x H image of `term(rows, x)`, where rows[p] is row y of plane p (of P) filtered by `g` and
/// `source(p, y, out)` writes row y of plane p unfiltered. Bands of rows run on the worker pool, each filtering the
/// rows it reaches along and then down, in memory of a band's size; every filtered value is the same sum in the same
/// order whatever the thread count, and the mean adds each row's terms left to right and then the rows top to
/// bottom, so the measures are deterministic.
template <size_t P, class Source, class Term>
double meanOfFiltered(int W, int H, const TruncatedGaussian& g, const Source& source, const Term& term) {
    const int w = g.radius(), band = std::max(64, 4 * w), threads = threadsOrAll(0);
    std::vector<std::vector<double>> scratch(static_cast<size_t>(threads));
    std::vector<double> rowSums(static_cast<size_t>(H));
    parallelChunks(H, band, threads, RunControl{}, {}, [&](int64_t y0, int64_t y1, int worker) {
        const int top = int(std::max<int64_t>(0, y0 - w)), rows = int(std::min<int64_t>(H, y1 + w)) - top;
        std::vector<double>& s = scratch[size_t(worker)];
        s.resize(size_t(W) * (P * size_t(rows) + P + 1));
        double* unfiltered = s.data();
        double* along = unfiltered + W;               // P bands of `rows` rows filtered along
        double* down = along + P * size_t(rows) * W;  // row y of each plane, filtered both ways
        const auto bandOf = [&](size_t p) { return along + p * size_t(rows) * W; };
        for (size_t p = 0; p < P; ++p)
            for (int r = 0; r < rows; ++r) {
                source(p, top + r, unfiltered);
                g.row(unfiltered, W, bandOf(p) + size_t(r) * W);
            }
        std::array<const double*, P> filtered;
        for (int64_t y = y0; y < y1; ++y) {
            for (size_t p = 0; p < P; ++p) {
                g.column(bandOf(p) + size_t(y - top) * W, W, int(y), H, down + p * W);
                filtered[p] = down + p * W;
            }
            double sum = 0;
            for (int x = 0; x < W; ++x) sum += term(filtered, x);
            rowSums[size_t(y)] = sum;
        }
    });
    double sum = 0;
    for (double v : rowSums) sum += v;
    return sum / (double(W) * double(H));
}

}  // namespace

double filteredPsnr(const Plane8& original, const Plane8& halftone, double sigma, int radius, bool linear) {
    if (!original.sameSize(halftone) || original.empty()) return std::numeric_limits<double>::quiet_NaN();
    // The working space: gamma values as stored, or linear light on the same 0..255 scale.
    std::array<double, 256> value{};
    for (int v = 0; v < 256; ++v) value[size_t(v)] = linear ? 255.0 * srgbToLinear(v / 255.0) : double(v);
    const std::array<const Plane8*, 2> planes{&original, &halftone};
    const double mse = meanOfFiltered<2>(
        original.width, original.height, TruncatedGaussian(sigma, radius),
        [&](size_t p, int y, double* out) {
            const uint8_t* r = planes[p]->row(y);
            for (int x = 0; x < original.width; ++x) out[x] = value[r[x]];
        },
        [](const std::array<const double*, 2>& f, int x) {
            const double d = f[1][x] - f[0][x];
            return d * d;
        });
    if (mse == 0) return std::numeric_limits<double>::infinity();
    return 10.0 * std::log10(255.0 * 255.0 / mse);
}

double ssim(const Plane8& original, const Plane8& halftone) {
    if (!original.sameSize(halftone) || original.empty()) return std::numeric_limits<double>::quiet_NaN();
    // Wang, Bovik, Sheikh and Simoncelli (2004), equation (13), with their 11 x 11 Gaussian window (sigma 1.5),
    // K1 = 0.01, K2 = 0.03 and L = 255; the local means, variances and covariance come from the filter of section 3.
    constexpr double sigma = 1.5, c1 = (0.01 * 255) * (0.01 * 255), c2 = (0.03 * 255) * (0.03 * 255);
    constexpr int radius = 5;
    // The planes filtered: x, y, x^2, y^2 and xy.
    return meanOfFiltered<5>(
        original.width, original.height, TruncatedGaussian(sigma, radius),
        [&](size_t p, int y, double* out) {
            const uint8_t *a = original.row(y), *b = halftone.row(y);
            for (int x = 0; x < original.width; ++x) {
                const double u = a[x], v = b[x];
                out[x] = p == 0 ? u : p == 1 ? v : p == 2 ? u * u : p == 3 ? v * v : u * v;
            }
        },
        [](const std::array<const double*, 5>& f, int i) {
            const double mx = f[0][i], my = f[1][i];
            const double vx = f[2][i] - mx * mx, vy = f[3][i] - my * my, cxy = f[4][i] - mx * my;
            return (2 * mx * my + c1) * (2 * cxy + c2) / ((mx * mx + my * my + c1) * (vx + vy + c2));
        });
}

Lab linearSrgbToLab(double r, double g, double b) {
    // IEC 61966-2-1 (sRGB) primaries and D65 white; the white point is the image of (1, 1, 1).
    const double X = 0.4124 * r + 0.3576 * g + 0.1805 * b;
    const double Y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
    const double Z = 0.0193 * r + 0.1192 * g + 0.9505 * b;
    constexpr double Xn = 0.4124 + 0.3576 + 0.1805, Yn = 1.0, Zn = 0.0193 + 0.1192 + 0.9505;
    constexpr double d = 6.0 / 29.0;
    auto f = [](double t) { return t > d * d * d ? std::cbrt(t) : t / (3 * d * d) + 4.0 / 29.0; };
    const double fx = f(X / Xn), fy = f(Y / Yn), fz = f(Z / Zn);
    return {116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)};
}

std::array<double, 3> labToLinearSrgb(const Lab& lab) {
    constexpr double Xn = 0.4124 + 0.3576 + 0.1805, Yn = 1.0, Zn = 0.0193 + 0.1192 + 0.9505;
    constexpr double d = 6.0 / 29.0;
    auto finv = [](double t) { return t > d ? t * t * t : 3 * d * d * (t - 4.0 / 29.0); };
    const double fy = (lab.L + 16) / 116, fx = fy + lab.a / 500, fz = fy - lab.b / 200;
    const double X = Xn * finv(fx), Y = Yn * finv(fy), Z = Zn * finv(fz);
    // The inverse of the matrix of linearSrgbToLab.
    static const std::array<std::array<double, 3>, 3> inv = [] {
        const double m[3][3] = {{0.4124, 0.3576, 0.1805}, {0.2126, 0.7152, 0.0722}, {0.0193, 0.1192, 0.9505}};
        const double det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
                           m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                           m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
        std::array<std::array<double, 3>, 3> r{};
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) {
                const int a = (j + 1) % 3, b = (j + 2) % 3, c = (i + 1) % 3, e = (i + 2) % 3;
                r[size_t(i)][size_t(j)] = (m[a][c] * m[b][e] - m[a][e] * m[b][c]) / det;
            }
        return r;
    }();
    std::array<double, 3> rgb{};
    for (size_t i = 0; i < 3; ++i) rgb[i] = inv[i][0] * X + inv[i][1] * Y + inv[i][2] * Z;
    return rgb;
}

double ciede2000(const Lab& x, const Lab& y) {
    // Sharma, Wu and Dalal (2005), equations (1) to (22), angles in degrees.
    constexpr double pi = std::numbers::pi, deg = 180.0 / pi, pow25_7 = 6103515625.0;  // 25^7
    const double c1 = std::hypot(x.a, x.b), c2 = std::hypot(y.a, y.b);
    const double cMean7 = std::pow((c1 + c2) / 2, 7);
    const double G = 0.5 * (1 - std::sqrt(cMean7 / (cMean7 + pow25_7)));
    const double a1 = (1 + G) * x.a, a2 = (1 + G) * y.a;
    const double cp1 = std::hypot(a1, x.b), cp2 = std::hypot(a2, y.b);
    auto hue = [&](double b, double a) {
        if (a == 0 && b == 0) return 0.0;
        const double h = std::atan2(b, a) * deg;
        return h < 0 ? h + 360 : h;
    };
    const double h1 = hue(x.b, a1), h2 = hue(y.b, a2);
    const double dL = y.L - x.L, dC = cp2 - cp1;
    double dh = 0;
    if (cp1 * cp2 != 0) {
        dh = h2 - h1;
        if (dh > 180)
            dh -= 360;
        else if (dh < -180)
            dh += 360;
    }
    const double dH = 2 * std::sqrt(cp1 * cp2) * std::sin(dh / 2 / deg);
    const double lMean = (x.L + y.L) / 2, cMean = (cp1 + cp2) / 2;
    double hMean = h1 + h2;
    if (cp1 * cp2 != 0) {
        if (std::abs(h1 - h2) <= 180)
            hMean /= 2;
        else
            hMean = hMean < 360 ? (hMean + 360) / 2 : (hMean - 360) / 2;
    }
    const double T = 1 - 0.17 * std::cos((hMean - 30) / deg) + 0.24 * std::cos(2 * hMean / deg) +
                     0.32 * std::cos((3 * hMean + 6) / deg) - 0.20 * std::cos((4 * hMean - 63) / deg);
    const double dTheta = 30 * std::exp(-std::pow((hMean - 275) / 25, 2));
    const double cMeanP7 = std::pow(cMean, 7);
    const double Rc = 2 * std::sqrt(cMeanP7 / (cMeanP7 + pow25_7));
    const double l50 = (lMean - 50) * (lMean - 50);
    const double Sl = 1 + 0.015 * l50 / std::sqrt(20 + l50);
    const double Sc = 1 + 0.045 * cMean, Sh = 1 + 0.015 * cMean * T;
    const double Rt = -std::sin(2 * dTheta / deg) * Rc;
    const double tl = dL / Sl, tc = dC / Sc, th = dH / Sh;
    return std::sqrt(std::max(0.0, tl * tl + tc * tc + th * th + Rt * tc * th));
}

namespace {

/// filteredDeltaE2000 with the values taken as sRGB (decoded to linear light) or, without `srgb`, as linear light.
double deltaE2000OfFiltered(const Image& original, const Image& halftone, double sigma, int radius, bool srgb) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    if (original.channels.empty() || halftone.channels.empty()) return nan;
    const Image a = convertColor(original, ColorMode::RGB), b = convertColor(halftone, ColorMode::RGB);
    const int W = a.width(), H = a.height();
    if (W != b.width() || H != b.height() || W == 0 || H == 0) return nan;
    std::array<double, 256> lin{};
    for (int v = 0; v < 256; ++v) lin[size_t(v)] = srgb ? srgbToLinear(v / 255.0) : v / 255.0;
    // The planes filtered: the original's red, green and blue, then the halftone's.
    return meanOfFiltered<6>(
        W, H, TruncatedGaussian(sigma, radius),
        [&](size_t p, int y, double* out) {
            const uint8_t* r = (p < 3 ? a : b).channels[p % 3].row(y);
            for (int x = 0; x < W; ++x) out[x] = lin[r[x]];
        },
        [](const std::array<const double*, 6>& f, int x) {
            return ciede2000(linearSrgbToLab(f[0][x], f[1][x], f[2][x]), linearSrgbToLab(f[3][x], f[4][x], f[5][x]));
        });
}

}  // namespace

double filteredDeltaE2000(const Image& original, const Image& halftone, double sigma, int radius) {
    return deltaE2000OfFiltered(original, halftone, sigma, radius, true);
}

double eyeSigmaPixels(const ViewingConditions& v) {
    return v.dpi * v.distanceInches * std::tan(kEyeSigmaDegrees * 3.14159265358979323846 / 180.0);
}

double seenDeltaE2000(const Image& original, const Image& halftone, bool linear, const ViewingConditions& v) {
    const double sigma = eyeSigmaPixels(v);
    return deltaE2000OfFiltered(original, halftone, sigma, int(std::ceil(3 * sigma)), linear);
}

double seenPsnr(const Plane8& original, const Plane8& halftone, const ViewingConditions& v, bool linear) {
    const double sigma = eyeSigmaPixels(v);
    return filteredPsnr(original, halftone, sigma, int(std::ceil(3 * sigma)), linear);
}

Plane8 centralCrop(const Plane8& p, int maxWidth, int maxHeight) {
    const int cw = std::clamp(maxWidth, 0, p.width), ch = std::clamp(maxHeight, 0, p.height);
    if (cw == p.width && ch == p.height) return p;
    const int x0 = (p.width - cw) / 2, y0 = (p.height - ch) / 2;
    Plane8 out(cw, ch);
    for (int y = 0; y < ch; ++y) std::copy(p.row(y0 + y) + x0, p.row(y0 + y) + x0 + cw, out.row(y));
    return out;
}

ToneCurve toneCurve(const Plane8& original, const Plane8& halftone) {
    ToneCurve t;
    t.meanOut.assign(256, 0.0);
    t.count.assign(256, 0);
    if (!original.sameSize(halftone)) return t;
    std::vector<double> sum(256, 0.0);
    for (size_t i = 0; i < original.size(); ++i) {
        sum[original.data[i]] += halftone.data[i];
        ++t.count[original.data[i]];
    }
    int levels = 0;
    for (int g = 0; g < 256; ++g)
        if (t.count[size_t(g)]) {
            t.meanOut[size_t(g)] = sum[size_t(g)] / double(t.count[size_t(g)]);
            const double d = std::abs(t.meanOut[size_t(g)] - g);
            if (t.worstLevel < 0 || d > t.maxDeviation) {
                t.maxDeviation = d;
                t.worstLevel = g;
            }
            t.meanDeviation += d;
            ++levels;
        }
    if (levels) t.meanDeviation /= levels;
    return t;
}

Plane8 grayRamp(int width, int height) {
    Plane8 p(width, height);
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) p.at(y, x) = uint8_t(width > 1 ? (255 * x + (width - 1) / 2) / (width - 1) : 0);
    return p;
}

Plane8 grayStaircase(int columnsPerLevel, int height) {
    const int c = std::max(1, columnsPerLevel);
    Plane8 p(256 * c, std::max(0, height));
    for (int y = 0; y < p.height; ++y)
        for (int x = 0; x < p.width; ++x) p.at(y, x) = uint8_t(x / c);
    return p;
}

Plane8 grayTiles(int tile) {
    Plane8 p(16 * tile, 16 * tile);
    for (int y = 0; y < p.height; ++y)
        for (int x = 0; x < p.width; ++x) p.at(y, x) = uint8_t((y / tile) * 16 + x / tile);
    return p;
}

bool metricsHaveFftw() {
#ifdef HALFTONE_HAVE_FFTW
    return true;
#else
    return false;
#endif
}

namespace {

/// |DFT|^2 of a real W x H plane, row-major, index (v, u).
[[maybe_unused]] std::vector<double> powerDft(const std::vector<double>& x, int W, int H) {
    std::vector<std::complex<double>> a(x.begin(), x.end()), tmp(size_t(std::max(W, H)));
    auto dft1 = [&](std::complex<double>* data, int n, int stride) {
        for (int k = 0; k < n; ++k) {
            std::complex<double> s = 0;
            for (int j = 0; j < n; ++j) {
                const double ang = -2 * std::numbers::pi * double((int64_t(k) * j) % n) / n;
                s += data[size_t(j) * stride] * std::complex<double>(std::cos(ang), std::sin(ang));
            }
            tmp[size_t(k)] = s;
        }
        for (int k = 0; k < n; ++k) data[size_t(k) * stride] = tmp[size_t(k)];
    };
    for (int y = 0; y < H; ++y) dft1(a.data() + size_t(y) * W, W, 1);
    for (int x = 0; x < W; ++x) dft1(a.data() + x, H, W);
    std::vector<double> p(a.size());
    for (size_t i = 0; i < a.size(); ++i) p[i] = std::norm(a[i]);
    return p;
}

#ifdef HALFTONE_HAVE_FFTW
std::vector<double> powerFftw(const std::vector<double>& x, int W, int H) {
    static std::mutex planMutex;  // FFTW planning is not thread-safe
    std::vector<double> in = x;
    const int wc = W / 2 + 1;
    fftw_complex* out = fftw_alloc_complex(size_t(wc) * H);
    fftw_plan plan;
    {
        std::lock_guard lock(planMutex);
        plan = fftw_plan_dft_r2c_2d(H, W, in.data(), out, FFTW_ESTIMATE);
    }
    fftw_execute(plan);
    std::vector<double> p(size_t(W) * H);
    for (int v = 0; v < H; ++v)
        for (int u = 0; u < wc; ++u) {
            const double re = out[size_t(v) * wc + u][0], im = out[size_t(v) * wc + u][1];
            const double pw = re * re + im * im;
            p[size_t(v) * W + u] = pw;
            p[size_t((H - v) % H) * W + size_t((W - u) % W)] = pw;  // Hermitian symmetry
        }
    {
        std::lock_guard lock(planMutex);
        fftw_destroy_plan(plan);
    }
    fftw_free(out);
    return p;
}
#endif

}  // namespace

Status radialSpectrum(const Plane8& patch, RadialSpectrum& out) {
    return radialSpectrum(std::vector<Plane8>{patch}, out);
}

Status radialSpectrum(const std::vector<Plane8>& patches, RadialSpectrum& out) {
    if (patches.empty()) return Status::error("spectrum needs at least one patch");
    const int W = patches.front().width, H = patches.front().height;
    if (W < 4 || H < 4) return Status::error("spectrum patch must be at least 4 x 4 pixels");
    if (W > 1024 || H > 1024) return Status::error("spectrum patch must be at most 1024 x 1024 pixels (use a crop)");
    for (const Plane8& patch : patches)
        if (patch.width != W || patch.height != H) return Status::error("spectrum patches must all have one size");
    const double N = double(W) * H, K = double(patches.size());
    std::vector<double> p(size_t(W) * H, 0.0);
    double var = 0;
    for (const Plane8& patch : patches) {
        double mean = 0;
        for (uint8_t v : patch.data) mean += v / 255.0;
        mean /= N;
        std::vector<double> x(patch.size());
        double pv = 0;
        for (size_t i = 0; i < x.size(); ++i) {
            x[i] = patch.data[i] / 255.0 - mean;
            pv += x[i] * x[i];
        }
        var += pv / N;
#ifdef HALFTONE_HAVE_FFTW
        const std::vector<double> one = powerFftw(x, W, H);
        out.backend = "fftw3";
#else
        const std::vector<double> one = powerDft(x, W, H);
        out.backend = "dft";
#endif
        for (size_t i = 0; i < p.size(); ++i) p[i] += one[i] / K;
    }
    var /= K;
    const double dr = 1.0 / std::min(W, H);
    const int rings = int(std::ceil(std::sqrt(0.5) / dr)) + 1;
    std::vector<double> sum(size_t(rings), 0.0), sum2(size_t(rings), 0.0);
    std::vector<int> cnt(size_t(rings), 0);
    for (int v = 0; v < H; ++v)
        for (int u = 0; u < W; ++u) {
            if (u == 0 && v == 0) continue;  // DC (zero after mean removal)
            const double fu = (u <= W / 2 ? u : u - W) / double(W), fv = (v <= H / 2 ? v : v - H) / double(H);
            const int r = int(std::lround(std::sqrt(fu * fu + fv * fv) / dr));
            const double pw = p[size_t(v) * W + u] / N;
            sum[size_t(r)] += pw;
            sum2[size_t(r)] += pw * pw;
            ++cnt[size_t(r)];
        }
    out.frequency.clear();
    out.power.clear();
    out.anisotropy.clear();
    out.samples.clear();
    for (int r = 1; r < rings; ++r) {
        if (!cnt[size_t(r)]) continue;
        const double m = sum[size_t(r)] / cnt[size_t(r)];
        const double vr = cnt[size_t(r)] > 1 ? (sum2[size_t(r)] - cnt[size_t(r)] * m * m) / (cnt[size_t(r)] - 1) : 0.0;
        out.frequency.push_back(r * dr);
        out.power.push_back(m);
        out.anisotropy.push_back(m > 0 && vr > 0 ? 10 * std::log10(vr / (m * m))
                                                 : -std::numeric_limits<double>::infinity());
        out.samples.push_back(cnt[size_t(r)]);
    }
    out.variance = var;
    out.periodograms = int(patches.size());
    return Status::ok();
}

std::vector<Plane8> tilesOf(const Plane8& plane, int tile, int margin) {
    std::vector<Plane8> tiles;
    if (tile < 1 || margin < 0) return tiles;
    const int nx = (plane.width - 2 * margin) / tile, ny = (plane.height - 2 * margin) / tile;
    for (int ty = 0; ty < ny; ++ty)
        for (int tx = 0; tx < nx; ++tx) {
            Plane8 t(tile, tile);
            const int x0 = margin + tx * tile, y0 = margin + ty * tile;
            for (int y = 0; y < tile; ++y) std::copy(plane.row(y0 + y) + x0, plane.row(y0 + y) + x0 + tile, t.row(y));
            tiles.push_back(std::move(t));
        }
    return tiles;
}

double meanAnisotropy(const RadialSpectrum& s) {
    double sum = 0;
    int n = 0;
    for (size_t i = 0; i < s.power.size(); ++i)
        if (s.power[i] > 1e-9 * s.variance && std::isfinite(s.anisotropy[i])) {
            sum += s.anisotropy[i];
            ++n;
        }
    return n ? sum / n : std::numeric_limits<double>::quiet_NaN();
}

double lowFrequencyRatio(const RadialSpectrum& s, double fmax) {
    double sum = 0;
    int64_t n = 0;
    for (size_t i = 0; i < s.frequency.size(); ++i)
        if (s.frequency[i] <= fmax) {
            sum += s.power[i] * s.samples[i];
            n += s.samples[i];
        }
    if (n == 0 || s.variance <= 0) return std::numeric_limits<double>::quiet_NaN();
    return sum / double(n) / s.variance;
}

}  // namespace halftone
