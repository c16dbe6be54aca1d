// Direct Binary Search: Zhang and Allebach (c_pp / c_pe bookkeeping, eq. 12-16; quad-interleaved blocks) and
// Koge, Ito and Nakano (clipping-free DBS, update map, four block groups).
#include "core/dbs/dbs.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <numbers>
#include <sstream>

#include "core/ed/errordiffusion.h"
#include "core/screen/screen.h"
#include "core/threads.h"
#include "core/workerpool.h"

namespace halftone {

Status makeHvsFilter(const HvsParams& hp, HvsFilter& out) {
    if (hp.radius < 1 || hp.radius > 16)
        return Status::error("HVS filter radius must be between 1 and 16, got " + std::to_string(hp.radius));
    const int w = hp.radius, n = 2 * w + 1;
    HvsFilter f;
    f.radius = w;
    f.p.assign(size_t(n) * n, 0.0);
    if (hp.model == HvsModel::Gaussian) {
        if (!(hp.sigma > 0.05 && hp.sigma <= 20))
            return Status::error("Gaussian HVS sigma must be in (0.05, 20] pixels");
        f.p1d.resize(size_t(n));
        double s = 0;
        for (int i = -w; i <= w; ++i) s += f.p1d[size_t(i + w)] = std::exp(-double(i * i) / (2 * hp.sigma * hp.sigma));
        for (double& v : f.p1d) v /= s;
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) f.p[size_t(i) * n + j] = f.p1d[size_t(i)] * f.p1d[size_t(j)];
    } else {
        if (!(hp.distance > 0) || !(hp.dpi > 0) || !(hp.luminance > 1.0))
            return Status::error("Nasanen HVS needs distance > 0 inches, dpi > 0 and luminance > 1 cd/m^2");
        // Zhang and Allebach, eq. 1-5 (Nasanen's model): H(u) = a L^b exp(-u / (c ln L + d)) in cycles/degree;
        // in inches on the paper the spatial filter is 2 pi k / (k^2 + 4 pi^2 r^2)^(3/2)
        // with k = pi D / (180 (c ln L + d)).
        const double c = 0.525, d = 3.91;
        const double k = std::numbers::pi * hp.distance / (180.0 * (c * std::log(hp.luminance) + d));
        double s = 0;
        for (int i = -w; i <= w; ++i)
            for (int j = -w; j <= w; ++j) {
                const double r2 = double(i * i + j * j) / (hp.dpi * hp.dpi);
                const double v =
                    2 * std::numbers::pi * k / std::pow(k * k + 4 * std::numbers::pi * std::numbers::pi * r2, 1.5);
                f.p[size_t(i + w) * n + size_t(j + w)] = v;
                s += v;
            }
        for (double& v : f.p) v /= s;
    }
    const int R = 2 * w, m = 2 * R + 1;
    f.cppRadius = R;
    f.cpp.assign(size_t(m) * m, 0.f);
    for (int dy = -R; dy <= R; ++dy)
        for (int dx = -R; dx <= R; ++dx) {
            double acc = 0;
            for (int i = -w; i <= w; ++i) {
                const int i2 = i + dy;
                if (i2 < -w || i2 > w) continue;
                for (int j = -w; j <= w; ++j) {
                    const int j2 = j + dx;
                    if (j2 < -w || j2 > w) continue;
                    acc += f.p[size_t(i + w) * n + size_t(j + w)] * f.p[size_t(i2 + w) * n + size_t(j2 + w)];
                }
            }
            f.cpp[size_t(dy + R) * m + size_t(dx + R)] = float(acc);
        }
    out = std::move(f);
    return Status::ok();
}

PlaneT<double> hvsFullConvolution(const PlaneT<double>& f, const HvsFilter& filter) {
    const int w = filter.radius, n = 2 * w + 1;
    PlaneT<double> out(f.width + 2 * w, f.height + 2 * w, 0.0);
    for (int Y = 0; Y < out.height; ++Y)
        for (int X = 0; X < out.width; ++X) {
            double acc = 0;
            for (int i = -w; i <= w; ++i) {
                const int y = Y - w - i;
                if (y < 0 || y >= f.height) continue;
                for (int j = -w; j <= w; ++j) {
                    const int x = X - w - j;
                    if (x < 0 || x >= f.width) continue;
                    acc += filter.p[size_t(i + w) * n + size_t(j + w)] * f.at(y, x);
                }
            }
            out.at(Y, X) = acc;
        }
    return out;
}

