// The palette wavefront kernel: error diffusion to a colour palette (docs/spec.md section 4) with the schedule of the
// gray wavefront's general form (gpu/ed/wavefront.cu): one persistent launch, each warp owns a strip of 32 rows (lane =
// row), row rho processes column j = t - K rho at step t (K = the kernel's minimal delay: the k-delay
// schedule of Kasagi, Nakano and Ito inside the strip), the errors of the rows above arrive by shuffles, and a strip
// hands its last one or two rows to the next strip through tagged words in global memory. Strips are taken in order
// from a work-stealing counter, so a warp only waits on strips already held by running warps.
//
// What differs from the gray kernel is the per-pixel work: three channels of error (register windows per channel),
// the clamp of S to [0, 4080], and the exact nearest-colour search over the palette's 64-bit keys
// (gpu/palette/palette_keys.h), whose operands come from the launch's parameters (constant memory, uniform across the
// warp). Boundary words are 64-bit: E_R, E_G, E_B as 16-bit fields and the launch's epoch in the top 16 bits, written
// with one 64-bit store (single-copy atomic), so data and flag arrive together and no fence is needed.
#include <cuda_runtime.h>

#include <cstdint>
#include <utility>

#include "gpu/devicecommon.cuh"
#include "gpu/palette/palette_launch.h"
#include "gpu/ed/wavefront_strip.cuh"

