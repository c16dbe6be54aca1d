// The wavefront kernel: one persistent launch; each warp owns a strip of 32 x Q rows (lane = row within each of its Q
// row sets), keeps the errors of the wavefront in registers, passes them down the strip with shuffles (lane 31 of set
// q feeds lane 0 of set q + 1 through a rotating shuffle) and hands the strip's last rows to the next strip through
// tagged words in global memory (data and flag in one 32-bit store: epoch << 16 | error, so no fence is needed).
// Strips are taken in order from a work-stealing counter, so a warp only waits on strips already held by running
// warps (no co-residency assumption).
//
// Row rho of a strip processes column j = t - K rho at step t, K = the kernel's minimal delay plus one (the k-delay
// schedule of Kasagi, Nakano and Ito inside the strip). This general form serves every kernel, level count and input
// mode; binary Floyd-Steinberg runs the fast form (gpu/ed/wavefront_fast.cuh). docs/design/gpu-wavefront.md explains
// both.
#include <cuda_runtime.h>

#include <cstdint>
#include <utility>

#include "core/ed/gpustrips.h"
#include "gpu/devicecommon.cuh"
#include "gpu/ed/launch.h"
#include "gpu/ed/wavefront_fast.cuh"
#include "gpu/ed/wavefront_strip.cuh"

namespace halftone::gpu {
namespace {

using namespace dev;

/// \brief The general form's tuning (every kernel, level count and input mode), measured best on an H100. The strip
/// shape comes from core/ed/gpustrips.h, which the schedule model reads too.
struct GeneralPolicy {
    static constexpr int kWarpsPerBlock = gpustrips::kGeneral.warpsPerBlock;
    static constexpr int kExtraDelay = gpustrips::kGeneral.extraDelay;  ///< steps between rows beyond the minimal delay
    static constexpr int kRowSets = gpustrips::kGeneral.rowSets;        ///< row sets per lane: 32 kRowSets rows a strip
    static constexpr int kChunk = gpustrips::kGeneral.chunk;  ///< steps per chunk: input refill and output flush
    static constexpr int kGroup = gpustrips::kGeneral.group;  ///< steps per boundary-fetch group
    static constexpr int kRingStride =
        68;  ///< bytes per row of the per-row rings (2 chunks + 4 bytes: no bank conflicts)
};

constexpr unsigned kFull = strip::kFull;
constexpr int kWarpsPerBlock = GeneralPolicy::kWarpsPerBlock;
constexpr int kChunk = GeneralPolicy::kChunk;
constexpr int kRingStride = GeneralPolicy::kRingStride;
static_assert(kWarpsPerBlock == fastfs::kWarpsPerBlock, "both forms launch blocks of the same size");

__device__ __forceinline__ int floorDivChunk(int x) { return x >= 0 ? x / kChunk : -((-x + kChunk - 1) / kChunk); }

/// \brief The general form's pixel step for strip::run: kernel ID (position in core's kernels()); BIN: two levels
/// (level 1 iff S > threshold), else the level table. Input and output go through per-row rings in shared memory,
/// refilled and flushed once per chunk.
///
/// A level-dependent kernel (VAR: Ostromoukhov; Zhou and Fang; Li and Allebach) takes each tap's weight from the
/// sending pixel's input level. The weights depend on the input only, so they stay off the error chain: every lane
/// looks up the weights of its own pixels when it reads a group's inputs, keeps its right weight for its next pixel,
/// and passes its down-left and down weights to the row below with one shuffle per step, beside its error, into a
/// history that mirrors the errors' (lane 0 of the strip gets the row above's input bytes with the boundary words and
/// looks them up). With threshold modulation (MOD: Zhou and Fang's noise, NOISE, and Li and Allebach's threshold per
/// level) each lane computes its pixels' threshold shift with the group's inputs too.
template <int ID_, bool BIN>
struct GrayStep {
    using Word = uint32_t;
    static constexpr int ID = ID_;
    static constexpr int C = 1;
    static constexpr int QS = GeneralPolicy::kRowSets;
    static constexpr int K = minDelayOf(kernelDef(ID)) + GeneralPolicy::kExtraDelay;
    static constexpr int kGroup = GeneralPolicy::kGroup;
    static constexpr int kChunk = GeneralPolicy::kChunk;
    static constexpr int kAhead = 2;
    static constexpr bool kUnrollGroups = true;
    static constexpr bool VAR = isLevelDependent(ID);
    static constexpr bool MOD = isModulated(ID);
    static constexpr bool NOISE = isNoisy(ID);
    static constexpr bool kRowAboveInput = VAR;
    static constexpr KernelC KD = kernelDef(ID);
    using Shape = strip::WindowShape<ID, K>;
    static_assert(!VAR || (Shape::MAXDI == 1 && Shape::MG == 1 && Shape::M1 == K && KD.D == varkerneltable::kDivisor),
                  "level-dependent kernels: right, down-left and down taps, lanes 8-15 free for the row above's input");

