// Parallel exact error collection on the CPU: Deshpande, Misra and Narayanan's trapezoid blocks and this
// implementation's wavefront bands, both driven by the schedule model of core/schedule/schedule.h.
#include "core/ed/parallel.h"

#include <algorithm>
#include <array>
#include <cstdlib>

#include "core/ed/bandengine.h"
#include "core/ed/parallel_kernels.h"
#include "core/ed/quantizer.h"
#include "core/ed/simd_wavefront.h"
#include "core/ed/varkerneltable.h"
#include "core/job/names.h"
#include "core/job/registry.h"
#include "core/palette/paletteed.h"

#if defined(__x86_64__) || defined(__i386__)
#define HALFTONE_X86 1
#endif

namespace halftone {

namespace {

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

/// Index of a level-dependent kernel in core/ed/varkerneltable.h; -1 for a fixed kernel.
int varKernelId(const Kernel& k) {
    for (int id = 0; id < varkerneltable::kVarCount; ++id)
        if (k.levelTable == &varkerneltable::kVarKernels[id]) return id;
    return -1;
}

/// The modulation words of the threshold modulation for L levels (docs/spec.md section 1); zeros without modulation.
std::array<int32_t, 256> modulationWords(const Kernel& k, int levels) {
    std::array<int32_t, 256> z{};
    for (int a = 0; a < 256; ++a) z[size_t(a)] = k.modulationWord(uint8_t(a), levels);
    return z;
}

/// kid: the compiled fixed kernel (0 .. kKernelCount-1) or kKernelCount + the level-dependent kernel's index.
Status prepare(const Plane8& src, Plane8& dst, const EdParams& params, const Kernel*& kernel, int& kid) {
    if (Status s = validateEdParams(params, kernel); !s) return s;
    if (Status s = checkImageSize(src.width, src.height, 1, ~0ull); !s) return s;
    kid = kernel->levelDependent() ? par::kKernelCount + varKernelId(*kernel) : band::compiledKernelId(*kernel);
    if (kid < 0) return Status::error("kernel '" + kernel->name + "' has no parallel implementation");
    if (!dst.sameSize(src)) dst = Plane8(src.width, src.height);
    return Status::ok();
}

// ---------------------------------------------------------------------------------------------
// Deshpande, Misra and Narayanan, section 3.2: trapezoid blocks (core/ed/bandengine.h), error collection in raster
// order inside a block. The error plane is 16-bit: |E| <= 2040 with a fixed kernel (the rounded error sum never
// exceeds the largest earlier |E|, and a sum inside [0, 4080] is at most half a level gap from its target) and
// |E| <= 4072 with a level-dependent one (docs/spec.md section 1).

/// The L-level quantiser of docs/spec.md section 1 with its constants at hand: the level is chosen by `decide` (S, or
/// S less the perturbation of a modulated kernel), the error is S - Q_k.
struct GrayLevels {
    const int32_t* input;  ///< A for an 8-bit value
    const int32_t* lut;    ///< levelLut()
    bool binary;
    int32_t t0;
    int32_t target[2];
    uint8_t value[2];
    GrayLevels(const Quantizer& q, const int32_t* lut_)
        : input(q.inputTable().data()),
          lut(lut_),
          binary(q.levels() == 2),
          t0(q.thresholds()[0]),
          target{q.targets()[0], q.targets()[1]},
          value{q.values()[0], q.values()[1]} {}
    inline int32_t quantize(int32_t s, int32_t decide, uint8_t& out) const {
        if (binary) {
            const int on = decide > t0 ? 1 : 0;
            out = value[on];
            return s - target[on];
        }
        const int32_t ent = lut[std::clamp(decide, 0, 4080)];
        out = uint8_t(ent >> 16);
        return s - (ent & 0xFFFF);
    }
};

/// The per-pixel step of a fixed kernel (core/ed/bandengine.h's collectRow): S = A + the divided error sum.
struct GrayStep {
    static constexpr int kChannels = 1;
    const GrayLevels& levels;
    const uint8_t* in;
    uint8_t* out;
    inline void operator()(int x, const int32_t* sum, int32_t* e) const {
        const int32_t s = levels.input[in[x]] + sum[0];
        e[0] = levels.quantize(s, s, out[x]);
    }
};

/// The same for a level-dependent kernel (docs/spec.md section 1): each tap's weight is the sending pixel's, looked up
/// by its input byte; the perturbation P of a modulated kernel moves the level choice, not the error.
struct VarSegment {
    const varkerneltable::VarKernelDef* def;
    const int32_t* modScale;  ///< the modulation word of each input level
    uint32_t seed;
};

template <bool Modulated>
void collectSegmentVar(const Plane8& src, Plane8& dst, band::ErrorPlane& err, int y, int x0, int x1,
                       const GrayLevels& levels, const VarSegment& vs) {
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
    for (int x = x0; x < x1; ++x) {
        const int32_t acc = w[in[x > 0 ? x - 1 : 0]].right * int32_t(cur[x - 1]) +
                            w[up[x + 1 < W ? x + 1 : x]].downLeft * int32_t(prev[x + 1]) +
                            w[up[x]].down * int32_t(prev[x]);
        const int32_t s = levels.input[in[x]] + ((acc + (1 << (sh - 1))) >> sh);
        int32_t decide = s;
        if constexpr (Modulated)
            decide -= varkerneltable::perturbation(
                vs.def->noise ? varkerneltable::noiseU(uint32_t(y), uint32_t(x), vs.seed) : 0, vs.modScale[in[x]]);
        const int32_t e = levels.quantize(s, decide, out[x]);
        cur[x] = int16_t(e);
    }
}

/// Checks the request and runs run(kernel, kid) (kid: the compiled fixed kernel 0 .. kKernelCount - 1 or
/// kKernelCount + the level-dependent kernel's index). Serpentine: every row waits for the whole previous row
/// (docs/spec.md section 1), so there is no wavefront to run in parallel; the sequential error collection with
/// register caching runs.
template <class Run>
Status withPrepared(const Plane8& src, Plane8& dst, const EdParams& params, const RunControl& control, Run&& run) {
    const Kernel* kernel = nullptr;
    int kid = -1;
    if (Status s = prepare(src, dst, params, kernel, kid); !s) return s;
    if (params.serpentine) return errorDiffuse(src, dst, params, EdVariant::CollectionRegisters, control);
    return run(kernel, kid);
}

}  // namespace

Status trapezoidErrorDiffusion(const Plane8& src, Plane8& dst, const EdParams& params, const ParallelOptions& options,
                               const RunControl& control) {
    return withPrepared(src, dst, params, control, [&](const Kernel* kernel, int kid) {
        band::TrapezoidRun run;
        if (Status s = run.plan(src.width, src.height, *kernel, options, control); !s) return s;
        const Quantizer q(params.levels, params.linear);
        const std::vector<int32_t> lut = levelLut(q);
        const GrayLevels levels(q, lut.data());
        band::ErrorPlane err(src.width, src.height, kernel->maxDi(),
                             std::max(kernel->maxDjLeft(), kernel->maxDjRight()), 1);
        const std::array<int32_t, 256> modScale = modulationWords(*kernel, params.levels);
        const VarSegment vs{kernel->levelTable, modScale.data(), params.seed};
        if (kid >= par::kKernelCount)
            return run.run([&](band::TrapezoidRun& r) {
                r.work([&](int y, int x0, int x1) {
                    if (kernel->modulated())
                        collectSegmentVar<true>(src, dst, err, y, x0, x1, levels, vs);
                    else
                        collectSegmentVar<false>(src, dst, err, y, x0, x1, levels, vs);
                });
            });
        return band::withKernelId(kid, [&](auto k) {
            return run.run([&](band::TrapezoidRun& r) {
                r.work([&](int y, int x0, int x1) {
                    int16_t* rows[4];
                    err.rowsAt(y, rows);
                    GrayStep step{levels, src.row(y), dst.row(y)};
                    band::collectRow<decltype(k)::value>(rows, x0, x1, step);
                });
            });
        });
    });
}

// ---------------------------------------------------------------------------------------------
// SIMD path selection

namespace {
constexpr EnumName<SimdPath> kSimdPaths[] = {{SimdPath::Auto, "auto"},
                                             {SimdPath::Avx512, "avx512"},
                                             {SimdPath::Avx2, "avx2"},
                                             {SimdPath::Sse, "sse"},
                                             {SimdPath::Scalar, "scalar"}};
}  // namespace

const char* toString(SimdPath p) { return enumName(kSimdPaths, p); }

bool parseSimdPath(const std::string& s, SimdPath& out) { return parseEnumName(kSimdPaths, s, out); }

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

/// The SIMD band kernels' hooks into the band driver (core/ed/simd_wavefront.h): plain functions and a context.
struct WaveCtx {
    band::WaveBands* bands;
    int band;
};

bool waveWait(void* c, int64_t t1) {
    auto* ctx = static_cast<WaveCtx*>(c);
    return ctx->bands->wait(ctx->band, t1);
}

void wavePublish(void* c, int64_t t1) {
    auto* ctx = static_cast<WaveCtx*>(c);
    ctx->bands->publish(ctx->band, t1);
}

}  // namespace

