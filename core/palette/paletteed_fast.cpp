// Error diffusion to a colour palette (docs/spec.md section 4), the fast forms: the four sequential variants of
// Kasagi, Nakano and Ito, Table V (1), with the three channels interleaved, and the k-delay wavefront bands on
// several threads. Every form gives referencePaletteErrorDiffusion's indices bit for bit.
#include <algorithm>
#include <atomic>
#include <barrier>
#include <chrono>
#include <cstring>
#include <memory>
#include <thread>
#include <utility>

#include "core/palette/nearestcolor.h"
#include "core/ed/parallel_kernels.h"
#include "core/palette/paletteed.h"
#include "core/schedule/schedule.h"
#include "core/threads.h"
#include "core/workerpool.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define HALFTONE_PALETTE_X86 1
#endif

namespace halftone {

namespace {

/// Index of `k` in the compile-time kernel tables of core/ed/parallel_kernels.h, checked tap by tap; -1 when none.
int compiledKernel(const Kernel& k) {
    int id = -1;
    par::CKernel c{};
    [&]<int... I>(std::integer_sequence<int, I...>) {
        ((k.name == par::kKernelNames[I] ? (id = I, c = par::ckernel<I>(), 0) : 0), ...);
    }
    (std::make_integer_sequence<int, par::kKernelCount>());
    if (id < 0 || c.divisor != k.divisor || c.count != int(k.taps.size())) return -1;
    for (int i = 0; i < c.count; ++i)
        if (c.taps[i].di != k.taps[size_t(i)].di || c.taps[i].dj != k.taps[size_t(i)].dj ||
            c.taps[i].w != k.taps[size_t(i)].w)
            return -1;
    return id;
}

/// Calls f(std::integral_constant<int, KID>) for the compiled kernel `id`.
template <class F, int... I>
auto withKernelIdOf(int id, F& f, std::integer_sequence<int, I...>) {
    decltype(f(std::integral_constant<int, 0>{})) r{};
    (void)((id == I ? (r = f(std::integral_constant<int, I>{}), true) : false) || ...);
    return r;
}
template <class F>
auto withKernelId(int id, F&& f) {
    return withKernelIdOf(id, f, std::make_integer_sequence<int, par::kKernelCount>());
}

/// Calls f(tap) for every tap of kernel KID, unrolled, each tap a compile-time constant.
template <int KID, class F>
inline __attribute__((always_inline)) void forTaps(F&& f) {
    constexpr par::CKernel K = par::ckernel<KID>();
    [&]<int... I>(std::integer_sequence<int, I...>) { (f(std::integral_constant<int, I>{}), ...); }
    (std::make_integer_sequence<int, K.count>());
}

template <int KID, int I>
constexpr par::CTap tapOf() {
    return par::ckernel<KID>().taps[I];
}

/// floor((a + D/2) / D) for the kernel's divisor D: a shift when D is a power of two.
template <int KID>
inline int32_t divideSum(int32_t a) {
    constexpr int d = par::ckernel<KID>().divisor;
    if constexpr (par::isPow2(d))
        return (a + d / 2) >> par::log2i(d);
    else
        return floorDiv(a + d / 2, d);
}

template <int KID>
constexpr int marginOf() {
    constexpr par::CKernel K = par::ckernel<KID>();
    int m = 0;
    for (int i = 0; i < K.count; ++i) m = std::max(m, K.taps[i].dj < 0 ? -K.taps[i].dj : K.taps[i].dj);
    return m;
}

template <int KID>
constexpr int forwardOf() {
    constexpr par::CKernel K = par::ckernel<KID>();
    int m = 0;
    for (int i = 0; i < K.count; ++i)
        if (K.taps[i].di == 0) m = std::max(m, K.taps[i].dj);
    return m;
}

/// The per-pixel step of section 4 after the error sums: S = A + floor((acc + D/2) / D), clamp to [0, 4080], the
/// nearest colour, the error T - P_k.
struct Quantize {
    const int32_t* input;    ///< A for an 8-bit value
    const int32_t* targets;  ///< P_k, three per colour
    NearestColor* search;
    inline int operator()(const uint8_t a[3], const int32_t sum[3], int32_t e[3]) const {
        int32_t t[3];
        for (int c = 0; c < 3; ++c) t[c] = std::clamp(input[a[c]] + sum[c], 0, 4080);
        const int k = search->nearest(t[0], t[1], t[2]);
        const int32_t* p = targets + 3 * k;
        for (int c = 0; c < 3; ++c) e[c] = t[c] - p[c];
        return k;
    }
};

struct Job {
    const uint8_t* planes[3];  ///< R, G, B rows of width `width`
    int width, height;
    Plane8& dst;
    const EdParams& p;
    const RunControl& rc;
    Quantize q;
};

/// The three input rows of image row i.
struct InputRow {
    const uint8_t* __restrict ch[3];
    InputRow(const Job& c, int i) {
        for (int k = 0; k < 3; ++k) ch[k] = c.planes[k] + size_t(i) * size_t(c.width);
    }
    void at(int j, uint8_t a[3]) const {
        for (int k = 0; k < 3; ++k) a[k] = ch[k][j];
    }
};

inline int dirOf(const EdParams& p, int i) { return (p.serpentine && (i & 1)) ? -1 : 1; }

// ED (Kasagi, Nakano and Ito's ED), three channels: a full accumulator plane with margins, scatter to every receiver.
template <int KID>
Status diffusionPlain(const Job& c) {
    constexpr int m = marginOf<KID>(), rows = par::cmaxDi(par::ckernel<KID>());
    const int h = c.height, w = c.width;
    const ptrdiff_t stride = 3 * (ptrdiff_t(w) + 2 * m);
    std::vector<int32_t> acc(size_t(stride) * size_t(h + rows), 0);
    for (int i = 0; i < h; ++i) {
        if (c.rc.cancelled()) return Status::cancelled();
        const int dir = dirOf(c.p, i);
        uint8_t* __restrict out = c.dst.row(i);
        const InputRow in(c, i);
        const Quantize q = c.q;
        int32_t* base = acc.data() + ptrdiff_t(i) * stride + 3 * m;
        for (int n = 0; n < w; ++n) {
            const int j = dir > 0 ? n : w - 1 - n;
            uint8_t a[3];
            in.at(j, a);
            int32_t s[3], e[3];
            for (int ch = 0; ch < 3; ++ch) s[ch] = divideSum<KID>(base[3 * j + ch]);
            out[j] = uint8_t(q(a, s, e));
            forTaps<KID>([&](auto I) {
                constexpr par::CTap t = tapOf<KID, decltype(I)::value>();
                int32_t* r = base + t.di * stride + 3 * (j + dir * t.dj);
                for (int ch = 0; ch < 3; ++ch) r[ch] += t.w * e[ch];
            });
        }
        if ((i & 63) == 63) c.rc.report(double(i + 1) / h);
    }
    return Status::ok();
}

// EC (Kasagi, Nakano and Ito's EC), three channels: a full error plane with zero margins, gather from every source.
template <int KID>
Status collectionPlain(const Job& c) {
    constexpr int m = marginOf<KID>(), top = par::cmaxDi(par::ckernel<KID>());
    const int h = c.height, w = c.width;
    const ptrdiff_t stride = 3 * (ptrdiff_t(w) + 2 * m);
    std::vector<int32_t> err(size_t(stride) * size_t(h + top), 0);  // rows -top..-1 are zero
    for (int i = 0; i < h; ++i) {
        if (c.rc.cancelled()) return Status::cancelled();
        const int dir = dirOf(c.p, i);
        const int dirs[4] = {dir, dirOf(c.p, i - 1), dirOf(c.p, i - 2), dirOf(c.p, i - 3)};
        uint8_t* __restrict out = c.dst.row(i);
        const InputRow in(c, i);
        const Quantize q = c.q;
        int32_t* base = err.data() + ptrdiff_t(i + top) * stride + 3 * m;
        for (int n = 0; n < w; ++n) {
            const int j = dir > 0 ? n : w - 1 - n;
            int32_t s[3] = {0, 0, 0}, e[3];
            forTaps<KID>([&](auto I) {
                constexpr par::CTap t = tapOf<KID, decltype(I)::value>();
                const int32_t* q = base - t.di * stride + 3 * (j - dirs[t.di] * t.dj);
                for (int ch = 0; ch < 3; ++ch) s[ch] += t.w * q[ch];
            });
            for (int ch = 0; ch < 3; ++ch) s[ch] = divideSum<KID>(s[ch]);
            uint8_t a[3];
            in.at(j, a);
            out[j] = uint8_t(q(a, s, e));
            for (int ch = 0; ch < 3; ++ch) base[3 * j + ch] = e[ch];
        }
        if ((i & 63) == 63) c.rc.report(double(i + 1) / h);
    }
    return Status::ok();
}

// ED with register caching (Kasagi, Nakano and Ito, section III): same-row error travels in locals, rows below in
// O(width) ring buffers with margins.
template <int KID>
Status diffusionRegisters(const Job& c) {
    constexpr int rows = par::cmaxDi(par::ckernel<KID>()), fwd = forwardOf<KID>(), m = marginOf<KID>();
    const int h = c.height, w = c.width;
    const ptrdiff_t stride = 3 * (ptrdiff_t(w) + 2 * m);
    std::vector<int32_t> store(size_t(stride) * (rows + 1), 0);
    int32_t* ring[rows + 1];  // ring[r]: accumulators of image row i + r
    for (int r = 0; r <= rows; ++r) ring[r] = store.data() + r * stride + 3 * m;
    for (int i = 0; i < h; ++i) {
        if (c.rc.cancelled()) return Status::cancelled();
        const int dir = dirOf(c.p, i);
        uint8_t* __restrict out = c.dst.row(i);
        const InputRow in(c, i);
        const Quantize q = c.q;
        const int32_t* cur = ring[0];
        int32_t win[fwd + 1][3] = {};  // win[d-1]: same-row error arriving d pixels ahead in scan order
        for (int n = 0; n < w; ++n) {
            const int j = dir > 0 ? n : w - 1 - n;
            int32_t s[3], e[3];
            for (int ch = 0; ch < 3; ++ch) s[ch] = divideSum<KID>(cur[3 * j + ch] + win[0][ch]);
            uint8_t a[3];
            in.at(j, a);
            out[j] = uint8_t(q(a, s, e));
            for (int d = 0; d + 1 < fwd; ++d)
                for (int ch = 0; ch < 3; ++ch) win[d][ch] = win[d + 1][ch];
            for (int ch = 0; ch < 3; ++ch) win[fwd > 0 ? fwd - 1 : 0][ch] = 0;
            forTaps<KID>([&](auto I) {
                constexpr par::CTap t = tapOf<KID, decltype(I)::value>();
                if constexpr (t.di == 0) {
                    for (int ch = 0; ch < 3; ++ch) win[t.dj - 1][ch] += t.w * e[ch];
                } else {
                    int32_t* r = ring[t.di] + 3 * (j + dir * t.dj);
                    for (int ch = 0; ch < 3; ++ch) r[ch] += t.w * e[ch];
                }
            });
        }
        int32_t* done = ring[0];
        for (int r = 0; r < rows; ++r) ring[r] = ring[r + 1];
        ring[rows] = done;
        std::fill(done - 3 * m, done - 3 * m + stride, 0);
        if ((i & 63) == 63) c.rc.report(double(i + 1) / h);
    }
    return Status::ok();
}

// EC with register caching: the errors of the pixels just left behind in the row travel in locals, rows above in
// O(width) buffers with zero margins.
template <int KID>
Status collectionRegisters(const Job& c) {
    constexpr int rows = par::cmaxDi(par::ckernel<KID>()), back = forwardOf<KID>(), m = marginOf<KID>();
    const int h = c.height, w = c.width;
    const ptrdiff_t stride = 3 * (ptrdiff_t(w) + 2 * m);
    std::vector<int32_t> store(size_t(stride) * (rows + 1), 0);
    int32_t* hist[rows + 1];  // hist[0]: errors of row i being written; hist[r]: row i - r
    for (int r = 0; r <= rows; ++r) hist[r] = store.data() + r * stride + 3 * m;
    for (int i = 0; i < h; ++i) {
        if (c.rc.cancelled()) return Status::cancelled();
        const int dir = dirOf(c.p, i);
        const int dirs[4] = {dir, dirOf(c.p, i - 1), dirOf(c.p, i - 2), dirOf(c.p, i - 3)};
        uint8_t* __restrict out = c.dst.row(i);
        const InputRow in(c, i);
        const Quantize q = c.q;
        int32_t* cur = hist[0];
        int32_t win[back + 1][3] = {};  // win[d-1]: error of the pixel d steps back in scan order
        for (int n = 0; n < w; ++n) {
            const int j = dir > 0 ? n : w - 1 - n;
            int32_t s[3] = {0, 0, 0}, e[3];
            forTaps<KID>([&](auto I) {
                constexpr par::CTap t = tapOf<KID, decltype(I)::value>();
                const int32_t* q;
                if constexpr (t.di == 0)
                    q = win[t.dj - 1];
                else
                    q = hist[t.di] + 3 * (j - dirs[t.di] * t.dj);
                for (int ch = 0; ch < 3; ++ch) s[ch] += t.w * q[ch];
            });
            for (int ch = 0; ch < 3; ++ch) s[ch] = divideSum<KID>(s[ch]);
            uint8_t a[3];
            in.at(j, a);
            out[j] = uint8_t(q(a, s, e));
            for (int d = back; d > 0; --d)
                for (int ch = 0; ch < 3; ++ch) win[d][ch] = win[d - 1][ch];
            for (int ch = 0; ch < 3; ++ch) win[0][ch] = cur[3 * j + ch] = e[ch];
        }
        int32_t* last = hist[rows];
        for (int r = rows; r > 0; --r) hist[r] = hist[r - 1];
        hist[0] = last;
        if ((i & 63) == 63) c.rc.report(double(i + 1) / h);
    }
    return Status::ok();
}

Status prepare(const Image& rgb, const Palette& palette, Plane8& indices, const EdParams& params, int& kid) {
    const Kernel* kernel = findKernel(params.kernel);
    if (!kernel) return Status::error("unknown kernel '" + params.kernel + "'; known kernels: " + kernelNames());
    if (kernel->levelDependent())
        return Status::error("kernel '" + kernel->name +
                             "' takes its weights from a gray input level; palette error diffusion takes the fixed "
                             "kernels only");
    if (Status s = checkPalette(palette); !s) return s;
    if (rgb.channels.size() != 1 && rgb.channels.size() != 3)
        return Status::error("palette error diffusion needs a gray or RGB image, got " +
                             std::to_string(rgb.channels.size()) + " channels");
    for (const Plane8& p : rgb.channels)
        if (!p.sameSize(rgb.channels.front())) return Status::error("the image's channels differ in size");
    if (Status s = checkImageSize(rgb.width(), rgb.height(), 3, ~0ull); !s) return s;
    kid = compiledKernel(*kernel);
    if (kid < 0) return Status::error("kernel '" + kernel->name + "' has no compiled palette form");
    if (!indices.sameSize(rgb.channels.front())) indices = Plane8(rgb.width(), rgb.height());
    return Status::ok();
}

std::vector<int32_t> flatTargets(const PaletteTargets& pt) {
    std::vector<int32_t> v;
    for (const auto& t : pt.targets) v.insert(v.end(), t.begin(), t.end());
    return v;
}

const uint8_t* planeOf(const Image& rgb, int c) {
    return rgb.channels[rgb.channels.size() == 1 ? 0 : size_t(c)].data.data();
}

}  // namespace

Status paletteErrorDiffuse(const Image& rgb, const Palette& palette, Plane8& indices, const EdParams& params,
                           EdVariant variant, const RunControl& control, int searchShift) {
    int kid = -1;
    if (Status s = prepare(rgb, palette, indices, params, kid); !s) return s;
    const PaletteTargets pt(palette, params.linear, params.match);
    const std::vector<int32_t> targets = flatTargets(pt);
    NearestColor search(pt, searchShift);
    const Job job{
        {planeOf(rgb, 0), planeOf(rgb, 1), planeOf(rgb, 2)}, rgb.width(), rgb.height(), indices, params, control,
        Quantize{pt.input.data(), targets.data(), &search}};
    const Status st = withKernelId(kid, [&](auto k) {
        constexpr int K = decltype(k)::value;
        switch (variant) {
            case EdVariant::Diffusion:
                return diffusionPlain<K>(job);
            case EdVariant::Collection:
                return collectionPlain<K>(job);
            case EdVariant::DiffusionRegisters:
                return diffusionRegisters<K>(job);
            case EdVariant::CollectionRegisters:
                return collectionRegisters<K>(job);
        }
        return Status::error("unknown variant");
    });
    if (st) control.report(1.0);
    return st;
}

// ---------------------------------------------------------------------------------------------
// Wavefront bands (the schedule "wavefront" of core/schedule/schedule.h): thread t owns bands t, t + T, ...; inside a
// band of B rows, step s processes column s - k*r of band row r (Kasagi, Nakano and Ito's k-delay), and a band runs
// ahead as far as the progress counter of the band above allows (acquire/release, no barriers).

namespace {

inline void cpuRelax() {
#ifdef HALFTONE_PALETTE_X86
    _mm_pause();
#endif
}

struct WaveState {
    int width = 0, height = 0, bandRows = 0, delay = 0, maxLeft = 0, threads = 1, bands = 0, chunk = 64;
    std::unique_ptr<std::atomic<int64_t>[]> progress;  ///< steps done per band
    std::atomic<bool> abort{false};
    std::atomic<int64_t> bandsDone{0};
    std::atomic<int64_t> lastReportNs{0};
    std::chrono::steady_clock::time_point start;
    const RunControl* control = nullptr;