namespace halftone::gpu {
namespace {

using namespace dev;

/// \brief The palette kernel's tuning.
struct PalettePolicy {
    static constexpr int kWarpsPerBlock = 4;
    /// steps between rows beyond the kernel's minimal delay: none, the shuffle's latency is small beside the step
    static constexpr int kExtraDelay = 0;
    static constexpr int kGroup = 8;      ///< steps per boundary-check group (and per input prefetch)
    static constexpr int kChunk = 32;     ///< steps between two reads of the cancel flag
    static constexpr int kUnrolled = 16;  ///< palettes up to this size run an unrolled search (of 4, 8 or 16 entries)
};

constexpr unsigned kFull = strip::kFull;
constexpr int kWarpsPerBlock = PalettePolicy::kWarpsPerBlock;
constexpr int kGroup = PalettePolicy::kGroup;

using Word = unsigned long long;

__device__ __forceinline__ int lowField(uint32_t x) { return int(short(x & 0xffffu)); }
__device__ __forceinline__ int highField(uint32_t x) { return int(x) >> 16; }
__device__ __forceinline__ Word umax64(Word a, Word b) { return a > b ? a : b; }

/// \brief The key of entry i (gpu/palette/palette_keys.h): c_i + T_R a_iR + T_G a_iG + T_B a_iB, unsigned 64-bit.
__device__ __forceinline__ Word keyOf(const PaletteKeys& k, int i, uint32_t r, uint32_t g, uint32_t b) {
    return Word(k.c[i]) + Word(r) * k.a[0][i] + Word(g) * k.a[1][i] + Word(b) * k.a[2][i];
}

/// \brief The nearest palette entry of the clamped colour (r, g, b): the largest key, whose low byte is 255 - k.
/// Four running maxima (independent chains); NMAX > 0: the entries below NMAX unrolled, their operands straight from
/// the constant bank (padding entries have key 0); NMAX = 0: a loop over the palette in fours. Keys are distinct, so
/// the order of the maxima does not matter.
template <int NMAX>
__device__ __forceinline__ int nearestEntry(const PaletteKeys& k, uint32_t r, uint32_t g, uint32_t b) {
    Word m0 = 0, m1 = 0, m2 = 0, m3 = 0;
    if constexpr (NMAX > 0) {
        static_assert(NMAX % 4 == 0, "the unrolled search takes the palette in fours");
#pragma unroll
        for (int i = 0; i < NMAX; i += 4) {
            m0 = umax64(m0, keyOf(k, i, r, g, b));
            m1 = umax64(m1, keyOf(k, i + 1, r, g, b));
            m2 = umax64(m2, keyOf(k, i + 2, r, g, b));
            m3 = umax64(m3, keyOf(k, i + 3, r, g, b));
        }
    } else {
        const int n = (k.size + 3) & ~3;
        for (int i = 0; i < n; i += 4) {
            m0 = umax64(m0, keyOf(k, i, r, g, b));
            m1 = umax64(m1, keyOf(k, i + 1, r, g, b));
            m2 = umax64(m2, keyOf(k, i + 2, r, g, b));
            m3 = umax64(m3, keyOf(k, i + 3, r, g, b));
        }
    }
    const Word best = umax64(umax64(m0, m1), umax64(m2, m3));
    return 255 - int(uint32_t(best) & 255u);
}

/// \brief The palette wavefront for kernel ID (position in core's kernels()) and search form NMAX (see nearestEntry).
template <int ID, int NMAX>
__global__ void __launch_bounds__(kWarpsPerBlock * 32) paletteKernel(const __grid_constant__ PaletteWavefrontArgs a) {
    constexpr KernelC KD = kernelDef(ID);
    constexpr int K = minDelayOf(KD) + PalettePolicy::kExtraDelay;
    constexpr int MAXDI = maxDiOf(KD);
    constexpr int MG = maxDjOf(KD, 0) > 0 ? maxDjOf(KD, 0) : 1;
    constexpr int M1 = K + maxDjOf(KD, 1);
    constexpr int M2 = MAXDI >= 2 ? 2 * K + maxDjOf(KD, 2) : 1;
    constexpr int D = KD.D;
    static_assert(wavefrontFits(KD, K), "kernels reach one or two rows down; the prefill reads 8 words per row");

    __shared__ int32_t sInput[256];
    __shared__ int2 sTarget[kMaxPalette];
    for (int i = threadIdx.x; i < 256; i += blockDim.x) sInput[i] = a.input[i];
    for (int i = threadIdx.x; i < kMaxPalette; i += blockDim.x)
        sTarget[i] = make_int2(a.keys.target[i][0], a.keys.target[i][1]);
    __syncthreads();

    const int lane = threadIdx.x & 31;
    const WavefrontArgs& sa = a.strip;
    const int W = sa.width, H = sa.height;
    const int strips = (H + 31) / 32;
    const Word epochTag = Word(sa.epoch) << 48;
    const uint32_t epochHi = sa.epoch << 16;
    const int tEnd = (W + K * 31 + kGroup - 1) / kGroup * kGroup;

    for (;;) {
        const int s = strip::take(sa, lane);
        if (s >= strips) break;
        const int base = s * 32;
        if (!strip::waitForBand(sa, base, lane)) return;
        const bool hasPrev = s > 0;
        const bool publish = s + 1 < strips;
        const Word* prevB1 = a.boundary + size_t(hasPrev ? s - 1 : 0) * 2 * a.boundaryStride;
        const Word* prevB2 = prevB1 + a.boundaryStride;
        Word* myB1 = a.boundary + size_t(s) * 2 * a.boundaryStride;
        Word* myB2 = myB1 + a.boundaryStride;

        const int row = base + lane;
        const bool rowOk = row < H;
        const uint32_t* inRow = a.rgb + size_t(rowOk ? row : 0) * a.rgbPitch;
        uint8_t* outRow = a.out + size_t(rowOk ? row : 0) * a.outPitch;

        int e[3], G[3][MG + 1], H1[3][M1 + 1], H2[3][M2 + 1];
#pragma unroll
        for (int c = 0; c < 3; ++c) {
            e[c] = 0;
#pragma unroll
            for (int m = 0; m <= MG; ++m) G[c][m] = 0;
#pragma unroll
            for (int m = 0; m <= M1; ++m) H1[c][m] = 0;
#pragma unroll
            for (int m = 0; m <= M2; ++m) H2[c][m] = 0;
        }

        // Boundary words from the previous strip: lanes 0-7 hold E(base-1, g0+K-1+lane), lanes 8-15 hold
        // E(base-2, g0+2K-1+lane-8) for the group starting at step g0 (as in the gray kernel).
        auto boundaryLoad = [&](int g0) -> Word {
            if (!hasPrev) return epochTag;
            int col;
            const Word* src;
            if (lane < 8) {
                col = g0 + K - 1 + lane;
                src = prevB1;
            } else if (MAXDI == 2 && lane < 16) {
                col = g0 + 2 * K - 1 + lane - 8;
                src = prevB2;
            } else {
                return epochTag;
            }
            if (col >= W) return epochTag;
            return __ldcg(src + col);
        };
        auto tagged = [&](Word w) { return (uint32_t(w >> 32) & 0xffff0000u) == epochHi; };
        // The rows above this strip processed their first columns "before step 0": lane 0 (and lane 1 for two-row
        // kernels) start with those errors in their histories.
        if (hasPrev) {
            auto prefillLoad = [&]() -> Word {
                int col;
                const Word* src;
                if (lane < 8) {
                    col = lane;
                    src = prevB1;
                } else if (MAXDI == 2 && lane < 16) {
                    col = lane - 8;
                    src = prevB2;
                } else {
                    return epochTag;
                }
                if (col >= W) return epochTag;
                return __ldcg(src + col);
            };
            Word w = prefillLoad();
            int spins = 0;
            while (!__all_sync(kFull, tagged(w))) {
                if (strip::spinAbort(sa, lane, spins)) return;
                w = prefillLoad();
            }
            const uint32_t lo = uint32_t(w), hi = uint32_t(w >> 32);
#pragma unroll
            for (int m = 1; m <= M1; ++m) {
                const int col = K - 1 - m;
                const uint32_t x = __shfl_sync(kFull, lo, col >= 0 ? col : 0);
                const uint32_t y = __shfl_sync(kFull, hi, col >= 0 ? col : 0);
                if (lane == 0 && col >= 0) {
                    H1[0][m] = lowField(x);
                    H1[1][m] = highField(x);
                    H1[2][m] = lowField(y);
                }
            }
            if (MAXDI == 2) {
#pragma unroll
                for (int m = 1; m <= M2; ++m) {
                    const int col2 = 2 * K - 1 - m;
                    const uint32_t x2 = __shfl_sync(kFull, lo, 8 + (col2 >= 0 ? col2 : 0));
                    const uint32_t y2 = __shfl_sync(kFull, hi, 8 + (col2 >= 0 ? col2 : 0));
                    const int col1 = K - 1 - m;
                    const uint32_t x1 = __shfl_sync(kFull, lo, col1 >= 0 ? col1 : 0);
                    const uint32_t y1 = __shfl_sync(kFull, hi, col1 >= 0 ? col1 : 0);
                    if (lane == 0 && col2 >= 0) {
                        H2[0][m] = lowField(x2);
                        H2[1][m] = highField(x2);
                        H2[2][m] = lowField(y2);
                    }
                    if (lane == 1 && col1 >= 0) {
                        H2[0][m] = lowField(x1);
                        H2[1][m] = highField(x1);
                        H2[2][m] = lowField(y1);
                    }
                }
            }
        }

        // input of a group: the packed colour of every step's pixel, read one group ahead
        auto inputLoad = [&](int g0, uint32_t(&dst)[kGroup]) {
#pragma unroll
            for (int u = 0; u < kGroup; ++u) {
                const int j = g0 + u - K * lane;
                dst[u] = rowOk && unsigned(j) < unsigned(W) ? __ldg(inRow + j) : 0u;
            }
        };
        uint32_t inNext[kGroup];
        inputLoad(0, inNext);
        Word bNext = boundaryLoad(0);  // one group ahead: a group's steps outlast the L2 round trip
        int abortNow = 0;

        for (int g0 = 0; g0 < tEnd; g0 += kGroup) {
            // cancellation: the device flag, read at a chunk's start and acted on at the next
            if (g0 % PalettePolicy::kChunk == 0) {
                if (__shfl_sync(kFull, abortNow, 0)) {
                    if (lane == 0) atomicExch(sa.abortFlag, 1);
                    return;
                }
                if (lane == 0) abortNow = *reinterpret_cast<volatile int*>(sa.abortFlag);
            }
            Word bCur = bNext;
            if (hasPrev) {
                int spins = 0;
                while (!__all_sync(kFull, tagged(bCur))) {
                    if (strip::spinAbort(sa, lane, spins)) return;
                    bCur = boundaryLoad(g0);
                }
            }
            bNext = boundaryLoad(g0 + kGroup);

            uint32_t in[kGroup];
#pragma unroll
            for (int u = 0; u < kGroup; ++u) in[u] = inNext[u];
            inputLoad(g0 + kGroup, inNext);
            int A[kGroup][3];
#pragma unroll
            for (int u = 0; u < kGroup; ++u) {
                A[u][0] = sInput[in[u] & 255u];
                A[u][1] = sInput[(in[u] >> 8) & 255u];
                A[u][2] = sInput[(in[u] >> 16) & 255u];
            }
            const uint32_t bLo = uint32_t(bCur), bHi = uint32_t(bCur >> 32);
            uint8_t Vout[kGroup];

#pragma unroll
            for (int u = 0; u < kGroup; ++u) {
                const int t = g0 + u;
                const int j = t - K * lane;
                int bv1[3], bv2[3] = {0, 0, 0};
                {
                    const uint32_t x = __shfl_sync(kFull, bLo, u), y = __shfl_sync(kFull, bHi, u);
                    bv1[0] = lowField(x);
                    bv1[1] = highField(x);
                    bv1[2] = lowField(y);
                }
                if (MAXDI == 2) {
                    const uint32_t x = __shfl_sync(kFull, bLo, 8 + u), y = __shfl_sync(kFull, bHi, 8 + u);
                    bv2[0] = lowField(x);
                    bv2[1] = highField(x);
                    bv2[2] = lowField(y);
                }
                int r1[3], r2[3];
#pragma unroll
                for (int c = 0; c < 3; ++c) {
                    r1[c] = __shfl_sync(kFull, e[c], (lane + 31) & 31);
                    r2[c] = MAXDI == 2 ? __shfl_sync(kFull, e[c], (lane + 30) & 31) : 0;
                }
                uint32_t T[3];
#pragma unroll
                for (int c = 0; c < 3; ++c) {
                    const int above1 = lane == 0 ? bv1[c] : r1[c];
#pragma unroll
                    for (int m = M1; m >= 2; --m) H1[c][m] = H1[c][m - 1];
                    H1[c][1] = above1;
                    if (MAXDI == 2) {
                        const int above2 = lane == 0 ? bv2[c] : lane == 1 ? bv1[c] : r2[c];
#pragma unroll
                        for (int m = M2; m >= 2; --m) H2[c][m] = H2[c][m - 1];
                        H2[c][1] = above2;
                    }
#pragma unroll
                    for (int m = MG; m >= 2; --m) G[c][m] = G[c][m - 1];
                    G[c][1] = e[c];
                    int acc = 0;
#pragma unroll
                    for (int k = 0; k < KD.n; ++k) {
                        const TapC tp = KD.t[k];
                        if (tp.di == 0)
                            acc += tp.w * G[c][tp.dj];
                        else if (tp.di == 1)
                            acc += tp.w * H1[c][K + tp.dj];
                        else
                            acc += tp.w * H2[c][2 * K + tp.dj];
                    }
                    const int S = A[u][c] + roundedShare<D>(acc);
                    T[c] = uint32_t(min(max(S, 0), 4080));
                }
                const int k = nearestEntry<NMAX>(a.keys, T[0], T[1], T[2]);
                const int2 P = sTarget[k];
                const int E0 = int(T[0]) - (P.x & 0xffff), E1 = int(T[1]) - (P.x >> 16), E2 = int(T[2]) - P.y;
                const bool valid = rowOk && unsigned(j) < unsigned(W);
                e[0] = valid ? E0 : 0;
                e[1] = valid ? E1 : 0;
                e[2] = valid ? E2 : 0;
                Vout[u] = uint8_t(k);
                if (publish && valid) {
                    const Word word = epochTag | (Word(uint32_t(E2) & 0xffffu) << 32) |
                                      Word((uint32_t(E0) & 0xffffu) | (uint32_t(E1) << 16));
                    if (lane == 31) __stcg(myB1 + j, word);
                    if (MAXDI == 2 && lane == 30) __stcg(myB2 + j, word);
                }
            }
#pragma unroll
            for (int u = 0; u < kGroup; ++u) {
                const int j = g0 + u - K * lane;
                if (rowOk && unsigned(j) < unsigned(W)) outRow[j] = Vout[u];
            }
        }
        strip::finish(sa, s, min(H, base + 32), lane);
    }
}

using KernelFn = void (*)(PaletteWavefrontArgs);

/// \brief The instance of kernel ID, or null for a kernel the strips do not handle (wavefrontFits).
template <int ID, int NMAX>
KernelFn paletteInstance() {
    if constexpr (wavefrontFits(kernelDef(ID), minDelayOf(kernelDef(ID)) + PalettePolicy::kExtraDelay))
        return &paletteKernel<ID, NMAX>;
    else
        return nullptr;
}

template <int NMAX, int... I>
KernelFn paletteKernelForIdOf(int id, std::integer_sequence<int, I...>) {
    KernelFn fn = nullptr;
    (void)((id == I ? (fn = paletteInstance<I, NMAX>(), true) : false) || ...);
    return fn;
}
template <int NMAX>
KernelFn paletteKernelForId(int id) {
    return paletteKernelForIdOf<NMAX>(id, std::make_integer_sequence<int, kKernelCount>());
}

/// \brief The instance for a kernel and palette size: unrolled searches of 4, 8 or 16 entries, the loop above that.
KernelFn paletteKernelFor(int id, int colors) {
    static_assert(PalettePolicy::kUnrolled == 16, "the unrolled forms are 4, 8 and 16 entries");
    if (colors <= 4) return paletteKernelForId<4>(id);
    if (colors <= 8) return paletteKernelForId<8>(id);
    if (colors <= 16) return paletteKernelForId<16>(id);
    return paletteKernelForId<0>(id);
}

__global__ void packRgbKernel(const uint8_t* r, const uint8_t* g, const uint8_t* b, int planePitch, uint32_t* dst,
                              int dstPitch, int width, int height) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= width) return;
    for (int y = blockIdx.y; y < height; y += gridDim.y) {
        const size_t i = size_t(y) * planePitch + x;
        dst[size_t(y) * dstPitch + x] = uint32_t(r[i]) | (uint32_t(g[i]) << 8) | (uint32_t(b[i]) << 16);
    }
}

}  // namespace