std::vector<double> cppSeparableTaps(const HvsFilter& f) {
    if (f.p1d.empty()) return {};
    const int w = f.radius, R = f.cppRadius;
    std::vector<double> a(size_t(2 * R + 1), 0.0);
    for (int d = -R; d <= R; ++d)
        for (int i = -w; i <= w; ++i)
            if (i + d >= -w && i + d <= w) a[size_t(d + R)] += f.p1d[size_t(i + w)] * f.p1d[size_t(i + d + w)];
    return a;
}

namespace {

/// Runs body(lo, hi) on [0, n) split into `threads` contiguous chunks.
template <class F>
void parallelChunks(int n, int threads, F&& body) {
    threads = std::max(1, std::min(threads, n));
    if (threads == 1) {
        body(0, n);
        return;
    }
    WorkerPool::shared().run(threads,
                             [&](int t) { body(int(int64_t(n) * t / threads), int(int64_t(n) * (t + 1) / threads)); });
}

/// c_pe = c_pp * e on the image (e zero outside), in double. Separable filters use two 1-D passes of the
/// 1-D autocorrelation (c_pp of an outer product is the outer product of the 1-D autocorrelations).
std::vector<double> computeCpe(const std::vector<double>& e, int W, int H, const HvsFilter& f, int threads) {
    const int R = f.cppRadius, m = 2 * R + 1;
    std::vector<double> out(size_t(W) * H, 0.0);
    if (!f.p1d.empty()) {
        const std::vector<double> a = cppSeparableTaps(f);
        std::vector<double> t(size_t(W) * H, 0.0);
        parallelChunks(H, threads, [&](int lo, int hi) {
            for (int y = lo; y < hi; ++y)
                for (int x = 0; x < W; ++x) {
                    double acc = 0;
                    const int j0 = std::max(-R, x - (W - 1)), j1 = std::min(R, x);
                    for (int j = j0; j <= j1; ++j) acc += a[size_t(j + R)] * e[size_t(y) * W + size_t(x - j)];
                    t[size_t(y) * W + x] = acc;
                }
        });
        parallelChunks(H, threads, [&](int lo, int hi) {
            for (int y = lo; y < hi; ++y) {
                const int i0 = std::max(-R, y - (H - 1)), i1 = std::min(R, y);
                double* o = out.data() + size_t(y) * W;
                for (int i = i0; i <= i1; ++i) {
                    const double ai = a[size_t(i + R)];
                    const double* s = t.data() + size_t(y - i) * W;
                    for (int x = 0; x < W; ++x) o[x] += ai * s[x];
                }
            }
        });
        return out;
    }
    parallelChunks(H, threads, [&](int lo, int hi) {
        for (int y = lo; y < hi; ++y) {
            double* o = out.data() + size_t(y) * W;
            for (int i = -R; i <= R; ++i) {
                const int ys = y - i;
                if (ys < 0 || ys >= H) continue;
                const double* s = e.data() + size_t(ys) * W;
                for (int j = -R; j <= R; ++j) {
                    const double c = f.cpp[size_t(i + R) * m + size_t(j + R)];
                    const int x0 = std::max(0, j), x1 = std::min(W, W + j);
                    for (int x = x0; x < x1; ++x) o[x] += c * s[x - j];
                }
            }
        }
    });
    return out;
}

constexpr int kNb[8][2] = {{-1, -1}, {-1, 0}, {-1, 1}, {0, -1}, {0, 1}, {1, -1}, {1, 0}, {1, 1}};

}  // namespace