    void report() {
        if (!control->onProgress) return;
        const int64_t now =
            std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count();
        int64_t last = lastReportNs.load(std::memory_order_relaxed);
        if (now - last < 200'000'000) return;  // at most five reports a second
        if (!lastReportNs.compare_exchange_strong(last, now)) return;
        control->report(double(bandsDone.load(std::memory_order_relaxed)) / bands);
    }

    /// Waits until the band above has finished every pixel that steps [.., t1) of `band` read; false = cancelled.
    bool wait(int band, int64_t t1) {
        if (control->cancelled()) abort.store(true, std::memory_order_relaxed);
        if (abort.load(std::memory_order_relaxed)) return false;
        if (band == 0) return true;
        // row 0 reads row i0 - 1 up to column t1 - 1 + maxLeft; the band above finishes column x of its last row
        // at step x + k (bandRows - 1)
        const int64_t col = std::min<int64_t>(t1 - 1 + maxLeft, width - 1);
        const int64_t need = col + 1 + int64_t(delay) * (bandRows - 1);
        const std::atomic<int64_t>& above = progress[band - 1];
        int spins = 0;
        while (above.load(std::memory_order_acquire) < need) {
            if (abort.load(std::memory_order_relaxed)) return false;
            if (++spins < 256)
                cpuRelax();
            else
                std::this_thread::yield();
        }
        return true;
    }
};

/// One band of the wavefront. rowsAbove[-d] (d = 1..maxDi): error rows of image rows i0 - d; rows[r]: band row r.
/// Error rows are int16 with 3 channels interleaved and zero margins (|E| <= 4080 after the clamp).
template <int KID>
bool paletteBand(WaveState& ws, int band, const Job& c, int i0, int R, int16_t* const* rows) {
    constexpr par::CKernel K = par::ckernel<KID>();
    constexpr int k = par::cdelay(K);
    const int w = c.width;
    const int64_t total = w + int64_t(k) * (R - 1);
    uint8_t* __restrict out = c.dst.row(i0);
    const uint8_t* __restrict planes[3] = {c.planes[0], c.planes[1], c.planes[2]};
    const Quantize q = c.q;
    for (int64_t t0 = 0; t0 < total; t0 += ws.chunk) {
        const int64_t t1 = std::min<int64_t>(total, t0 + ws.chunk);
        if (!ws.wait(band, t1)) return false;
        for (int64_t t = t0; t < t1; ++t) {
            const int rlo = t >= w ? int((t - w + k) / k) : 0;
            const int rhi = int(std::min<int64_t>(R - 1, t / k));
            for (int r = rlo; r <= rhi; ++r) {
                const int j = int(t - int64_t(k) * r);
                int32_t s[3] = {0, 0, 0}, e[3];
                forTaps<KID>([&](auto I) {
                    constexpr par::CTap tp = tapOf<KID, decltype(I)::value>();
                    const int16_t* q = rows[r - tp.di] + 3 * (j - tp.dj);
                    for (int ch = 0; ch < 3; ++ch) s[ch] += tp.w * int32_t(q[ch]);
                });
                for (int ch = 0; ch < 3; ++ch) s[ch] = divideSum<KID>(s[ch]);
                uint8_t a[3];
                const size_t at = size_t(i0 + r) * size_t(w) + size_t(j);
                for (int ch = 0; ch < 3; ++ch) a[ch] = planes[ch][at];
                out[size_t(r) * size_t(w) + size_t(j)] = uint8_t(q(a, s, e));
                int16_t* dst = rows[r] + 3 * j;
                for (int ch = 0; ch < 3; ++ch) dst[ch] = int16_t(e[ch]);
            }
        }
        ws.progress[band].store(t1, std::memory_order_release);
        ws.report();
    }
    return true;
}

}  // namespace

Status wavefrontPaletteErrorDiffusion(const Image& rgb, const Palette& palette, Plane8& indices, const EdParams& params,
                                      const ParallelOptions& options, const RunControl& control) {
    int kid = -1;
    if (Status s = prepare(rgb, palette, indices, params, kid); !s) return s;
    // Serpentine: every row waits for the whole previous row (docs/spec.md section 1): no wavefront to run.
    if (params.serpentine)
        return paletteErrorDiffuse(rgb, palette, indices, params, EdVariant::CollectionRegisters, control);
    const Kernel& kernel = *findKernel(params.kernel);
    const int W = rgb.width(), H = rgb.height();
    const PaletteTargets pt(palette, params.linear, params.match);
    const std::vector<int32_t> targets = flatTargets(pt);

    WaveState ws;
    ws.width = W;
    ws.height = H;
    ws.bandRows = std::max(simdBandRows(options.simd), kernel.maxDi());
    ws.delay = kernel.minimalDelay();
    ws.maxLeft = kernel.maxDjLeft();
    ws.bands = (H + ws.bandRows - 1) / ws.bandRows;
    const int requested = options.threads > 0 ? options.threads : (control.threads > 0 ? control.threads : 0);
    ws.threads = std::clamp(requested > 0 ? requested : hardwareThreads(), 1, ws.bands);
    ws.progress = std::make_unique<std::atomic<int64_t>[]>(size_t(ws.bands));
    for (int b = 0; b < ws.bands; ++b) ws.progress[b].store(0);
    ws.control = &control;
    ws.start = std::chrono::steady_clock::now();
    ws.lastReportNs.store(-1'000'000'000);

    // Error rows: zero margins of m pixels either side. Each thread has bandRows rows of its own; the last maxDi
    // rows of band b go to hand-off slot b mod (T + 1), read by band b + 1. The slot's previous reader, band
    // b - T, ran before on this same thread, so no slot is overwritten while it is read.
    const int maxDi = kernel.maxDi();
    const int m = std::max(kernel.maxDjLeft(), kernel.maxDjRight());
    const size_t rowLen = 3 * (size_t(W) + 2 * size_t(m));
    const int slots = ws.threads + 1;
    std::vector<int16_t> handoff(size_t(slots) * size_t(maxDi) * rowLen, 0);
    std::vector<int16_t> zero(rowLen, 0);
    std::vector<int16_t> local(size_t(ws.threads) * size_t(ws.bandRows) * rowLen, 0);
    auto slotRow = [&](int band, int d) {  // d = 0: the band's last row
        return handoff.data() + (size_t(band % slots) * size_t(maxDi) + size_t(d)) * rowLen + 3 * size_t(m);
    };

    auto worker = [&](int tid) {
        NearestColor search(pt);
        const Job job{{planeOf(rgb, 0), planeOf(rgb, 1), planeOf(rgb, 2)}, W, H, indices, params, control,
                      Quantize{pt.input.data(), targets.data(), &search}};
        std::vector<int16_t*> rowTable(size_t(maxDi + ws.bandRows));
        int16_t** rows = rowTable.data() + maxDi;
        for (int b = tid; b < ws.bands; b += ws.threads) {
            const int i0 = b * ws.bandRows;
            const int R = std::min(ws.bandRows, H - i0);
            for (int d = 1; d <= maxDi; ++d) rows[-d] = b == 0 ? zero.data() + 3 * m : slotRow(b - 1, d - 1);
            for (int r = 0; r < R; ++r) {
                const int fromEnd = R - 1 - r;
                rows[r] = b + 1 < ws.bands && fromEnd < maxDi
                              ? slotRow(b, fromEnd)
                              : local.data() + (size_t(tid) * size_t(ws.bandRows) + size_t(r)) * rowLen + 3 * m;
            }
            const bool ok =
                withKernelId(kid, [&](auto k) { return paletteBand<decltype(k)::value>(ws, b, job, i0, R, rows); });
            if (!ok) {
                ws.abort.store(true);
                return;
            }
            ws.progress[b].store(INT64_MAX / 2, std::memory_order_release);
            ws.bandsDone.fetch_add(1, std::memory_order_relaxed);
        }
    };
    WorkerPool::shared().run(ws.threads, worker);
    if (ws.abort.load()) return Status::cancelled();
    control.report(1.0);
    return Status::ok();
}

// ---------------------------------------------------------------------------------------------
// Deshpande, Misra and Narayanan, section 3.2: trapezoid blocks in knight's-move order, one barrier per block
// diagonal, error collection in raster order inside a block (the schedule "trapezoid" of core/schedule/schedule.h).

namespace {

/// Error collection along row y, columns [x0, x1), raster order; `err(y)` gives the error row of image row y (three
/// channels interleaved, int16, zero margins and zero rows above the image).
template <int KID, class Rows>
void collectSegment(const Job& c, const Rows& err, int y, int x0, int x1) {
    const InputRow in(c, y);
    uint8_t* __restrict out = c.dst.row(y);
    const Quantize q = c.q;
    constexpr int top = par::cmaxDi(par::ckernel<KID>());
    int16_t* rows[4] = {err(y), top >= 1 ? err(y - 1) : nullptr, top >= 2 ? err(y - 2) : nullptr,
                        top >= 3 ? err(y - 3) : nullptr};
    for (int x = x0; x < x1; ++x) {
        int32_t s[3] = {0, 0, 0}, e[3];
        forTaps<KID>([&](auto I) {
            constexpr par::CTap tp = tapOf<KID, decltype(I)::value>();
            const int16_t* p = rows[tp.di] + 3 * (x - tp.dj);
            for (int ch = 0; ch < 3; ++ch) s[ch] += tp.w * int32_t(p[ch]);
        });
        for (int ch = 0; ch < 3; ++ch) s[ch] = divideSum<KID>(s[ch]);
        uint8_t a[3];
        in.at(x, a);
        out[x] = uint8_t(q(a, s, e));
        for (int ch = 0; ch < 3; ++ch) rows[0][3 * x + ch] = int16_t(e[ch]);
    }
}

}  // namespace

Status trapezoidPaletteErrorDiffusion(const Image& rgb, const Palette& palette, Plane8& indices, const EdParams& params,
                                      const ParallelOptions& options, const RunControl& control) {
    int kid = -1;
    if (Status s = prepare(rgb, palette, indices, params, kid); !s) return s;
    if (params.serpentine)
        return paletteErrorDiffuse(rgb, palette, indices, params, EdVariant::CollectionRegisters, control);
    const Kernel& kernel = *findKernel(params.kernel);
    const int W = rgb.width(), H = rgb.height();
    const int requested = options.threads > 0 ? options.threads : (control.threads > 0 ? control.threads : 0);
    const int threads = std::max(1, requested > 0 ? requested : hardwareThreads());
    ScheduleOptions so;
    so.threads = threads;
    so.blockWidth = options.blockWidth;
    so.blockHeight = options.blockHeight;
    SchedulePlan plan;
    if (Status s = planSchedule("trapezoid", W, H, kernel, so, plan); !s) return s;
    const BlockGeometry& g = plan.geometry;
    const PaletteTargets pt(palette, params.linear, params.match);
    const std::vector<int32_t> targets = flatTargets(pt);

    // the full error plane: maxDi zero rows on top, m zero columns either side
    const int top = kernel.maxDi(), m = std::max(kernel.maxDjLeft(), kernel.maxDjRight());
    const size_t rowLen = 3 * (size_t(W) + 2 * size_t(m));
    std::vector<int16_t> plane(rowLen * (size_t(H) + size_t(top)), 0);
    const auto errRow = [&](int y) { return plane.data() + size_t(y + top) * rowLen + 3 * size_t(m); };

    std::vector<std::vector<std::pair<int, int>>> stepBlocks(size_t(plan.steps));
    int64_t maxPar = 1;
    for (size_t s = 0; s < stepBlocks.size(); ++s) {
        const int label = plan.stepLabel[s];
        for (int I = 0; I < g.strips; ++I) {
            const int J = label - g.stripOffset * I;
            if (J < 0) break;
            if (J < g.blocksPerStrip && blockNonEmpty(g, I, J, W, H)) stepBlocks[s].emplace_back(I, J);
        }
        maxPar = std::max<int64_t>(maxPar, int64_t(stepBlocks[s].size()));
    }
    const int nt = int(std::min<int64_t>(threads, maxPar));

    std::atomic<bool> stop{false};
    std::atomic<size_t> next{0};
    size_t step = 0;
    auto onPhase = [&]() noexcept {
        ++step;
        next.store(0, std::memory_order_relaxed);
        if (control.cancelled()) stop.store(true);
        if ((step & 255) == 0) control.report(double(step) / double(std::max<int64_t>(1, plan.steps)));
    };
    std::barrier sync(nt, onPhase);
    WorkerPool::shared().run(nt, [&](int) {
        NearestColor search(pt);
        const Job job{{planeOf(rgb, 0), planeOf(rgb, 1), planeOf(rgb, 2)}, W, H, indices, params, control,
                      Quantize{pt.input.data(), targets.data(), &search}};
        for (size_t s = 0; s < stepBlocks.size(); ++s) {
            if (stop.load(std::memory_order_relaxed)) {
                sync.arrive_and_drop();
                return;
            }
            const auto& blocks = stepBlocks[s];
            for (size_t b = next.fetch_add(1); b < blocks.size(); b = next.fetch_add(1)) {
                const auto [I, J] = blocks[b];
                const int y0 = I * g.blockHeight, y1 = std::min(H, y0 + g.blockHeight);
                for (int y = y0; y < y1; ++y) {
                    const int64_t c0 = g.columnBegin(J, y - y0);
                    const int x0 = int(std::max<int64_t>(0, c0));
                    const int x1 = int(std::min<int64_t>(W, c0 + g.blockWidth));
                    if (x0 < x1)
                        withKernelId(kid, [&](auto k) {
                            collectSegment<decltype(k)::value>(job, errRow, y, x0, x1);
                            return 0;
                        });
                }
            }
            sync.arrive_and_wait();
        }
    });
    if (stop.load()) return Status::cancelled();
    control.report(1.0);
    return Status::ok();
}

}  // namespace halftone