    const WavefrontArgs& a;
    const int32_t* sLevel;
    const int32_t* sInput;
    const int32_t* sWeights;  ///< kLevelWeightsSize: right, down-left | down << 16, Z
    unsigned char* inRing;
    unsigned char* outRing;
    int lane;
    bool rowOk[QS];
    int base = 0;
    const unsigned char* inRow[QS];
    unsigned char* outRow[QS];
    uint4 pf[QS][2];
    // VAR: HW mirrors H1 with the row above's packed down-left | down weights; the weights of this lane's previous
    // pixel (its right weight for the pixel after it, its packed weights for the lane below)
    uint32_t HW[QS][Shape::M1 + 1], wbPrev[QS];
    int wrPrev[QS];
    // a group's inputs in registers: the compiler cannot move shared loads across shared stores (it cannot tell the
    // rings apart), so loads inside the steps would put two shared-memory latencies on the error chain of every step.
    // VAR: each pixel's own weights (Wr: right; Wb: down-left | down << 16) and, with MOD, its decision shift (Thr:
    // the threshold plus P for two levels, P otherwise), all from its input and position
    int Ain[QS][kGroup], Wr[QS][kGroup], Thr[QS][kGroup];
    uint32_t Wb[QS][kGroup];
    unsigned char Vout[QS][kGroup];
    uint32_t bW = 0, bw = 0, rw[QS];

    static __device__ __forceinline__ void decode(uint32_t w, int (&v)[C]) { v[0] = int(short(w & 0xffffu)); }
    static __device__ __forceinline__ uint32_t encode(const int (&e)[C], uint32_t tag) {
        return tag | (uint32_t(e[0]) & 0xffffu);
    }

