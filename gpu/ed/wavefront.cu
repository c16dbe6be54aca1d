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
constexpr int kGroup = GeneralPolicy::kGroup;
constexpr int kRingStride = GeneralPolicy::kRingStride;
static_assert(kWarpsPerBlock == fastfs::kWarpsPerBlock, "both forms launch blocks of the same size");

__device__ __forceinline__ int floorDivChunk(int x) { return x >= 0 ? x / kChunk : -((-x + kChunk - 1) / kChunk); }

/// \brief The general form: kernel ID (position in core's kernels()); BIN: two levels (level 1 iff S > threshold),
/// else the level table.
///
/// A level-dependent kernel (VAR: Ostromoukhov; Zhou and Fang) takes each tap's weight from the sending pixel's input
/// level. The weights depend on the input only, so they stay off the error chain: every lane looks up the weights of
/// its own pixels when it reads a group's inputs, keeps its right weight for its next pixel, and passes its down-left
/// and down weights to the row below with one shuffle per step, beside its error, into a history that mirrors the
/// errors' (lane 0 of the strip gets the row above's input bytes with the boundary words and looks them up). With
/// threshold modulation (MOD: Zhou and Fang) each lane computes its pixels' position noise and threshold shift with
/// the group's inputs too.
template <int ID, bool BIN>
__global__ void __launch_bounds__(kWarpsPerBlock * 32) wavefrontKernel(WavefrontArgs a) {
    constexpr bool VAR = isLevelDependent(ID);
    constexpr bool MOD = isModulated(ID);
    constexpr int EXTRA = GeneralPolicy::kExtraDelay;
    constexpr int QS = GeneralPolicy::kRowSets;
    constexpr KernelC KD = kernelDef(ID);
    constexpr int K = minDelayOf(KD) + EXTRA;
    constexpr int MAXDI = maxDiOf(KD);
    constexpr int MG = maxDjOf(KD, 0) > 0 ? maxDjOf(KD, 0) : 1;
    constexpr int M1 = K + maxDjOf(KD, 1);
    constexpr int M2 = MAXDI >= 2 ? 2 * K + maxDjOf(KD, 2) : 1;
    constexpr int ROWS = 32 * QS;
    constexpr int D = KD.D;
    static_assert(wavefrontFits(KD, K), "kernels reach one or two rows down; the prefill reads 8 words per row");
    static_assert(!VAR || (MAXDI == 1 && MG == 1 && M1 == K && D == varkerneltable::kDivisor),
                  "level-dependent kernels: right, down-left and down taps, lanes 8-15 free for the row above's input");

    extern __shared__ __align__(16) unsigned char smem[];
    int32_t* sLevel = reinterpret_cast<int32_t*>(smem);  // 4096
    int32_t* sInput = sLevel + 4096;                     // 256
    int32_t* sWeights = sInput + 256;                    // kLevelWeightsSize: right, down-left | down << 16, Z
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    unsigned char* inRing =
        reinterpret_cast<unsigned char*>(sWeights + kLevelWeightsSize) + size_t(warp) * 2 * ROWS * kRingStride;
    unsigned char* outRing = inRing + ROWS * kRingStride;

    if (!BIN)
        for (int k = threadIdx.x; k < kLevelTableSize; k += blockDim.x) sLevel[k] = a.q.level[k];
    for (int k = threadIdx.x; k < 256; k += blockDim.x) sInput[k] = a.q.input[k];
    if (VAR)
        for (int k = threadIdx.x; k < kLevelWeightsSize; k += blockDim.x) sWeights[k] = a.levelWeights[k];
    __syncthreads();

    const int W = a.width, H = a.height;
    const int strips = (H + ROWS - 1) / ROWS;
    const uint32_t epochTag = a.epoch << 16;
    const int lastChunk = (W - 1) / kChunk;
    const int tEnd = ((lastChunk + 1) * kChunk + K * (ROWS - 1) + kChunk - 1) / kChunk * kChunk;

    for (;;) {
        const int s = strip::take(a, lane);
        if (s >= strips) break;
        const int base = s * ROWS;
        if (!strip::waitForBand(a, base, lane)) return;
        const bool hasPrev = s > 0;
        const bool publish = s + 1 < strips;
        const uint32_t* prevB1 = a.boundary + size_t(hasPrev ? s - 1 : 0) * 2 * a.boundaryStride;
        const uint32_t* prevB2 = prevB1 + a.boundaryStride;
        uint32_t* myB1 = a.boundary + size_t(s) * 2 * a.boundaryStride;
        uint32_t* myB2 = myB1 + a.boundaryStride;

        bool rowOk[QS];
        const unsigned char* inRow[QS];
        unsigned char* outRow[QS];
        int e[QS], G[QS][MG + 1], H1[QS][M1 + 1], H2[QS][M2 + 1];
        // VAR: HW mirrors H1 with the row above's packed down-left | down weights; the weights of this lane's
        // previous pixel (its right weight for the pixel after it, its packed weights for the lane below)
        uint32_t HW[QS][M1 + 1], wbPrev[QS];
        int wrPrev[QS];
        uint4 pf[QS][2];
#pragma unroll
        for (int q = 0; q < QS; ++q) {
            const int row = base + 32 * q + lane;
            rowOk[q] = row < H;
            inRow[q] = a.in + size_t(rowOk[q] ? row : 0) * a.pitch;
            outRow[q] = a.out + size_t(rowOk[q] ? row : 0) * a.outPitch;
            e[q] = 0;
#pragma unroll
            for (int m = 0; m <= MG; ++m) G[q][m] = 0;
#pragma unroll
            for (int m = 0; m <= M1; ++m) H1[q][m] = 0;
#pragma unroll
            for (int m = 0; m <= M2; ++m) H2[q][m] = 0;
#pragma unroll
            for (int m = 0; m <= M1; ++m) HW[q][m] = 0;
            wbPrev[q] = 0;
            wrPrev[q] = 0;
            // first input chunk this row needs at T = 0
            const int rho = 32 * q + lane;
            const int cn = floorDivChunk(kChunk - 1 - K * rho);
            pf[q][0] = pf[q][1] = make_uint4(0, 0, 0, 0);
            if (rowOk[q] && cn >= 0 && cn * kChunk < W) {
                const uint4* p = reinterpret_cast<const uint4*>(inRow[q] + cn * kChunk);
                pf[q][0] = __ldg(p);
                pf[q][1] = __ldg(p + 1);
            }
        }

        // Boundary words from the previous strip: lanes 0-7 hold E(base-1, g0+K-1+lane),
        // lanes 8-15 hold E(base-2, g0+2K-1+lane-8) for the group starting at step g0.
        auto boundaryLoad = [&](int g0) -> uint32_t {
            if (!hasPrev) return epochTag;
            int col;
            const uint32_t* src;
            if (lane < 8) {
                col = g0 + K - 1 + lane;
                src = prevB1;
            } else if (MAXDI == 2 && lane < 16) {
                col = g0 + 2 * K - 1 + lane - 8;
                src = prevB2;
            } else if (VAR && lane < 16) {
                // VAR: the input byte of the row above in the column of lane - 8's word (always present: tagged now)
                col = g0 + K - 1 + lane - 8;
                if (col >= W) return epochTag;
                return epochTag | uint32_t(__ldg(a.in + size_t(base - 1) * a.pitch + col));
            } else {
                return epochTag;
            }
            if (col >= W) return epochTag;
            return __ldcg(src + col);
        };
        // The rows above this strip processed their first columns "before step 0": lane 0 (and lane 1
        // for two-row kernels) start with those errors in their histories. Lanes 0-7: E(base-1, lane),
        // lanes 8-15: E(base-2, lane-8); every word is checked for this launch's tag.
        if (hasPrev) {
            auto prefillLoad = [&]() -> uint32_t {
                int col;
                const uint32_t* src;
                if (lane < 8) {
                    col = lane;
                    src = prevB1;
                } else if (MAXDI == 2 && lane < 16) {
                    col = lane - 8;
                    src = prevB2;
                } else if (VAR && lane < 16) {
                    col = lane - 8;
                    if (col >= W) return epochTag;
                    return epochTag | uint32_t(__ldg(a.in + size_t(base - 1) * a.pitch + col));
                } else {
                    return epochTag;
                }
                if (col >= W) return epochTag;
                return __ldcg(src + col);
            };
            uint32_t w = prefillLoad();
            int spins = 0;
            while (!__all_sync(kFull, (w & 0xffff0000u) == epochTag)) {
                if (strip::spinAbort(a, lane, spins)) return;
                w = prefillLoad();
            }
            // state "after step -1": H1[m] = E(row-1, K-1-m), H2[m] = E(row-2, 2K-1-m) for lane 0 (rho = 0);
            // lane 1 (rho = 1): H2[m] = E(base-1, K-1-m)
#pragma unroll
            for (int m = 1; m <= M1; ++m) {
                const int col = K - 1 - m;
                const int v = col >= 0 ? int(short(__shfl_sync(kFull, w, col >= 0 ? col : 0) & 0xffffu)) : 0;
                if (lane == 0) H1[0][m] = v;
                if (VAR) {
                    const uint32_t b = __shfl_sync(kFull, w, 8 + (col >= 0 ? col : 0)) & 0xffu;
                    if (lane == 0 && col >= 0) HW[0][m] = uint32_t(sWeights[256 + b]);
                }
            }
            if (MAXDI == 2) {
#pragma unroll
                for (int m = 1; m <= M2; ++m) {
                    const int col2 = 2 * K - 1 - m;
                    const int v2 =
                        col2 >= 0 ? int(short(__shfl_sync(kFull, w, 8 + (col2 >= 0 ? col2 : 0)) & 0xffffu)) : 0;
                    const int col1 = K - 1 - m;
                    const int v1 = col1 >= 0 ? int(short(__shfl_sync(kFull, w, col1 >= 0 ? col1 : 0) & 0xffffu)) : 0;
                    if (lane == 0) H2[0][m] = v2;
                    if (lane == 1) H2[0][m] = v1;
                }
            }
        }
        // boundary prefetch runs two groups ahead so its latency hides behind computation
        uint32_t bNext = boundaryLoad(0);
        uint32_t bNext2 = boundaryLoad(kGroup);
        int abortSeen = 0;

        for (int T = 0; T < tEnd; T += kChunk) {
            // refill: store the prefetched chunk, prefetch the next one
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
                if (rowOk[q] && cnext >= 0 && cnext * kChunk < W) {
                    const uint4* p = reinterpret_cast<const uint4*>(inRow[q] + cnext * kChunk);
                    pf[q][0] = __ldg(p);
                    pf[q][1] = __ldg(p + 1);
                }
            }
            // cancellation: the device flag (set by the host through a copy on another stream), read
            // now and used at the chunk's end. No host memory is read here: system-scope reads from
            // hundreds of waiting warps queue up behind each other and stall the running ones.
            int abortNow = 0;
            if (lane == 0) abortNow = *reinterpret_cast<volatile int*>(a.abortFlag);

#pragma unroll
            for (int g = 0; g < kChunk / kGroup; ++g) {
                const int g0 = T + g * kGroup;
                uint32_t bCur = bNext;
                bNext = bNext2;
                bool refetch = false;
                if (hasPrev) {
                    int spins = 0;
                    while (!__all_sync(kFull, (bCur & 0xffff0000u) == epochTag)) {
                        if (strip::spinAbort(a, lane, spins)) return;
                        bCur = boundaryLoad(g0);
                        refetch = true;
                    }
                }
                // After a wait the prefetched words of the next group were read too early: read them again
                // now (valid by the time they are used) instead of waiting another round trip then.
                if (refetch) bNext = boundaryLoad(g0 + kGroup);
                bNext2 = boundaryLoad(g0 + 2 * kGroup);

                // The group's inputs into registers first and its outputs stored after it: the
                // compiler cannot move shared loads across shared stores (it cannot tell the rings
                // apart), so loads inside the steps would put two shared-memory latencies on the
                // error chain of every step.
                // VAR: each pixel's own weights (Wr: right; Wb: down-left | down << 16) and, with MOD, its decision
                // shift (Thr: the threshold plus P for two levels, P otherwise), all from its input and position
                int Ain[QS][kGroup], Wr[QS][kGroup], Thr[QS][kGroup];
                uint32_t Wb[QS][kGroup];
                unsigned char Vout[QS][kGroup];
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
                                varkerneltable::noiseU(uint32_t(base + 32 * q + lane), uint32_t(j), a.seed);
                            const int shift = varkerneltable::perturbation(noise, sWeights[512 + b]);
                            Thr[q][u] = BIN ? a.threshold + shift : shift;
                        }
                    }
                // VAR: lanes 8-15 turn the row above's input bytes into its packed weights, for lane 0
                const uint32_t bW = VAR ? uint32_t(sWeights[256 + (bCur & 0xffu)]) : 0u;
#pragma unroll
                for (int u = 0; u < kGroup; ++u) {
                    const int t = g0 + u;
                    const int bv1 = int(short(__shfl_sync(kFull, bCur, u) & 0xffffu));
                    int bv2 = 0;
                    if (MAXDI == 2) bv2 = int(short(__shfl_sync(kFull, bCur, 8 + u) & 0xffffu));
                    uint32_t bw = 0;
                    if (VAR) bw = __shfl_sync(kFull, bW, 8 + u);
                    int r1[QS], r2[QS];
                    uint32_t rw[QS];
#pragma unroll
                    for (int q = 0; q < QS; ++q) {
                        r1[q] = __shfl_sync(kFull, e[q], (lane + 31) & 31);
                        if (MAXDI == 2) r2[q] = __shfl_sync(kFull, e[q], (lane + 30) & 31);
                        if (VAR) rw[q] = __shfl_sync(kFull, wbPrev[q], (lane + 31) & 31);
                    }
#pragma unroll
                    for (int q = 0; q < QS; ++q) {
                        const int rho = 32 * q + lane;
                        const int j = t - K * rho;
                        int above1 = r1[q];
                        if (lane == 0) above1 = q == 0 ? bv1 : r1[q - 1];
#pragma unroll
                        for (int m = M1; m >= 2; --m) H1[q][m] = H1[q][m - 1];
                        H1[q][1] = above1;
                        if (VAR) {
                            uint32_t aboveW = rw[q];
                            if (lane == 0) aboveW = q == 0 ? bw : rw[q - 1];
#pragma unroll
                            for (int m = M1; m >= 2; --m) HW[q][m] = HW[q][m - 1];
                            HW[q][1] = aboveW;
                        }
                        if (MAXDI == 2) {
                            int above2 = r2[q];
                            if (lane == 0) above2 = q == 0 ? bv2 : r2[q - 1];
                            if (lane == 1) above2 = q == 0 ? bv1 : r2[q - 1];
#pragma unroll
                            for (int m = M2; m >= 2; --m) H2[q][m] = H2[q][m - 1];
                            H2[q][1] = above2;
                        }
#pragma unroll
                        for (int m = MG; m >= 2; --m) G[q][m] = G[q][m - 1];
                        G[q][1] = e[q];

                        int acc = 0;
                        if (VAR) {
                            // the senders' weights: this lane's previous pixel (right), the row above at columns
                            // j + 1 (down-left) and j (down); the error terms are added last, the newest first
                            const int wdl = int(HW[q][K - 1] & 0xffffu), wd = int(HW[q][K] >> 16);
                            acc = wd * H1[q][K];
                            acc += wdl * H1[q][K - 1];
                            acc += wrPrev[q] * G[q][1];
                        } else {
#pragma unroll
                            for (int k = 0; k < KD.n; ++k) {
                                const TapC tp = KD.t[k];
                                if (tp.di == 0)
                                    acc += tp.w * G[q][tp.dj];
                                else if (tp.di == 1)
                                    acc += tp.w * H1[q][K + tp.dj];
                                else
                                    acc += tp.w * H2[q][2 * K + tp.dj];
                            }
                        }
                        if (VAR) {
                            wrPrev[q] = Wr[q][u];
                            wbPrev[q] = Wb[q][u];
                        }
                        const int A = Ain[q][u];
                        const int S = A + roundedShare<D>(acc);
                        int err, v;
                        if (BIN) {
                            const bool one = S > (MOD ? Thr[q][u] : a.threshold);
                            err = one ? S - 4080 : S;
                            v = one ? 255 : 0;
                        } else {
                            // Zhou and Fang: the level is chosen for S - P, the error is S's
                            const int p = lookupLevel(MOD ? S - Thr[q][u] : S, sLevel);
                            err = S - (p & 0xffff);
                            v = p >> 16;
                        }
                        const bool valid = rowOk[q] && unsigned(j) < unsigned(W);
                        e[q] = valid ? err : 0;
                        Vout[q][u] = (unsigned char)v;
                        if (q == QS - 1 && publish && valid) {
                            const uint32_t word = epochTag | (uint32_t(e[q]) & 0xffffu);
                            if (lane == 31) __stcg(myB1 + j, word);
                            if (MAXDI == 2 && lane == 30) __stcg(myB2 + j, word);
                        }
                    }
                }
#pragma unroll
                for (int q = 0; q < QS; ++q)
#pragma unroll
                    for (int u = 0; u < kGroup; ++u) {
                        const int j = g0 + u - K * (32 * q + lane);
                        if (rowOk[q] && unsigned(j) < unsigned(W))
                            outRing[(32 * q + lane) * kRingStride + (j & 63)] = Vout[q][u];
                    }
            }

            // flush: every row writes the output chunk it has just completed (32 bytes, aligned)
