// Parallel exact error collection on the CPU: Deshpande, Misra and Narayanan's trapezoid blocks and this
// implementation's wavefront bands, both driven by the schedule model of core/schedule/schedule.h.
#include "core/ed/parallel.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <barrier>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>

#include "core/palette/paletteed.h"
#include "core/ed/parallel_kernels.h"
#include "core/ed/quantizer.h"
#include "core/job/registry.h"
#include "core/schedule/schedule.h"
#include "core/ed/simd_wavefront.h"
#include "core/threads.h"
#include "core/ed/varkerneltable.h"
#include "core/workerpool.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define HALFTONE_X86 1
#endif

namespace halftone {

namespace {

inline void cpuRelax() {
#ifdef HALFTONE_X86
    _mm_pause();
#endif
}

/// Index of `k` in the compile-time kernel tables, checked tap by tap; -1 when it does not match.
int kernelId(const Kernel& k) {
    for (int id = 0; id < par::kKernelCount; ++id) {
        if (k.name != par::kKernelNames[id]) continue;
        const kerneltable::KernelDef& c = kerneltable::kKernels[id];
        if (c.divisor != k.divisor || c.count != int(k.taps.size())) return -1;
        for (int i = 0; i < c.count; ++i)
            if (c.taps[i].di != k.taps[size_t(i)].di || c.taps[i].dj != k.taps[size_t(i)].dj ||
                c.taps[i].w != k.taps[size_t(i)].w)
                return -1;
        return id;
    }
    return -1;
}

/// lut[s] = Q_k | (v_k << 16) for the level k nearest to s, s in [0, 4080]; S outside that range
/// takes level 0 or L-1 (t_0 >= 0 and t_{L-2} < 4080), so clamping S first is exact.
std::vector<int32_t> levelLut(const Quantizer& q) {
    std::vector<int32_t> lut(4081);
    for (int s = 0; s <= 4080; ++s) {
        const int k = q.level(s);
        lut[size_t(s)] = q.targets()[size_t(k)] | (int32_t(q.values()[size_t(k)]) << 16);
    }
    return lut;
}

// The band kernels' compiled copies of the level-dependent kernels (core/ed/parallel_kernels.h) are the SPEC's.
static_assert(par::kVarKernelCount == varkerneltable::kVarCount);
static_assert(par::kVarDivisor == varkerneltable::kDivisor);
static_assert(!par::kVarModulated[0] && !varkerneltable::kVarKernels[0].modulated);
static_assert(par::kVarModulated[1] && varkerneltable::kVarKernels[1].modulated);
static_assert(par::kVarTaps[0].di == varkerneltable::kTapDi[0] && par::kVarTaps[0].dj == varkerneltable::kTapDj[0] &&
              par::kVarTaps[1].di == varkerneltable::kTapDi[1] && par::kVarTaps[1].dj == varkerneltable::kTapDj[1] &&
              par::kVarTaps[2].di == varkerneltable::kTapDi[2] && par::kVarTaps[2].dj == varkerneltable::kTapDj[2]);

/// Index of a level-dependent kernel in core/ed/varkerneltable.h; -1 for a fixed kernel.
int varKernelId(const Kernel& k) {
    for (int id = 0; id < varkerneltable::kVarCount; ++id)
        if (k.levelTable == &varkerneltable::kVarKernels[id]) return id;
    return -1;
}

/// Z(a) of Zhou and Fang's threshold modulation for L levels (docs/spec.md section 1); zeros without modulation.
std::array<int32_t, 256> modulationScales(const Kernel& k, int levels) {
    std::array<int32_t, 256> z{};
    for (int a = 0; a < 256; ++a) z[size_t(a)] = varkerneltable::modulationScale(k.strength(uint8_t(a)), levels);
    return z;
}

/// kid: the compiled fixed kernel (0 .. kKernelCount-1) or kKernelCount + the level-dependent kernel's index.
Status prepare(const Plane8& src, Plane8& dst, const EdParams& params, const Kernel*& kernel, int& kid) {
    if (Status s = validateEdParams(params, kernel); !s) return s;
    if (Status s = checkImageSize(src.width, src.height, 1, ~0ull); !s) return s;
    kid = kernel->levelDependent() ? par::kKernelCount + varKernelId(*kernel) : kernelId(*kernel);
    if (kid < 0) return Status::error("kernel '" + kernel->name + "' has no parallel implementation");
    if (!dst.sameSize(src)) dst = Plane8(src.width, src.height);
    return Status::ok();
}

// ---------------------------------------------------------------------------------------------
// Deshpande, Misra and Narayanan, section 3.2: trapezoid blocks, knight's-move block order, one barrier per diagonal.

/// Error plane with zero margins (maxDi rows on top, m columns either side): 16-bit is enough
/// because |E| <= 2040 always (the rounded error sum never exceeds the largest earlier |E|, and a
/// sum inside [0, 4080] is at most half a level gap from its target).
struct ErrorPlane16 {
    int stride = 0, top = 0, margin = 0;
    std::vector<int16_t> data;
    ErrorPlane16(int w, int h, int top_, int margin_)
        : stride(w + 2 * margin_), top(top_), margin(margin_), data(size_t(h + top_) * size_t(w + 2 * margin_), 0) {}
    int16_t* row(int y) { return data.data() + size_t(y + top) * size_t(stride) + size_t(margin); }
};

template <int KID>
void collectSegment(const Plane8& src, Plane8& dst, ErrorPlane16& err, int y, int x0, int x1, const Quantizer& q,
                    const int32_t* lut) {
    constexpr par::CKernel K = par::ckernel<KID>();
    constexpr int D = K.divisor;
    const uint8_t* in = src.row(y);
    uint8_t* out = dst.row(y);
    int16_t* rows[4] = {err.row(y), err.top >= 1 ? err.row(y - 1) : nullptr, err.top >= 2 ? err.row(y - 2) : nullptr,
                        err.top >= 3 ? err.row(y - 3) : nullptr};
    const bool binary = q.levels() == 2;
    const int32_t t0 = q.thresholds()[0];
    const int32_t q1 = q.targets()[1];
    const uint8_t v1 = q.values()[1];
    for (int x = x0; x < x1; ++x) {
        int32_t acc = 0;
        [&]<int... I>(std::integer_sequence<int, I...>) {
            ((acc += K.taps[I].w * int32_t(rows[K.taps[I].di][x - K.taps[I].dj])), ...);
        }
        (std::make_integer_sequence<int, K.count>());
        const int32_t s = q.input(in[x]) + floorDiv(acc + D / 2, D);
        int32_t e;
        if (binary) {
            const bool on = s > t0;
            out[x] = on ? v1 : q.values()[0];
            e = on ? s - q1 : s - q.targets()[0];
        } else {
            const int32_t ent = lut[std::clamp(s, 0, 4080)];
            out[x] = uint8_t(ent >> 16);
            e = s - (ent & 0xFFFF);
        }
        rows[0][x] = int16_t(e);
    }
}

/// The same for a level-dependent kernel (docs/spec.md section 1): each tap's weight is the sending pixel's, looked up
/// by its input byte; Zhou and Fang's perturbation P moves the level choice, not the error.
struct VarSegment {
    const varkerneltable::VarKernelDef* def;
    const int32_t* modScale;  ///< Z(a)
    uint32_t seed;
};

template <bool Modulated>
void collectSegmentVar(const Plane8& src, Plane8& dst, ErrorPlane16& err, int y, int x0, int x1, const Quantizer& q,
                       const int32_t* lut, const VarSegment& vs) {
    static_assert(varkerneltable::kTapDi[0] == 0 && varkerneltable::kTapDj[0] == 1 && varkerneltable::kTapDj[1] == -1 &&
                  varkerneltable::kTapDj[2] == 0);
    constexpr int sh = varkerneltable::kShift;
    const int W = src.width;
    const uint8_t* in = src.row(y);
    const uint8_t* up = src.row(y > 0 ? y - 1 : 0);  // row -1 has zero errors: any bytes do
    uint8_t* out = dst.row(y);
    int16_t* cur = err.row(y);
    const int16_t* prev = err.row(y - 1);  // the top margin row is zero
    const varkerneltable::LevelWeights* w = vs.def->w;
    const bool binary = q.levels() == 2;
    const int32_t t0 = q.thresholds()[0];
    for (int x = x0; x < x1; ++x) {
        const int32_t acc = w[in[x > 0 ? x - 1 : 0]].right * int32_t(cur[x - 1]) +
                            w[up[x + 1 < W ? x + 1 : x]].downLeft * int32_t(prev[x + 1]) +
                            w[up[x]].down * int32_t(prev[x]);
        const int32_t s = q.input(in[x]) + ((acc + (1 << (sh - 1))) >> sh);
        int32_t decide = s;
        if constexpr (Modulated)
            decide -= varkerneltable::perturbation(varkerneltable::noiseU(uint32_t(y), uint32_t(x), vs.seed),
                                                   vs.modScale[in[x]]);
        int32_t e;
        if (binary) {
            const bool on = decide > t0;
            out[x] = on ? q.values()[1] : q.values()[0];
            e = s - q.targets()[on ? 1 : 0];
        } else {
            const int32_t ent = lut[std::clamp(decide, 0, 4080)];
            out[x] = uint8_t(ent >> 16);
            e = s - (ent & 0xFFFF);
        }
        cur[x] = int16_t(e);  // |E| <= 4072 (docs/spec.md section 1)
    }
}

using SegmentFn = void (*)(const Plane8&, Plane8&, ErrorPlane16&, int, int, int, const Quantizer&, const int32_t*);
template <int... I>
constexpr std::array<SegmentFn, sizeof...(I)> segmentTable(std::integer_sequence<int, I...>) {
    return {collectSegment<I>...};
}
constexpr std::array<SegmentFn, par::kKernelCount> kSegment =
    segmentTable(std::make_integer_sequence<int, par::kKernelCount>());

Status sequentialFallback(const Plane8& src, Plane8& dst, const EdParams& params, const RunControl& control) {
    // Serpentine: every row waits for the whole previous row (docs/spec.md section 1), so there is no
    // wavefront to run in parallel; the sequential error collection with register caching runs.
    return errorDiffuse(src, dst, params, EdVariant::CollectionRegisters, control);
}

int threadsFor(const ParallelOptions& o, const RunControl& rc) {
    int t = o.threads > 0 ? o.threads : (rc.threads > 0 ? rc.threads : hardwareThreads());
    return std::max(1, t);
}

}  // namespace

Status trapezoidErrorDiffusion(const Plane8& src, Plane8& dst, const EdParams& params, const ParallelOptions& options,
                               const RunControl& control) {
    const Kernel* kernel = nullptr;
    int kid = -1;
    if (Status s = prepare(src, dst, params, kernel, kid); !s) return s;
    if (params.serpentine) return sequentialFallback(src, dst, params, control);
    const int W = src.width, H = src.height;
    const int threads = threadsFor(options, control);
    ScheduleOptions so;
    so.threads = threads;
    so.blockWidth = options.blockWidth;
    so.blockHeight = options.blockHeight;
    SchedulePlan plan;
    if (Status s = planSchedule("trapezoid", W, H, *kernel, so, plan); !s) return s;
    const BlockGeometry& g = plan.geometry;
    const Quantizer q(params.levels, params.linear);
    const std::vector<int32_t> lut = levelLut(q);
    ErrorPlane16 err(W, H, kernel->maxDi(), std::max(kernel->maxDjLeft(), kernel->maxDjRight()));
    const bool var = kid >= par::kKernelCount;
    const SegmentFn seg = var ? nullptr : kSegment[kid];
    const std::array<int32_t, 256> modScale = modulationScales(*kernel, params.levels);
    const VarSegment vs{kernel->levelTable, modScale.data(), params.seed};
    const bool modulated = kernel->modulated();

    // blocks of each step, from the plan
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

    auto runBlock = [&](int I, int J) {
        const int y0 = I * g.blockHeight, y1 = std::min(H, y0 + g.blockHeight);
        for (int y = y0; y < y1; ++y) {
            const int64_t c0 = g.columnBegin(J, y - y0);
            const int x0 = int(std::max<int64_t>(0, c0));
            const int x1 = int(std::min<int64_t>(W, c0 + g.blockWidth));
            if (x0 >= x1) continue;
            if (!var)
                seg(src, dst, err, y, x0, x1, q, lut.data());
            else if (modulated)
                collectSegmentVar<true>(src, dst, err, y, x0, x1, q, lut.data(), vs);
            else
                collectSegmentVar<false>(src, dst, err, y, x0, x1, q, lut.data(), vs);
        }
    };

    std::atomic<bool> stop{false};
    std::atomic<size_t> next{0};
    auto lastReport = std::chrono::steady_clock::now() - std::chrono::seconds(1);  // first phase reports
    // completion step after each barrier: reset the block counter, report progress, check cancel
    size_t step = 0;
    auto onPhase = [&]() noexcept {
        ++step;
        next.store(0, std::memory_order_relaxed);
        if (control.cancelled()) stop.store(true);
        const auto now = std::chrono::steady_clock::now();
        if (control.onProgress && now - lastReport > std::chrono::milliseconds(200)) {
            lastReport = now;
            Progress p;
            p.fraction = double(step) / double(std::max<int64_t>(1, plan.steps));
            // strips whose last block has run are complete
            int done = 0;
            const int label = step < plan.stepLabel.size() ? plan.stepLabel[step] : INT32_MAX;
            while (done < g.strips && g.label(done, g.blocksPerStrip - 1) < label) ++done;
            p.rowsDone = std::min<int64_t>(H, int64_t(done) * g.blockHeight);
            control.report(p);
        }
    };
    std::barrier sync(nt, onPhase);
    auto worker = [&]() {
        for (size_t s = 0; s < stepBlocks.size(); ++s) {
            if (stop.load(std::memory_order_relaxed)) {
                sync.arrive_and_drop();
                return;
            }
            const auto& blocks = stepBlocks[s];
            for (size_t b = next.fetch_add(1); b < blocks.size(); b = next.fetch_add(1))
                runBlock(blocks[b].first, blocks[b].second);
            sync.arrive_and_wait();
        }
    };
    WorkerPool::shared().run(nt, [&](int) { worker(); });
    if (stop.load()) return Status::cancelled();
    control.report(1.0);
    return Status::ok();
}

// ---------------------------------------------------------------------------------------------
// SIMD path selection

const char* toString(SimdPath p) {
    switch (p) {
        case SimdPath::Auto:
            return "auto";
        case SimdPath::Avx512:
            return "avx512";
        case SimdPath::Avx2:
            return "avx2";
        case SimdPath::Sse:
            return "sse";
        case SimdPath::Scalar:
            return "scalar";
    }
    return "auto";
}

bool parseSimdPath(const std::string& s, SimdPath& out) {
    for (SimdPath p : {SimdPath::Auto, SimdPath::Avx512, SimdPath::Avx2, SimdPath::Sse, SimdPath::Scalar})
        if (s == toString(p)) {
            out = p;
            return true;
        }
    return false;
}

bool simdPathSupported(SimdPath p) {
#ifdef HALFTONE_X86
    __builtin_cpu_init();
    switch (p) {
        case SimdPath::Avx512:
            return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
        case SimdPath::Avx2:
            return __builtin_cpu_supports("avx2");
        case SimdPath::Sse:
            return __builtin_cpu_supports("sse4.1");
        default:
            return true;
    }
#else
    return p == SimdPath::Auto || p == SimdPath::Scalar;
#endif
}

std::vector<SimdPath> supportedSimdPaths() {
    std::vector<SimdPath> v;
    for (SimdPath p : {SimdPath::Avx512, SimdPath::Avx2, SimdPath::Sse, SimdPath::Scalar})
        if (simdPathSupported(p)) v.push_back(p);
    return v;
}

Status resolveSimdPath(SimdPath requested, SimdPath& out) {
    SimdPath p = requested;
    if (p == SimdPath::Auto) {
        if (const char* env = std::getenv("HALFTONE_SIMD"); env && *env) {
            if (!parseSimdPath(env, p))
                return Status::error(std::string("HALFTONE_SIMD='") + env +
                                     "' is not one of avx512, avx2, sse, scalar, auto");
        }
    }
    if (p == SimdPath::Auto) p = supportedSimdPaths().front();
    if (!simdPathSupported(p))
        return Status::error(std::string("this processor cannot run the ") + toString(p) + " path; supported: " + [] {
            std::string s;
            for (SimdPath q : supportedSimdPaths()) s += (s.empty() ? "" : ", ") + std::string(toString(q));
            return s;
        }());
    out = p;
    return Status::ok();
}

#ifdef HALFTONE_X86
static const par::SimdPathInfo& pathInfo(SimdPath p) {
    switch (p) {
        case SimdPath::Avx512:
            return par::simdPathAvx512();
        case SimdPath::Avx2:
            return par::simdPathAvx2();
        case SimdPath::Sse:
            return par::simdPathSse();
        default:
            return par::simdPathScalar();
    }
}
#else
static const par::SimdPathInfo& pathInfo(SimdPath) { return par::simdPathScalar(); }
#endif

int simdBandRows(SimdPath p) {
    SimdPath r = p;
    if (p == SimdPath::Auto && !resolveSimdPath(p, r)) r = SimdPath::Scalar;
    return pathInfo(r).bandRows;
}

// ---------------------------------------------------------------------------------------------
// Wavefront bands: each thread owns bands of rows and runs a SIMD k-delay wavefront inside each

namespace {

struct WaveShared {
    int width = 0, height = 0, bandRows = 0, delay = 0, maxLeft = 0, threads = 1, bands = 0;
    int64_t total = 0;  ///< steps of one band (rounded up to 16)
    std::unique_ptr<std::atomic<int64_t>[]> progress;
    std::atomic<bool> abort{false};
    const RunControl* control = nullptr;
    std::atomic<int64_t> lastReportNs{0};
    std::chrono::steady_clock::time_point start;