    __device__ __forceinline__ void beginStrip(int stripBase) {
        base = stripBase;
#pragma unroll
        for (int q = 0; q < QS; ++q) {
            const int row = base + 32 * q + lane;
            inRow[q] = a.in + size_t(rowOk[q] ? row : 0) * a.pitch;
            outRow[q] = a.out + size_t(rowOk[q] ? row : 0) * a.outPitch;
#pragma unroll
            for (int m = 0; m <= Shape::M1; ++m) HW[q][m] = 0;
            wbPrev[q] = 0;
            wrPrev[q] = 0;
            // first input chunk this row needs at T = 0
            const int cn = floorDivChunk(kChunk - 1 - K * (32 * q + lane));
            pf[q][0] = pf[q][1] = make_uint4(0, 0, 0, 0);
            if (rowOk[q] && cn >= 0 && cn * kChunk < a.width) {
                const uint4* p = reinterpret_cast<const uint4*>(inRow[q] + cn * kChunk);
                pf[q][0] = __ldg(p);
                pf[q][1] = __ldg(p + 1);
            }
        }
    }
    /// VAR: the input byte of the row above in column `col` (always present: tagged now)
    __device__ __forceinline__ uint32_t rowAboveWord(int col, int stripBase, uint32_t tag) const {
        return tag | uint32_t(__ldg(a.in + size_t(stripBase - 1) * a.pitch + col));
    }
    __device__ __forceinline__ void prefillAbove(uint32_t w, int m, int col) {
        if (!VAR) return;
        const uint32_t b = __shfl_sync(kFull, w, 8 + (col >= 0 ? col : 0)) & 0xffu;
        if (lane == 0 && col >= 0) HW[0][m] = uint32_t(sWeights[256 + b]);
    }
    /// refill: store the prefetched chunk, prefetch the next one
    __device__ __forceinline__ void beginChunk(int T) {
#pragma unroll
        for (int q = 0; q < QS; ++q) {
            const int rho = 32 * q + lane;
            const int cn = floorDivChunk(T + kChunk - 1 - K * rho);
            uint32_t* dst = reinterpret_cast<uint32_t*>(inRing + rho * kRingStride + (cn & 1) * kChunk);
            dst[0] = pf[q][0].x;
            dst[1] = pf[q][0].y;
            dst[2] = pf[q][0].z;
            dst[3] = pf[q][0].w;
            dst[4] = pf[q][1].x;
            dst[5] = pf[q][1].y;
            dst[6] = pf[q][1].z;
            dst[7] = pf[q][1].w;
            const int cnext = cn + 1;
            pf[q][0] = pf[q][1] = make_uint4(0, 0, 0, 0);
            if (rowOk[q] && cnext >= 0 && cnext * kChunk < a.width) {
                const uint4* p = reinterpret_cast<const uint4*>(inRow[q] + cnext * kChunk);
                pf[q][0] = __ldg(p);
                pf[q][1] = __ldg(p + 1);
            }
        }
    }
    /// flush: every row writes the output chunk it has just completed (32 bytes, aligned)
    __device__ __forceinline__ void endChunk(int T) {
#pragma unroll
        for (int q = 0; q < QS; ++q) {
            const int rho = 32 * q + lane;
            const int c = floorDivChunk(T + kChunk - K * rho) - 1;
            if (rowOk[q] && c >= 0 && c * kChunk < a.width) {
                const uint32_t* src = reinterpret_cast<const uint32_t*>(outRing + rho * kRingStride + (c & 1) * kChunk);
                uint4* d = reinterpret_cast<uint4*>(outRow[q] + c * kChunk);
                d[0] = make_uint4(src[0], src[1], src[2], src[3]);
                d[1] = make_uint4(src[4], src[5], src[6], src[7]);
            }
        }
    }
    __device__ __forceinline__ void beginGroup(int g0, uint32_t bCur) {
#pragma unroll
        for (int q = 0; q < QS; ++q)
#pragma unroll
            for (int u = 0; u < kGroup; ++u) {
                const int j = g0 + u - K * (32 * q + lane);
                const unsigned b = inRing[(32 * q + lane) * kRingStride + (j & 63)];
                Ain[q][u] = sInput[b];
                if (VAR) {
                    Wr[q][u] = sWeights[b];
                    Wb[q][u] = uint32_t(sWeights[256 + b]);
                }
                if (MOD) {
                    const int noise =
                        NOISE ? varkerneltable::noiseU(uint32_t(base + 32 * q + lane), uint32_t(j), a.seed) : 0;
                    const int shift = varkerneltable::perturbation(noise, sWeights[512 + b]);
                    Thr[q][u] = BIN ? a.threshold + shift : shift;
                }
            }
        // VAR: lanes 8-15 turn the row above's input bytes into its packed weights, for lane 0
        bW = VAR ? uint32_t(sWeights[256 + (bCur & 0xffu)]) : 0u;
    }
    __device__ __forceinline__ void shuffles(int u) {
        if (!VAR) return;
        bw = __shfl_sync(kFull, bW, 8 + u);
#pragma unroll
        for (int q = 0; q < QS; ++q) rw[q] = __shfl_sync(kFull, wbPrev[q], (lane + 31) & 31);
    }
    template <class Win>
    __device__ __forceinline__ void pixel(int q, int u, int, Win& w, int (&err)[C]) {
        int acc;
        if constexpr (VAR) {
            uint32_t aboveW = rw[q];
            if (lane == 0) aboveW = q == 0 ? bw : rw[q - 1];
#pragma unroll
            for (int m = Shape::M1; m >= 2; --m) HW[q][m] = HW[q][m - 1];
            HW[q][1] = aboveW;
            // the senders' weights: this lane's previous pixel (right), the row above at columns j + 1 (down-left)
            // and j (down); the error terms are added last, the newest first
            const int wdl = int(HW[q][K - 1] & 0xffffu), wd = int(HW[q][K] >> 16);
            acc = wd * w.H1[q][0][K];
            acc += wdl * w.H1[q][0][K - 1];
            acc += wrPrev[q] * w.G[q][0][1];
            wrPrev[q] = Wr[q][u];
            wbPrev[q] = Wb[q][u];
        } else {
            acc = strip::tapSum<ID, K, Shape::MG, Shape::M1, Shape::M2>(w.G[q][0], w.H1[q][0], w.H2[q][0]);
        }
        const int S = Ain[q][u] + roundedShare<KD.D>(acc);
        int v;
        if (BIN) {
            const bool one = S > (MOD ? Thr[q][u] : a.threshold);
            err[0] = one ? S - 4080 : S;
            v = one ? 255 : 0;
        } else {
            // Zhou and Fang: the level is chosen for S - P, the error is S's
            const int p = lookupLevel(MOD ? S - Thr[q][u] : S, sLevel);
            err[0] = S - (p & 0xffff);
            v = p >> 16;
        }
        Vout[q][u] = (unsigned char)v;
    }
    __device__ __forceinline__ void endGroup(int g0) {
#pragma unroll
        for (int q = 0; q < QS; ++q)
#pragma unroll
            for (int u = 0; u < kGroup; ++u) {
                const int j = g0 + u - K * (32 * q + lane);
                if (rowOk[q] && unsigned(j) < unsigned(a.width))
                    outRing[(32 * q + lane) * kRingStride + (j & 63)] = Vout[q][u];
            }
    }
};

/// \brief The general form: the strip protocol (gpu/ed/wavefront_strip.cuh) over GrayStep<ID, BIN>, with the level,
/// input and level-weight tables in shared memory and per warp the input and output rings.
template <int ID, bool BIN>
__global__ void __launch_bounds__(kWarpsPerBlock * 32) wavefrontKernel(WavefrontArgs a) {
    using Step = GrayStep<ID, BIN>;
    extern __shared__ __align__(16) unsigned char smem[];
    int32_t* sLevel = reinterpret_cast<int32_t*>(smem);  // 4096
    int32_t* sInput = sLevel + 4096;                     // 256
    int32_t* sWeights = sInput + 256;                    // kLevelWeightsSize
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    unsigned char* inRing =
        reinterpret_cast<unsigned char*>(sWeights + kLevelWeightsSize) + size_t(warp) * 2 * 32 * Step::QS * kRingStride;
    unsigned char* outRing = inRing + 32 * Step::QS * kRingStride;

    if (!BIN)
        for (int k = threadIdx.x; k < kLevelTableSize; k += blockDim.x) sLevel[k] = a.q.level[k];
    for (int k = threadIdx.x; k < 256; k += blockDim.x) sInput[k] = a.q.input[k];
    if (Step::VAR)
        for (int k = threadIdx.x; k < kLevelWeightsSize; k += blockDim.x) sWeights[k] = a.levelWeights[k];
    __syncthreads();

    Step step{a, sLevel, sInput, sWeights, inRing, outRing, lane};
    strip::run(a, a.boundary, a.boundaryStride, step);
}

using KernelFn = void (*)(WavefrontArgs);

/// \brief The general-form instance of kernel `id` (core/ed/kerneltable.h, then core/ed/varkerneltable.h), or null for
/// a kernel the strips do not handle (wavefrontFits).
template <bool BIN>
KernelFn generalKernel(int id) {
    return instanceFor<KernelFn, kKernelCount + kVarKernelCount>(id, [](auto i) -> KernelFn {
        if constexpr (stripsFit(decltype(i)::value, GeneralPolicy::kExtraDelay))
            return &wavefrontKernel<decltype(i)::value, BIN>;
        return nullptr;
    });
}

KernelFn findKernel(int kernelIndex, WavefrontForm form, bool bin, bool gamma) {
    if (kernelIndex < 0 || kernelIndex >= kKernelCount + kVarKernelCount) return nullptr;
    if (form == WavefrontForm::Fast) {
        if (kernelIndex != 0 || !bin) return nullptr;  // binary Floyd-Steinberg only
        return gamma ? &fastfs::fastKernel<true> : &fastfs::fastKernel<false>;
    }
    return bin ? generalKernel<true>(kernelIndex) : generalKernel<false>(kernelIndex);
}

/// Dynamic shared memory of the general form: the level, input and level-weight tables, and per warp the input and
/// output rings.
size_t generalSharedBytes() {
    return (4096 + 256 + kLevelWeightsSize) * sizeof(int32_t) +
           size_t(kWarpsPerBlock) * 2 * 32 * GeneralPolicy::kRowSets * kRingStride;
}

__global__ void setFlagKernel(int* flag, int index, int value) { flag[index] = value; }

}  // namespace

cudaError_t launchSetFlag(int* flag, int index, int value, cudaStream_t stream) {
    setFlagKernel<<<1, 1, 0, stream>>>(flag, index, value);
    return cudaGetLastError();
}

int wavefrontStripRows(WavefrontForm form) {
    return form == WavefrontForm::Fast ? gpustrips::kFast.rows() : gpustrips::kGeneral.rows();
}

bool wavefrontHasForm(int kernelIndex, WavefrontForm form, bool binary) {
    return findKernel(kernelIndex, form, binary, true) != nullptr;
}

cudaError_t launchWavefront(int kernelIndex, WavefrontForm form, const WavefrontArgs& a, int smCount,
                            cudaStream_t stream) {
    KernelFn fn = findKernel(kernelIndex, form, a.binaryFast != 0, a.gammaInput != 0);
    if (!fn) return cudaErrorInvalidValue;
    const int rows = wavefrontStripRows(form);
    const int strips = (a.height + rows - 1) / rows;
    int blocks = (strips + kWarpsPerBlock - 1) / kWarpsPerBlock;
    if (blocks > smCount) blocks = smCount;
    if (blocks < 1) blocks = 1;
    if (form == WavefrontForm::Fast) {
        // the fast form places its strips statically, which needs every block resident: a cooperative launch
        // guarantees that or fails (the caller then reports the error and falls back to the CPU)
        WavefrontArgs b = a;
        void* params[] = {&b};
        return cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(fn), dim3(blocks), dim3(kWarpsPerBlock * 32),
                                           params, 0, stream);
    }
    const size_t shm = generalSharedBytes();
    if (cudaError_t e = cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shm));
        e != cudaSuccess)
        return e;
    fn<<<blocks, kWarpsPerBlock * 32, shm, stream>>>(a);
    return cudaGetLastError();
}

}  // namespace halftone::gpu
