#pragma once
// \brief nvcc-only helpers shared by the kernels: compile-time SPEC kernels, floor division, quantizer lookups.
#include <cuda_runtime.h>

#include <cstdint>

#include "gpu/launch.h"

namespace halftone::gpu::dev {

struct TapC {
    int di, dj, w;
};
/// \brief A SPEC kernel as a literal type (same order as core/kernel.cpp's kernels()).
struct KernelC {
    TapC t[12];
    int n;
    int D;
};

__host__ __device__ constexpr KernelC kernelDef(int id) {
    switch (id) {
        case 0:
            return KernelC{{{0, 1, 7}, {1, -1, 3}, {1, 0, 5}, {1, 1, 1}}, 4, 16};
        case 1:
            return KernelC{{{0, 1, 7},
                            {0, 2, 5},
                            {1, -2, 3},
                            {1, -1, 5},
                            {1, 0, 7},
                            {1, 1, 5},
                            {1, 2, 3},
                            {2, -2, 1},
                            {2, -1, 3},
                            {2, 0, 5},
                            {2, 1, 3},
                            {2, 2, 1}},
                           12,
                           48};
        case 2:
            return KernelC{{{0, 1, 8},
                            {0, 2, 4},
                            {1, -2, 2},
                            {1, -1, 4},
                            {1, 0, 8},
                            {1, 1, 4},
                            {1, 2, 2},
                            {2, -2, 1},
                            {2, -1, 2},
                            {2, 0, 4},
                            {2, 1, 2},
                            {2, 2, 1}},
                           12,
                           42};
        case 3:
            return KernelC{{{0, 1, 8}, {0, 2, 4}, {1, -2, 2}, {1, -1, 4}, {1, 0, 8}, {1, 1, 4}, {1, 2, 2}}, 7, 32};
        case 4:
            return KernelC{{{0, 1, 5},
                            {0, 2, 3},
                            {1, -2, 2},
                            {1, -1, 4},
                            {1, 0, 5},
                            {1, 1, 4},
                            {1, 2, 2},
                            {2, -1, 2},
                            {2, 0, 3},
                            {2, 1, 2}},
                           10,
                           32};
        case 5:
            return KernelC{{{0, 1, 4}, {0, 2, 3}, {1, -2, 1}, {1, -1, 2}, {1, 0, 3}, {1, 1, 2}, {1, 2, 1}}, 7, 16};
        case 6:
            return KernelC{{{0, 1, 2}, {1, -1, 1}, {1, 0, 1}}, 3, 4};
        default:
            return KernelC{{{0, 1, 1}, {0, 2, 1}, {1, -1, 1}, {1, 0, 1}, {1, 1, 1}, {2, 0, 1}}, 6, 8};
    }
}
inline constexpr int kKernelCount = 8;

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

}  // namespace halftone::gpu::dev