Status DbsState::init(const Plane8& src, const HvsFilter& filter, const Plane8& binary, const Plane8& freeMask) {
    if (!src.sameSize(binary) || !src.sameSize(freeMask))
        return Status::error("DBS: start image and mask differ in size from the input");
    if (src.empty()) return Status::error("DBS: empty image");
    w_ = src.width;
    h_ = src.height;
    filter_ = &filter;
    src_ = &src;
    padC_ = filter.cppRadius + 1;
    g_.assign(size_t(w_ + 2) * (h_ + 2), 0);
    free_.assign(size_t(w_ + 2) * (h_ + 2), 0);
    for (int y = 0; y < h_; ++y)
        for (int x = 0; x < w_; ++x) {
            g_[idxG(y, x)] = binary.at(y, x) ? 1 : 0;
            free_[idxG(y, x)] = freeMask.at(y, x) ? 1 : 0;
        }
    std::vector<double> e(size_t(w_) * h_);
    for (int y = 0; y < h_; ++y)
        for (int x = 0; x < w_; ++x) e[size_t(y) * w_ + x] = double(g_[idxG(y, x)]) - src.at(y, x) / 255.0;
    const std::vector<double> c = computeCpe(e, w_, h_, filter, hardwareThreads());
    cpe_.assign(size_t(strideC()) * size_t(h_ + 2 * padC_), 0.f);
    for (int y = 0; y < h_; ++y)
        for (int x = 0; x < w_; ++x) cpe_[idxC(y, x)] = float(c[size_t(y) * w_ + x]);
    const int R = filter.cppRadius;
    cppOffsets_.clear();
    for (int dy = -R; dy <= R; ++dy)
        for (int dx = -R; dx <= R; ++dx) cppOffsets_.push_back(dy * strideC() + dx);
    return Status::ok();
}

void DbsState::addCpp(int y, int x, float a) {
    const int R = filter_->cppRadius, m = 2 * R + 1;
    float* c = cpe_.data() + idxC(y - R, x - R);
    const float* k = filter_->cpp.data();
    const int s = strideC();
    for (int i = 0; i < m; ++i, c += s, k += m)
        for (int j = 0; j < m; ++j) c[j] += a * k[j];
}

float DbsState::toggleDelta(int y, int x) const {
    const float a0 = g_[idxG(y, x)] ? -1.f : 1.f;
    return filter_->cpp0() + 2 * a0 * cpe_[idxC(y, x)];
}

float DbsState::swapDelta(int y, int x, int dy, int dx) const {
    const float a0 = g_[idxG(y, x)] ? -1.f : 1.f, a1 = -a0;
    return 2 * filter_->cpp0() + 2 * a0 * cpe_[idxC(y, x)] + 2 * a1 * cpe_[idxC(y + dy, x + dx)] +
           2 * a0 * a1 * filter_->cppAt(dy, dx);
}

void DbsState::applyToggle(int y, int x) {
    uint8_t& g = g_[idxG(y, x)];
    const float a0 = g ? -1.f : 1.f;
    g ^= 1;
    addCpp(y, x, a0);
}

void DbsState::applySwap(int y, int x, int dy, int dx) {
    uint8_t& g0 = g_[idxG(y, x)];
    uint8_t& g1 = g_[idxG(y + dy, x + dx)];
    const float a0 = g0 ? -1.f : 1.f;
    g0 ^= 1;
    g1 ^= 1;
    addCpp(y, x, a0);
    addCpp(y + dy, x + dx, -a0);
}

namespace {

/// The hot loop shared by every CPU schedule: evaluate all moves at one free pixel and take the best.
/// Returns the move index (-1 none, 0 toggle, 1..8 swap with kNb[k-1]) and adds the taken dE to `gain`.
struct Visitor {
    uint8_t* g;
    const uint8_t* fr;
    float* cpe;
    const float* cpp;
    int sG, sC, R, m;
    float cpp0, cppNb[8], eps;
    int offG[8], offC[8];
    bool swaps;