#pragma unroll
            for (int q = 0; q < QS; ++q) {
                const int rho = 32 * q + lane;
                const int c = floorDivChunk(T + kChunk - K * rho) - 1;
                if (rowOk[q] && c >= 0 && c * kChunk < W) {
                    const uint32_t* src =
                        reinterpret_cast<const uint32_t*>(outRing + rho * kRingStride + (c & 1) * kChunk);
                    uint4* d = reinterpret_cast<uint4*>(outRow[q] + c * kChunk);
                    d[0] = make_uint4(src[0], src[1], src[2], src[3]);
                    d[1] = make_uint4(src[4], src[5], src[6], src[7]);
                }
            }
            abortSeen = __shfl_sync(kFull, abortNow, 0);
            if (abortSeen) {
                if (lane == 0) atomicExch(a.abortFlag, 1);
                return;
            }
        }
        strip::finish(a, s, min(H, base + ROWS), lane);
    }
}

using KernelFn = void (*)(WavefrontArgs);

/// \brief The general-form instance of kernel ID, or null for a kernel the strips do not handle (wavefrontFits).
template <int ID, bool BIN>
KernelFn generalInstance() {
    if constexpr (wavefrontFits(kernelDef(ID), minDelayOf(kernelDef(ID)) + GeneralPolicy::kExtraDelay))
        return &wavefrontKernel<ID, BIN>;
    else
        return nullptr;
}
static_assert(kVarKernelCount == 2, "one general-form instance per kernel of core/ed/varkerneltable.h");

/// \brief One general-form instance per kernel of core/ed/kerneltable.h.
template <bool BIN, int... I>
KernelFn generalKernelOf(int id, std::integer_sequence<int, I...>) {
    KernelFn fn = nullptr;
    (void)((id == I ? (fn = generalInstance<I, BIN>(), true) : false) || ...);
    return fn;
}
template <bool BIN>
KernelFn generalKernel(int id) {
    if (id == kKernelCount) return generalInstance<kKernelCount, BIN>();
    if (id == kKernelCount + 1) return generalInstance<kKernelCount + 1, BIN>();
    return generalKernelOf<BIN>(id, std::make_integer_sequence<int, kKernelCount>());
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