int paletteStripRows() { return 32; }

bool paletteWavefrontHasKernel(int kernelIndex) {
    return kernelIndex >= 0 && kernelIndex < kKernelCount && paletteKernelFor(kernelIndex, 16) != nullptr;
}

cudaError_t launchPaletteWavefront(int kernelIndex, const PaletteWavefrontArgs& a, int smCount, cudaStream_t stream) {
    if (kernelIndex < 0 || kernelIndex >= kKernelCount || a.keys.size < 1 || a.keys.size > kMaxPalette)
        return cudaErrorInvalidValue;
    const KernelFn fn = paletteKernelFor(kernelIndex, a.keys.size);
    if (!fn) return cudaErrorInvalidValue;
    const int strips = (a.strip.height + 31) / 32;
    int blocks = (strips + kWarpsPerBlock - 1) / kWarpsPerBlock;
    if (blocks > smCount) blocks = smCount;
    if (blocks < 1) blocks = 1;
    fn<<<blocks, kWarpsPerBlock * 32, 0, stream>>>(a);
    return cudaGetLastError();
}

cudaError_t launchPackRgb(const uint8_t* r, const uint8_t* g, const uint8_t* b, int planePitch, uint32_t* dst,
                          int dstPitch, int width, int height, cudaStream_t stream) {
    if (width <= 0 || height <= 0) return cudaSuccess;
    const dim3 block(256);
    const dim3 grid((width + 255) / 256, height < 65535 ? height : 65535);
    packRgbKernel<<<grid, block, 0, stream>>>(r, g, b, planePitch, dst, dstPitch, width, height);
    return cudaGetLastError();
}

}  // namespace halftone::gpu