    Visitor(DbsState& s, bool sw) {
        g = s.gData();
        fr = s.freeData();
        cpe = s.cpeData();
        cpp = s.filter().cpp.data();
        sG = s.strideG();
        sC = s.strideC();
        R = s.filter().cppRadius;
        m = 2 * R + 1;
        cpp0 = s.filter().cpp0();
        // Moves that gain less than this are rejected, so float rounding in c_pe cannot make DBS cycle.
        eps = 1e-5f * cpp0;
        swaps = sw;
        for (int k = 0; k < 8; ++k) {
            cppNb[k] = s.filter().cppAt(kNb[k][0], kNb[k][1]);
            offG[k] = kNb[k][0] * sG + kNb[k][1];
            offC[k] = kNb[k][0] * sC + kNb[k][1];
        }
    }
    void add(float* c, float a) const {
        c -= R * sC + R;
        const float* k = cpp;
        for (int i = 0; i < m; ++i, c += sC, k += m)
            for (int j = 0; j < m; ++j) c[j] += a * k[j];
    }
    int visit(int y, int x, double& gain) const {
        const size_t ig = size_t(y + 1) * sG + size_t(x + 1);
        const size_t ic = size_t(y + R + 1) * sC + size_t(x + R + 1);
        const uint8_t g0 = g[ig];
        const float a0 = g0 ? -1.f : 1.f;
        const float t = cpp0 + 2 * a0 * cpe[ic];
        float best = t;
        int move = 0;
        if (swaps) {
            for (int k = 0; k < 8; ++k) {
                const size_t j = ig + offG[k];
                if (!fr[j] || g[j] == g0) continue;
                const float d = t + cpp0 - 2 * a0 * cpe[ic + offC[k]] - 2 * cppNb[k];
                if (d < best) {
                    best = d;
                    move = k + 1;
                }
            }
        }
        if (!(best < -eps)) return -1;
        g[ig] ^= 1;
        add(cpe + ic, a0);
        if (move > 0) {
            g[ig + offG[move - 1]] ^= 1;
            add(cpe + ic + offC[move - 1], -a0);
        }
        gain += best;
        return move;
    }
};

/// Koge, Ito and Nakano's update map at tile granularity: a pixel is visited in iteration `it` only when some pixel
/// within reach (c_pp radius + 2: swap partner plus its neighbour) changed in iteration it-1 or it.
/// With this rule DBS takes exactly the moves it would take without the map.
struct UpdateMap {
    static constexpr int TS = 8;
    int tw = 0, th = 0, reach = 0;
    std::vector<int> activeUntil;
    UpdateMap(int W, int H, int cppRadius) {
        tw = (W + TS - 1) / TS;
        th = (H + TS - 1) / TS;
        reach = (TS - 1 + cppRadius + 2) / TS;
        activeUntil.assign(size_t(tw) * th, 1);
    }
    bool active(int y, int x, int it) const {
        return std::atomic_ref<const int>(activeUntil[size_t(y / TS) * tw + size_t(x / TS)])
                   .load(std::memory_order_relaxed) >= it;
    }
    void mark(int y, int x, int it) {
        const int ty = y / TS, tx = x / TS;
        for (int a = std::max(0, ty - reach); a <= std::min(th - 1, ty + reach); ++a)
            for (int b = std::max(0, tx - reach); b <= std::min(tw - 1, tx + reach); ++b)
                std::atomic_ref<int>(activeUntil[size_t(a) * tw + b]).store(it + 1, std::memory_order_relaxed);
    }
};

}  // namespace

float DbsState::visit(int y, int x, bool swaps) {
    Visitor v(*this, swaps);
    double gain = 0;
    v.visit(y, x, gain);
    return float(gain);
}

double DbsState::bookkeptError() const {
    double E = 0;
    for (int y = 0; y < h_; ++y)
        for (int x = 0; x < w_; ++x) E += (double(g_[idxG(y, x)]) - src_->at(y, x) / 255.0) * double(cpe_[idxC(y, x)]);
    return E;
}

double DbsState::bruteForceError() const {
    PlaneT<double> e(w_, h_);
    for (int y = 0; y < h_; ++y)
        for (int x = 0; x < w_; ++x) e.at(y, x) = double(g_[idxG(y, x)]) - src_->at(y, x) / 255.0;
    const PlaneT<double> q = hvsFullConvolution(e, *filter_);
    double E = 0;
    for (double v : q.data) E += v * v;
    return E;
}

Plane8 DbsState::output() const {
    Plane8 out(w_, h_);
    for (int y = 0; y < h_; ++y)
        for (int x = 0; x < w_; ++x) out.at(y, x) = g_[idxG(y, x)] ? 255 : 0;
    return out;
}

