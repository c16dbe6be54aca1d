#pragma once
// \brief nvcc-only helpers shared by the kernels: compile-time SPEC kernels, floor division, quantizer lookups.
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>
#include <utility>

#include "core/ed/kerneltable.h"
#include "core/ed/varkerneltable.h"
#include "gpu/ed/launch.h"

namespace halftone::gpu::dev {

struct TapC {
    int di, dj, w;
};
/// \brief A SPEC kernel as a literal type, from core's one kernel table (core/ed/kerneltable.h, the order of
/// kernels()).
struct KernelC {
    TapC t[12];
    int n;
    int D;
};

/// \brief The fixed kernels (core/ed/kerneltable.h): kernels() positions 0 .. kKernelCount - 1.
inline constexpr int kKernelCount = kerneltable::kCount;
/// \brief The level-dependent kernels (core/ed/varkerneltable.h): kernels() positions kKernelCount .. + kVarKernelCount
/// - 1.
inline constexpr int kVarKernelCount = varkerneltable::kVarCount;

/// \brief True when kernels() position `id` is a level-dependent kernel.
constexpr bool isLevelDependent(int id) { return id >= kKernelCount; }
/// \brief True when kernels() position `id` chooses its level from a perturbed value: position noise (Zhou and Fang)
/// or a threshold per level (Li and Allebach).
constexpr bool isModulated(int id) {
    return isLevelDependent(id) && varkerneltable::kVarKernels[id - kKernelCount].modulated;
}
/// \brief True when the perturbation of kernels() position `id` has the position-noise term (Zhou and Fang).
constexpr bool isNoisy(int id) { return isLevelDependent(id) && varkerneltable::kVarKernels[id - kKernelCount].noise; }

/// \brief Kernel `id` (position in core's kernels()); evaluated at compile time. A level-dependent kernel gives its
/// taps' shape with weight 0 (the weights come from the sending pixel's level at run time) and the common divisor.
constexpr KernelC kernelDef(int id) {
    KernelC k{};
    if (isLevelDependent(id)) {
        for (int i = 0; i < varkerneltable::kTaps; ++i)
            k.t[i] = TapC{varkerneltable::kTapDi[i], varkerneltable::kTapDj[i], 0};
        k.n = varkerneltable::kTaps;
        k.D = varkerneltable::kDivisor;
        return k;
    }
    const kerneltable::KernelDef& d = kerneltable::kKernels[id];
    for (int i = 0; i < 12; ++i) k.t[i] = TapC{d.taps[i].di, d.taps[i].dj, d.taps[i].w};
    k.n = d.count;
    k.D = d.divisor;
    return k;
}

__host__ __device__ constexpr int maxDiOf(const KernelC& k) {
    int m = 0;
    for (int i = 0; i < k.n; ++i) m = k.t[i].di > m ? k.t[i].di : m;
    return m;
}
/// \brief Largest dj over taps of row offset di (sources lie dj to the left).
__host__ __device__ constexpr int maxDjOf(const KernelC& k, int di) {
    int m = 0;
    for (int i = 0; i < k.n; ++i)
        if (k.t[i].di == di && k.t[i].dj > m) m = k.t[i].dj;
    return m;
}
/// \brief The minimal k of Kasagi, Nakano and Ito's k-delay schedule: k*di + dj > 0 for every tap.
__host__ __device__ constexpr int minDelayOf(const KernelC& k) {
    for (int d = 1; d < 16; ++d) {
        bool ok = true;
        for (int i = 0; i < k.n; ++i)
            if (d * k.t[i].di + k.t[i].dj <= 0) ok = false;
        if (ok) return d;
    }
    return 16;
}
/// \brief Whether the wavefront kernels' strips handle kernel `k` at row delay K: its taps reach at most two rows down
/// (errors come down the strip by shuffles from one or two lanes up), and a new strip's histories start from the
/// first 8 boundary words of each row above (columns 0 .. K - 2, and 0 .. 2K - 2 for a two-row kernel). A kernel
/// outside that runs on the CPU.
__host__ __device__ constexpr bool wavefrontFits(const KernelC& k, int K) {
    const int rows = maxDiOf(k);
    return rows >= 1 && rows <= 2 && (rows == 1 ? K - 2 : 2 * K - 2) < 8;
}
/// \brief Whether the strips handle kernel `id` at `extraDelay` steps beyond its minimal delay.
constexpr bool stripsFit(int id, int extraDelay) {
    return wavefrontFits(kernelDef(id), minDelayOf(kernelDef(id)) + extraDelay);
}
__host__ __device__ constexpr int log2Exact(int d) {
    int l = 0;
    while ((1 << l) < d) ++l;
    return (1 << l) == d ? l : -1;
}

/// \brief floor((x + D/2) / D) for |x| <= 4096 D, as the SPEC rounds the weighted error sum.
template <int D>
__device__ __forceinline__ int roundedShare(int x) {
    constexpr int l = log2Exact(D);
    if constexpr (l >= 0) {
        return (x + D / 2) >> l;  // arithmetic shift = floor division
    } else {
        constexpr int bias = 8192;
        return int((unsigned(x + D / 2 + D * bias)) / unsigned(D)) - bias;
    }
}

/// \brief Level lookup for S: packed Q_k | v_k << 16 from the table made by core's Quantizer.
__device__ __forceinline__ int lookupLevel(int s, const int32_t* table) {
    const int c = s < 0 ? 0 : (s > 4080 ? 4080 : s);
    return table[c];
}

/// \brief floor(a / b) for b > 0.
__device__ __forceinline__ int floorDivDev(int a, int b) {
    const int q = a / b;
    return (a % b != 0 && a < 0) ? q - 1 : q;
}

template <class Fn, class Make, int... I>
Fn instanceOf(int id, Make make, std::integer_sequence<int, I...>) {
    Fn fn = nullptr;
    (void)((id == I ? (fn = make(std::integral_constant<int, I>()), true) : false) || ...);
    return fn;
}
/// \brief Host side: make(std::integral_constant<int, I>()) for the I in 0..N-1 that equals `id` (null when none), the
/// template instance of a kernel picked by its position in core's kernel tables.
template <class Fn, int N, class Make>
Fn instanceFor(int id, Make make) {
    return instanceOf<Fn>(id, make, std::make_integer_sequence<int, N>());
}

}  // namespace halftone::gpu::dev