Status wavefrontErrorDiffusion(const Plane8& src, Plane8& dst, const EdParams& params, const ParallelOptions& options,
                               const RunControl& control) {
    return withPrepared(src, dst, params, control, [&](const Kernel* kernel, int kid) {
        SimdPath simd;
        if (Status s = resolveSimdPath(options.simd, simd); !s) return s;
        const par::SimdPathInfo& path = pathInfo(simd);
        const int W = src.width, H = src.height;
        const Quantizer q(params.levels, params.linear);
        const std::vector<int32_t> lut = levelLut(q);

        // steps of one band, rounded up to the band kernels' 16
        const int64_t steps = (int64_t(W) + int64_t(kernel->minimalDelay()) * (path.bandRows - 1) + 15) / 16 * 16;
        band::WaveBands bands(W, H, path.bandRows, *kernel, band::threadsFor(options, control), steps, control);
        const int maxDi = kernel->maxDi();
        band::HandoffRows<int32_t> handoff(bands.slots(), maxDi, size_t(W), 0);

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
        const std::array<int32_t, 256> modScale = modulationWords(*kernel, params.levels);
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

        return bands.run([&](int) {
            return [&](int b) {
                WaveCtx ctx{&bands, b};
                par::BandJob job = base;
                const int i0 = b * bands.bandRows();
                job.rows = std::min(bands.bandRows(), H - i0);
                job.src = src.row(i0);
                job.dst = dst.row(i0);
                job.firstRow = i0;
                for (int d = 0; d < par::kMaxBandDi && d < maxDi; ++d) {
                    if (b > 0 && i0 - 1 - d >= 0) job.prevErr[d] = handoff.row(b - 1, d);
                    if (b + 1 < bands.bands()) job.nextErr[d] = handoff.row(b, d);
                }
                job.ctx = &ctx;
                return fn(job);
            };
        });
    });
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

using GrayParallel = Status (*)(const Plane8&, Plane8&, const EdParams&, const ParallelOptions&, const RunControl&);
using PaletteParallel = Status (*)(const Image&, const Palette&, Plane8&, const EdParams&, const ParallelOptions&,
                                   const RunControl&);

/// The options of a parallel method from its parameter values; an error for an unknown vector path.
Status parallelOptionsFrom(const ParamValues& v, ParallelOptions& o) {
    o.threads = int(v.getInt("threads", 0));
    if (!parseSimdPath(v.getText("simd", "auto"), o.simd)) return Status::error("unknown simd path");
    return Status::ok();
}

/// The entry of a parallel error-collection method whose schedule is named `variant`, gray and palette.
MethodInfo parallelMethod(const char* variant, const char* description, bool simd, GrayParallel gray,
                          PaletteParallel palette) {
    MethodInfo m = describeMethod("ec", variant, "error-diffusion", description);
    m.params = edParamSpecs();
    m.params.push_back(threadsSpec());
    if (simd) m.params.push_back(simdSpec());
    m.schedule = variant;
    m.cpuInPlace = edRunsInPlace;
    m.cpu = [gray](const Plane8& src, Plane8& dst, const ParamValues& v, const RunControl& rc) {
        ParallelOptions o;
        if (Status s = parallelOptionsFrom(v, o); !s) return s;
        return gray(src, dst, edParamsFrom(v), o, rc);
    };
    m.paletteCpu = [palette](const Image& rgb, const Palette& pal, Plane8& indices, const ParamValues& v,
                             const RunControl& rc) {
        ParallelOptions o;
        if (Status s = parallelOptionsFrom(v, o); !s) return s;
        return palette(rgb, pal, indices, edParamsFrom(v), o, rc);
    };
    return m;
}

}  // namespace

void registerParallelMethods(Registry& r) {
    r.add(parallelMethod("trapezoid",
                         "Error collection on all CPU cores: the image is cut into slanted blocks that are processed "
                         "in waves, all threads waiting for each other between waves (Deshpande, Misra and "
                         "Narayanan's multicore method). Serpentine scans run on one thread.",
                         false, trapezoidErrorDiffusion, trapezoidPaletteErrorDiffusion));
    r.add(parallelMethod("wavefront",
                         "Error collection as a wavefront, each row a few pixels behind the row above: the fastest "
                         "method. On the CPU each thread owns bands of rows and works several rows at once with "
                         "vector instructions; on the GPU the whole image runs in one launch. Serpentine scans run "
                         "on one thread.",
                         true, wavefrontErrorDiffusion, wavefrontPaletteErrorDiffusion));
}

}  // namespace halftone