Status dbsStart(const Plane8& src, const DbsParams& params, Plane8& binary, Plane8& freeMask) {
    binary = Plane8(src.width, src.height, 0);
    freeMask = Plane8(src.width, src.height, 1);
    const PlaneT<uint8_t>* screen = params.screen;
    if (params.clipFree) {
        if (!(params.margin >= 0 && params.margin <= 0.5))
            return Status::error("clip-free margin must be between 0 and 0.5 (0..127 gray levels)");
        if (!screen) screen = &defaultDbsScreen();
        if (screen->empty()) return Status::error("clip-free DBS: the threshold array is empty");
    }
    Plane8 diffused;
    if (params.start == DbsStart::ErrorDiffusion)
        if (Status s = errorDiffuse(src, diffused, EdParams{}, EdVariant::DiffusionRegisters); !s) return s;
    for (int y = 0; y < src.height; ++y)
        for (int x = 0; x < src.width; ++x) {
            const uint8_t a = src.at(y, x);
            const double f = a / 255.0;
            uint8_t b = params.start == DbsStart::ErrorDiffusion ? uint8_t(diffused.at(y, x) > 127)
                                                                 : uint8_t(dbsRandomBit(params.seed, x, y, a));
            if (params.clipFree && (f < params.margin || f > 1.0 - params.margin)) {
                // Koge, Ito and Nakano, section 2.2: T for shadows, its mirror for highlights (black where
                // 1 - f > t, so f = 1 gives no black and 1 - 1/255 gives N/255); minority pixels are determined.
                const uint8_t t = screen->at(y % screen->height, x % screen->width);
                const bool shadow = f < params.margin;
                const uint8_t s = shadow ? (a > t ? 1 : 0) : (255 - int(a) > int(t) ? 0 : 1);
                if ((shadow && s == 1) || (!shadow && s == 0)) {
                    b = s;
                    freeMask.at(y, x) = 0;
                }
            }
            binary.at(y, x) = b;
        }
    return Status::ok();
}

double dbsError(const Plane8& src, const Plane8& halftone, const HvsFilter& filter) {
    if (!src.sameSize(halftone) || src.empty()) return std::numeric_limits<double>::quiet_NaN();
    std::vector<double> e(src.size());
    for (size_t i = 0; i < e.size(); ++i) e[i] = (halftone.data[i] ? 1.0 : 0.0) - src.data[i] / 255.0;
    const std::vector<double> c = computeCpe(e, src.width, src.height, filter, hardwareThreads());
    double E = 0;
    for (size_t i = 0; i < e.size(); ++i) E += e[i] * c[i];
    return E / double(e.size());
}

HvsParams dbsWarmStartHvs(const HvsParams& hvs, double scale) {
    HvsParams h = hvs;
    if (h.model == HvsModel::Gaussian)
        h.sigma *= scale;
    else
        h.distance *= scale;
    return h;
}

namespace {

/// What one DBS phase did.
struct PhaseResult {
    int iterations = 0;
    int64_t moves = 0;
    bool converged = false;
};

/// Where a DBS phase reports its progress: fractions [lo, hi] of the whole run, and the iterations and moves of
/// the phases before it (so the numbers shown count on across phases).
struct PhaseProgress {
    double lo = 0, hi = 1;
    int itBase = 0;
    int64_t movesBase = 0;
    std::string label;
};

/// Estimates how far a DBS phase is. DBS stops when an iteration accepts no move; the accepted moves per iteration
/// fall roughly geometrically, so the iterations left are about log(m_k) / -log(m_k / m_{k-1}). The estimate never
/// goes past max-iter, and the reported fraction never goes back.
class ConvergenceEstimate {
public:
    explicit ConvergenceEstimate(int maxIterations) : max_(maxIterations), total_(std::min(maxIterations, kGuess)) {}

