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

#include "core/ed/gpustrips.h"
#include "gpu/devicecommon.cuh"
#include "gpu/palette/palette_launch.h"
#include "gpu/ed/wavefront_strip.cuh"

namespace halftone::gpu {
namespace {

using namespace dev;

/// \brief The palette kernel's tuning; its strip shape comes from core/ed/gpustrips.h.
struct PalettePolicy {
    static constexpr int kWarpsPerBlock = gpustrips::kPalette.warpsPerBlock;
    /// steps between rows beyond the kernel's minimal delay: none, the shuffle's latency is small beside the step
    static constexpr int kExtraDelay = gpustrips::kPalette.extraDelay;
    static constexpr int kGroup = gpustrips::kPalette.group;  ///< steps per boundary-check group (and input prefetch)
    static constexpr int kChunk = gpustrips::kPalette.chunk;  ///< steps between two reads of the cancel flag
    static constexpr int kUnrolled = 16;  ///< palettes up to this size run an unrolled search (of 4, 8 or 16 entries)
};
static_assert(gpustrips::kPalette.rowSets == 1, "one row per lane: strips of 32 rows");

constexpr int kWarpsPerBlock = PalettePolicy::kWarpsPerBlock;

using Word = unsigned long long;

__device__ __forceinline__ int lowField(uint32_t x) { return int(short(x & 0xffffu)); }
__device__ __forceinline__ int highField(uint32_t x) { return int(x) >> 16; }
__device__ __forceinline__ Word umax64(Word a, Word b) { return a > b ? a : b; }

/// \brief x y as a 64-bit product of two 32-bit operands: spelled out, since the compiler otherwise may hoist the
/// palette's operands out of the strip loop as 64-bit values and multiply in 64 bits.
__device__ __forceinline__ Word mulWide(uint32_t x, uint32_t y) {
    Word p;
    asm("mul.wide.u32 %0, %1, %2;" : "=l"(p) : "r"(x), "r"(y));
    return p;
}

/// \brief The key of entry i (gpu/palette/palette_keys.h): c_i + T_R a_iR + T_G a_iG + T_B a_iB, unsigned 64-bit.
__device__ __forceinline__ Word keyOf(const PaletteKeys& k, int i, uint32_t r, uint32_t g, uint32_t b) {
    return Word(k.c[i]) + mulWide(r, k.a[0][i]) + mulWide(g, k.a[1][i]) + mulWide(b, k.a[2][i]);
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

/// \brief The palette pixel step for strip::run: kernel ID (position in core's kernels()) and search form NMAX (see
/// nearestEntry). Three channels of error, S clamped to [0, 4080], the nearest palette entry; the packed input of a
/// group's pixels is read from global memory one group ahead, the palette indices stored after the group.
template <int ID_, int NMAX>
struct PaletteStep {
    using Word = unsigned long long;
    static constexpr int ID = ID_;
    static constexpr int C = 3;
    static constexpr int QS = 1;
    static constexpr int K = minDelayOf(kernelDef(ID)) + PalettePolicy::kExtraDelay;
    static constexpr int kGroup = PalettePolicy::kGroup;
    static constexpr int kChunk = PalettePolicy::kChunk;
    static constexpr int kAhead = 1;  ///< one group ahead: a group's steps outlast the L2 round trip
    static constexpr bool kUnrollGroups = false;
    static constexpr bool kRowAboveInput = false;
    static constexpr KernelC KD = kernelDef(ID);
    using Shape = strip::WindowShape<ID, K>;

    const PaletteWavefrontArgs& a;
    const int32_t* sInput;
    const int2* sTarget;
    int lane;
    bool rowOk[QS];
    const uint32_t* inRow = nullptr;
    uint8_t* outRow = nullptr;
    uint32_t inNext[kGroup];  ///< the packed colour of the next group's pixels
    int A[kGroup][3];
    uint8_t Vout[kGroup];

    /// E_R, E_G, E_B in the low 48 bits of a boundary word
    static __device__ __forceinline__ void decode(Word w, int (&v)[C]) {
        const uint32_t lo = uint32_t(w), hi = uint32_t(w >> 32);
        v[0] = lowField(lo);
        v[1] = highField(lo);
        v[2] = lowField(hi);
    }
    static __device__ __forceinline__ Word encode(const int (&e)[C], Word tag) {
        return tag | (Word(uint32_t(e[2]) & 0xffffu) << 32) | Word((uint32_t(e[0]) & 0xffffu) | (uint32_t(e[1]) << 16));
    }

    /// input of a group: the packed colour of every step's pixel
    __device__ __forceinline__ void inputLoad(int g0, uint32_t (&dst)[kGroup]) const {
#pragma unroll
        for (int u = 0; u < kGroup; ++u) {
            const int j = g0 + u - K * lane;
            dst[u] = rowOk[0] && unsigned(j) < unsigned(a.strip.width) ? __ldg(inRow + j) : 0u;
        }
    }
    __device__ __forceinline__ void beginStrip(int base) {
        const int row = base + lane;
        inRow = a.rgb + size_t(rowOk[0] ? row : 0) * a.rgbPitch;
        outRow = a.out + size_t(rowOk[0] ? row : 0) * a.outPitch;
        inputLoad(0, inNext);
    }
    __device__ __forceinline__ Word rowAboveWord(int, int, Word tag) const { return tag; }
    __device__ __forceinline__ void prefillAbove(Word, int, int) {}
    __device__ __forceinline__ void beginChunk(int) {}
    __device__ __forceinline__ void endChunk(int) {}
    __device__ __forceinline__ void beginGroup(int g0, Word) {
        uint32_t in[kGroup];
#pragma unroll
        for (int u = 0; u < kGroup; ++u) in[u] = inNext[u];
        inputLoad(g0 + kGroup, inNext);
#pragma unroll
        for (int u = 0; u < kGroup; ++u) {
            A[u][0] = sInput[in[u] & 255u];
            A[u][1] = sInput[(in[u] >> 8) & 255u];
            A[u][2] = sInput[(in[u] >> 16) & 255u];
        }
    }
    __device__ __forceinline__ void shuffles(int) {}
    template <class Win>
    __device__ __forceinline__ void pixel(int, int u, int, Win& w, int (&err)[C]) {
        uint32_t T[3];
#pragma unroll
        for (int c = 0; c < 3; ++c) {
            const int S = A[u][c] + roundedShare<KD.D>(strip::tapSum<ID, K, Shape::MG, Shape::M1, Shape::M2>(
                                        w.G[0][c], w.H1[0][c], w.H2[0][c]));
            T[c] = uint32_t(min(max(S, 0), 4080));
        }
        const int k = nearestEntry<NMAX>(a.keys, T[0], T[1], T[2]);
        const int2 P = sTarget[k];
        err[0] = int(T[0]) - (P.x & 0xffff);
        err[1] = int(T[1]) - (P.x >> 16);
        err[2] = int(T[2]) - P.y;
        Vout[u] = uint8_t(k);
    }
    __device__ __forceinline__ void endGroup(int g0) {
#pragma unroll
        for (int u = 0; u < kGroup; ++u) {
            const int j = g0 + u - K * lane;
            if (rowOk[0] && unsigned(j) < unsigned(a.strip.width)) outRow[j] = Vout[u];
        }
    }
};

/// \brief The palette wavefront: the strip protocol (gpu/ed/wavefront_strip.cuh) over PaletteStep<ID, NMAX>.
template <int ID, int NMAX>
__global__ void __launch_bounds__(kWarpsPerBlock * 32) paletteKernel(const __grid_constant__ PaletteWavefrontArgs a) {
    __shared__ int32_t sInput[256];
    __shared__ int2 sTarget[kMaxPalette];
    for (int i = threadIdx.x; i < 256; i += blockDim.x) sInput[i] = a.input[i];
    for (int i = threadIdx.x; i < kMaxPalette; i += blockDim.x)
        sTarget[i] = make_int2(a.keys.target[i][0], a.keys.target[i][1]);
    __syncthreads();

    PaletteStep<ID, NMAX> step{a, sInput, sTarget, int(threadIdx.x & 31)};
    strip::run(a.strip, a.boundary, a.boundaryStride, step);
}

using KernelFn = void (*)(PaletteWavefrontArgs);

/// \brief The instance of kernel `id` for search form NMAX, or null for a kernel the strips do not handle.
template <int NMAX>
KernelFn paletteKernelForId(int id) {
    return instanceFor<KernelFn, kKernelCount>(id, [](auto i) -> KernelFn {
        if constexpr (stripsFit(decltype(i)::value, PalettePolicy::kExtraDelay))
            return &paletteKernel<decltype(i)::value, NMAX>;
        return nullptr;
    });
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

int paletteStripRows() { return gpustrips::kPalette.rows(); }

bool paletteWavefrontHasKernel(int kernelIndex) {
    return kernelIndex >= 0 && kernelIndex < kKernelCount && paletteKernelFor(kernelIndex, 16) != nullptr;
}

cudaError_t launchPaletteWavefront(int kernelIndex, const PaletteWavefrontArgs& a, int smCount, cudaStream_t stream) {
    if (kernelIndex < 0 || kernelIndex >= kKernelCount || a.keys.size < 1 || a.keys.size > kMaxPalette)
        return cudaErrorInvalidValue;
    const KernelFn fn = paletteKernelFor(kernelIndex, a.keys.size);
    if (!fn) return cudaErrorInvalidValue;
    const int strips = (a.strip.height + paletteStripRows() - 1) / paletteStripRows();
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