    void report() {
        if (!control->onProgress) return;
        const int64_t now =
            std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count();
        int64_t last = lastReportNs.load(std::memory_order_relaxed);
        if (now - last < 200'000'000) return;  // at most five reports a second
        if (!lastReportNs.compare_exchange_strong(last, now)) return;
        Progress p;
        int64_t sum = 0;
        int first = bands;
        for (int b = 0; b < bands; ++b) {
            const int64_t v = std::min(progress[b].load(std::memory_order_relaxed), total);
            sum += v;
            if (v < total && first == bands) first = b;
        }
        p.fraction = double(sum) / (double(total) * bands);
        p.rowsDone = std::min<int64_t>(height, int64_t(first) * bandRows);
        for (int b = first; b < std::min(bands, first + threads); ++b) {
            const int64_t v = std::min(progress[b].load(std::memory_order_relaxed), total);
            for (int r = 0; r < bandRows && int64_t(b) * bandRows + r < height; ++r)
                p.frontier.push_back(int32_t(std::clamp<int64_t>(v - int64_t(delay) * r, 0, width)));
        }
        control->report(p);
    }
};

struct WaveCtx {
    WaveShared* sh;
    int band;
};

bool waveWait(void* c, int64_t t1) {
    auto* ctx = static_cast<WaveCtx*>(c);
    WaveShared& sh = *ctx->sh;
    if (sh.control->cancelled()) sh.abort.store(true, std::memory_order_relaxed);
    if (sh.abort.load(std::memory_order_relaxed)) return false;
    if (ctx->band > 0) {
        // lane 0 reads row i0-1 up to column t1-1+maxLeft; the band above finishes column c of its
        // last row at step c + k*(bandRows-1)
        const int64_t col = std::min<int64_t>(t1 - 1 + sh.maxLeft, sh.width - 1);
        const int64_t need = col + 1 + int64_t(sh.delay) * (sh.bandRows - 1);
        const std::atomic<int64_t>& above = sh.progress[ctx->band - 1];
        int spins = 0;
        while (above.load(std::memory_order_acquire) < need) {
            if (sh.abort.load(std::memory_order_relaxed)) return false;
            if (++spins < 256)
                cpuRelax();
            else
                std::this_thread::yield();
        }
    }
    sh.report();
    return true;
}

void wavePublish(void* c, int64_t t1) {
    auto* ctx = static_cast<WaveCtx*>(c);
    ctx->sh->progress[ctx->band].store(t1, std::memory_order_release);
}

}  // namespace

Status wavefrontErrorDiffusion(const Plane8& src, Plane8& dst, const EdParams& params, const ParallelOptions& options,
                               const RunControl& control) {
    const Kernel* kernel = nullptr;
    int kid = -1;
    if (Status s = prepare(src, dst, params, kernel, kid); !s) return s;
    if (params.serpentine) return sequentialFallback(src, dst, params, control);
    SimdPath simd;
    if (Status s = resolveSimdPath(options.simd, simd); !s) return s;
    const par::SimdPathInfo& path = pathInfo(simd);
    const int W = src.width, H = src.height;
    const Quantizer q(params.levels, params.linear);
    const std::vector<int32_t> lut = levelLut(q);

    WaveShared sh;
    sh.width = W;
    sh.height = H;
    sh.bandRows = path.bandRows;
    sh.delay = kernel->minimalDelay();
    sh.maxLeft = kernel->maxDjLeft();
    sh.bands = (H + path.bandRows - 1) / path.bandRows;
    sh.threads = std::min(threadsFor(options, control), sh.bands);
    sh.total = (int64_t(W) + int64_t(sh.delay) * (path.bandRows - 1) + 15) / 16 * 16;
    sh.progress = std::make_unique<std::atomic<int64_t>[]>(size_t(sh.bands));
    for (int b = 0; b < sh.bands; ++b) sh.progress[b].store(0);
    sh.control = &control;
    sh.start = std::chrono::steady_clock::now();
    sh.lastReportNs.store(-1'000'000'000);

    // error rows handed from band to band: threads + 1 slots of maxDi rows (band b writes slot
    // b mod S; its reader b+1 and the next writer b+S... the slot's previous reader b-T ran on this
    // same thread before, so no slot is overwritten while read)
    const int maxDi = kernel->maxDi();
    const int slots = sh.threads + 1;
    std::vector<int32_t> errRows(size_t(slots) * size_t(maxDi) * size_t(W), 0);
    auto slotRow = [&](int band, int d) {
        return errRows.data() + (size_t(band % slots) * maxDi + size_t(d)) * size_t(W);
    };

    par::BandJob base;
    base.width = W;
    base.srcStride = W;
    base.dstStride = W;
    base.binary = q.levels() == 2;
    base.gammaInput = !q.linear();
    base.inputTable = q.inputTable().data();
    base.threshold0 = q.thresholds()[0];
    base.binaryTarget1 = q.targets()[1];
    base.binaryValue1 = q.values()[1];
    base.levelLut = lut.data();
    // level-dependent kernels: the packed weights of each input level and the modulation scales
    std::array<int32_t, 256> varWeights{};
    const std::array<int32_t, 256> modScale = modulationScales(*kernel, params.levels);
    if (kernel->levelDependent())
        for (int a = 0; a < 256; ++a) {
            const varkerneltable::LevelWeights& lw = kernel->levelTable->w[a];
            varWeights[size_t(a)] = lw.right | (lw.downLeft << 16);
        }
    base.varWeights = varWeights.data();
    base.modScale = modScale.data();
    base.seed = params.seed;
    base.wait = &waveWait;
    base.publish = &wavePublish;
    const par::BandFn fn = kid >= par::kKernelCount ? path.varKernels[kid - par::kKernelCount] : path.kernels[kid];

    auto worker = [&](int tid) {
        for (int b = tid; b < sh.bands; b += sh.threads) {
            WaveCtx ctx{&sh, b};
            par::BandJob job = base;
            const int i0 = b * sh.bandRows;
            job.rows = std::min(sh.bandRows, H - i0);
            job.src = src.row(i0);
            job.dst = dst.row(i0);
            job.firstRow = i0;
            for (int d = 0; d < par::kMaxBandDi && d < maxDi; ++d) {
                if (b > 0 && i0 - 1 - d >= 0) job.prevErr[d] = slotRow(b - 1, d);
                if (b + 1 < sh.bands) job.nextErr[d] = slotRow(b, d);
            }
            job.ctx = &ctx;
            if (!fn(job)) {
                sh.abort.store(true);
                return;
            }
            sh.progress[b].store(INT64_MAX / 2, std::memory_order_release);
        }
    };
    WorkerPool::shared().run(sh.threads, worker);
    if (sh.abort.load()) return Status::cancelled();
    control.report(1.0);
    return Status::ok();
}

// ---------------------------------------------------------------------------------------------
// Registry

namespace {

ParamSpec threadsSpec() {
    return intParam("threads", "Threads", 0, 1024, 0, "worker threads (0 = all hardware threads)");
}

ParamSpec simdSpec() {
    return choiceParam("simd", "Vector instructions", {"auto", "avx512", "avx2", "sse", "scalar"}, 0,
                       "vector instructions to use (auto = the fastest this processor has, or the HALFTONE_SIMD "
                       "environment variable)");
}

}  // namespace

void registerParallelMethods(Registry& r) {
    MethodInfo t;
    t.method = "ec";
    t.variant = "trapezoid";
    t.family = "error-diffusion";
    t.description =
        "Error collection on all CPU cores: the image is cut into slanted blocks that are processed in "
        "waves, all threads waiting for each other between waves (Deshpande, Misra and Narayanan's "
        "multicore method). Serpentine scans run on one thread.";
    t.params = edParamSpecs();
    t.params.push_back(threadsSpec());
    t.schedule = "trapezoid";
    t.cpuInPlace = edRunsInPlace;
    t.cpu = [](const Plane8& src, Plane8& dst, const ParamValues& v, const RunControl& rc) {
        ParallelOptions o;
        o.threads = int(v.getInt("threads", 0));
        return trapezoidErrorDiffusion(src, dst, edParamsFrom(v), o, rc);
    };
    t.paletteCpu = [](const Image& rgb, const Palette& palette, Plane8& indices, const ParamValues& v,
                      const RunControl& rc) {
        ParallelOptions o;
        o.threads = int(v.getInt("threads", 0));
        return trapezoidPaletteErrorDiffusion(rgb, palette, indices, edParamsFrom(v), o, rc);
    };
    r.add(std::move(t));

    MethodInfo w;
    w.method = "ec";
    w.variant = "wavefront";
    w.family = "error-diffusion";
    w.description =
        "Error collection as a wavefront, each row a few pixels behind the row above: the fastest method. "
        "On the CPU each thread owns bands of rows and works several rows at once with vector "
        "instructions; on the GPU the whole image runs in one launch. Serpentine scans run on one thread.";
    w.params = edParamSpecs();
    w.params.push_back(threadsSpec());
    w.params.push_back(simdSpec());
    w.schedule = "wavefront";
    w.cpuInPlace = edRunsInPlace;
    w.cpu = [](const Plane8& src, Plane8& dst, const ParamValues& v, const RunControl& rc) {
        ParallelOptions o;
        o.threads = int(v.getInt("threads", 0));
        if (!parseSimdPath(v.getText("simd", "auto"), o.simd)) return Status::error("unknown simd path");
        return wavefrontErrorDiffusion(src, dst, edParamsFrom(v), o, rc);
    };
    w.paletteCpu = [](const Image& rgb, const Palette& palette, Plane8& indices, const ParamValues& v,
                      const RunControl& rc) {
        ParallelOptions o;
        o.threads = int(v.getInt("threads", 0));
        if (!parseSimdPath(v.getText("simd", "auto"), o.simd)) return Status::error("unknown simd path");
        return wavefrontPaletteErrorDiffusion(rgb, palette, indices, edParamsFrom(v), o, rc);
    };
    r.add(std::move(w));
}

}  // namespace halftone