    /// Records the moves accepted by iteration `it` (1-based) once it is done.
    void finished(int it, int64_t moves) {
        if (moves == 0) {
            total_ = it;
            done_ = true;
        } else if (prevMoves_ > 0) {
            const double r = std::clamp(double(moves) / double(prevMoves_), 0.05, 0.95);
            const double left = std::ceil(std::log(double(moves)) / -std::log(r)) + 1.0;  // + the iteration with none
            total_ = int(std::min<double>(max_, it + std::max(1.0, left)));
        } else {
            total_ = std::min(max_, std::max(total_, it + 1));
        }
        prevMoves_ = moves;
    }
    /// Fraction of the phase done, `within` (0..1) into iteration `it`.
    double fraction(int it, double within) {
        const double f = std::min(1.0, (it - 1 + within) / std::max(1, total_));
        last_ = std::max(last_, std::min(f, done_ || it >= max_ ? 1.0 : 0.99));
        return last_;
    }

private:
    static constexpr int kGuess = 20;  ///< typical iterations to convergence on photographs (docs/dbs.md)
    int max_, total_;
    int64_t prevMoves_ = 0;
    double last_ = 0;
    bool done_ = false;
};

/// Runs DBS iterations on st until one accepts no move or maxIterations (one phase: one filter).
Status runDbsPhase(DbsState& st, const DbsParams& params, int bs, const RunControl& control, const PhaseProgress& where,
                   PhaseResult& out) {
    const int W = st.width(), H = st.height();
    UpdateMap map(W, H, st.filter().cppRadius);
    const uint8_t* fr = st.freeData();
    const int sG = st.strideG();
    double E = st.bookkeptError();
    int64_t totalMoves = 0;
    int it = 0;
    bool converged = false;
    const double n = double(W) * H;
    ConvergenceEstimate estimate(params.maxIterations);
    auto report = [&](int iteration, double within, int64_t moves, double err) {
        Progress p;
        p.fraction = where.lo + (where.hi - where.lo) * estimate.fraction(iteration, within);
        p.iteration = where.itBase + iteration;
        p.moves = where.movesBase + moves;
        p.error = err / n;
        p.stage = where.label + "iteration " + std::to_string(p.iteration) + ", " + std::to_string(p.moves) +
                  " moves accepted";
        control.report(p);
    };

    if (params.schedule == DbsSchedule::Sequential) {
        Visitor v(st, params.swaps);
        for (it = 1; it <= params.maxIterations; ++it) {
            int64_t moves = 0;
            double gain = 0;
            for (int y = 0; y < H; ++y) {
                if ((y & 15) == 0) {
                    if (control.cancelled()) return Status::cancelled();
                    if ((y & 255) == 0) report(it, double(y) / H, totalMoves + moves, E + gain);
                }
                const uint8_t* frow = fr + size_t(y + 1) * sG + 1;
                for (int x = 0; x < W; ++x) {
                    if (!frow[x]) continue;
                    if (params.updateMap && !map.active(y, x, it)) {
                        x |= UpdateMap::TS - 1;  // skip the rest of this tile
                        continue;
                    }
                    if (v.visit(y, x, gain) >= 0) {
                        ++moves;
                        map.mark(y, x, it);
                    }
                }
            }
            E += gain;
            totalMoves += moves;
            estimate.finished(it, moves);
            report(it, 1.0, totalMoves, E);
            if (moves == 0) {
                converged = true;
                break;
            }
        }
    } else {
        // Koge, Ito and Nakano, section 4 / Zhang and Allebach, Algorithm 1: blocks of side bs in four groups by
        // (row parity, column parity); blocks of one group are bs apart, more than the reach of c_pp, so they run
        // concurrently.
        const int bw = (W + bs - 1) / bs, bh = (H + bs - 1) / bs;
        std::vector<std::vector<std::pair<int, int>>> groups(4);
        for (int by = 0; by < bh; ++by)
            for (int bx = 0; bx < bw; ++bx) groups[size_t((by & 1) * 2 + (bx & 1))].push_back({by * bs, bx * bs});
        const int nGroups = int(groups.size());
        const int threads = threadsOrAll(control.threads);
        Visitor v(st, params.swaps);
        for (it = 1; it <= params.maxIterations; ++it) {
            std::atomic<int64_t> moves{0};
            double gain = 0;
            for (int gstep = 0; gstep < nGroups; ++gstep) {
                const int gi = gstep;
                if (control.cancelled()) return Status::cancelled();
                const auto& blocks = groups[size_t(gi)];
                std::atomic<size_t> next{0};
                std::vector<double> gains(size_t(threads), 0.0);
                auto worker = [&](int tid) {
                    int64_t local = 0;
                    for (;;) {
                        const size_t bi = next.fetch_add(1, std::memory_order_relaxed);
                        if (bi >= blocks.size() || control.cancelled()) break;
                        const int y0 = blocks[bi].first, x0 = blocks[bi].second;
                        const int y1 = std::min(H, y0 + bs), x1 = std::min(W, x0 + bs);
                        for (int y = y0; y < y1; ++y) {
                            const uint8_t* frow = fr + size_t(y + 1) * sG + 1;
                            for (int x = x0; x < x1; ++x) {
                                if (!frow[x]) continue;
                                if (params.updateMap && !map.active(y, x, it)) {
                                    x |= UpdateMap::TS - 1;
                                    continue;
                                }
                                if (v.visit(y, x, gains[size_t(tid)]) >= 0) {
                                    ++local;
                                    map.mark(y, x, it);
                                }
                            }
                        }
                    }
                    moves.fetch_add(local, std::memory_order_relaxed);
                };
                if (threads <= 1 || blocks.size() <= 1) {
                    worker(0);
                } else {
                    WorkerPool::shared().run(int(std::min<size_t>(size_t(threads), blocks.size())), worker);
                }
                for (double g : gains) gain += g;
                if (control.cancelled()) return Status::cancelled();
                if (gstep + 1 < nGroups) report(it, double(gstep + 1) / nGroups, totalMoves + moves.load(), E + gain);
            }
            E += gain;
            totalMoves += moves.load();
            estimate.finished(it, moves.load());
            report(it, 1.0, totalMoves, E);
            if (moves.load() == 0) {
                converged = true;
                break;
            }
        }
    }
    out.iterations = std::min(it, params.maxIterations);
    out.moves = totalMoves;
    out.converged = converged;
    return Status::ok();
}

}  // namespace

Status dbsPrepareFilters(const Plane8& src, const DbsParams& params, HvsFilter& filter, HvsFilter& warmFilter) {
    if (Status s = checkImageSize(src.width, src.height, 1); !s) return s;
    if (params.maxIterations < 1) return Status::error("DBS: max-iter must be at least 1");
    if (!(params.warmStart >= 0 && params.warmStart <= 1))
        return Status::error("DBS: warm-start factor must be between 0 (off) and 1");
    if (Status s = makeHvsFilter(params.hvs, filter); !s) return s;
    warmFilter = HvsFilter{};
    if (params.warmStart > 0)
        if (Status s = makeHvsFilter(dbsWarmStartHvs(params.hvs, params.warmStart), warmFilter); !s)
            return Status::error("DBS warm start: " + s.message());
    return Status::ok();
}

Status dbsHalftone(const Plane8& src, Plane8& dst, const DbsParams& params, const RunControl& control,
                   DbsStats* stats) {
    HvsFilter filter, warmFilter;
    if (Status s = dbsPrepareFilters(src, params, filter, warmFilter); !s) return s;
    const bool warm = params.warmStart > 0;
    int bs = params.blockSize;
    if (params.schedule == DbsSchedule::Blocks) {
        if (bs < 4 * filter.radius + 1)
            return Status::error("DBS block size " + std::to_string(bs) + " is smaller than the c_pp support " +
                                 std::to_string(4 * filter.radius + 1) + " (blocks must cover the filter)");
        bs = (bs + UpdateMap::TS - 1) / UpdateMap::TS * UpdateMap::TS;
    }
    Plane8 binary, freeMask;
    if (Status s = dbsStart(src, params, binary, freeMask); !s) return s;
    if (control.cancelled()) return Status::cancelled();
    // The warm-start phase takes a little more than half of the iterations on photographs (docs/performance.md).
    const double warmShare = warm ? 0.6 : 0.0;
    PhaseResult warmRes, res;
    double initialE = 0;
    if (warm) {
        // Phase 1: the narrower filter from the random start; its halftone is the start of phase 2.
        DbsState st;
        if (Status s = st.init(src, warmFilter, binary, freeMask); !s) return s;
        if (Status s = runDbsPhase(st, params, bs, control, {0.0, warmShare, 0, 0, "warm start, "}, warmRes); !s)
            return s;
        if (stats) initialE = dbsError(src, binary, filter);
        for (int y = 0; y < src.height; ++y)
            for (int x = 0; x < src.width; ++x) binary.at(y, x) = st.bit(y, x);
    }
    DbsState st;
    if (Status s = st.init(src, filter, binary, freeMask); !s) return s;
    if (!warm) initialE = st.bookkeptError() / (double(src.width) * src.height);
    if (Status s = runDbsPhase(st, params, bs, control, {warmShare, 1.0, warmRes.iterations, warmRes.moves, ""}, res);
        !s)
        return s;
    if (stats) {
        stats->iterations = warmRes.iterations + res.iterations;
        stats->warmIterations = warmRes.iterations;
        stats->moves = warmRes.moves + res.moves;
        stats->freePixels = 0;
        for (uint8_t v : freeMask.data) stats->freePixels += v ? 1 : 0;
        stats->initialError = initialE;
        stats->error = st.bookkeptError() / (double(src.width) * src.height);
        stats->converged = res.converged;
    }
    dst = st.output();
    return Status::ok();
}

}  // namespace halftone
