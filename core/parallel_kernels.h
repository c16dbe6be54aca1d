#pragma once
// \brief Compile-time copies of the SPEC kernels for the parallel CPU code (checked against
// core/kernel.cpp at run time by kernelId(); a kernel that does not match is refused, never guessed).
// Header-only and free of std templates with code, so SIMD translation units can include it.
#include <cstdint>

namespace halftone::par {

struct CTap {
    int di, dj, w;
};

struct CKernel {
    const CTap* taps;
    int count;
    int divisor;
};

inline constexpr CTap kFs[] = {{0, 1, 7}, {1, -1, 3}, {1, 0, 5}, {1, 1, 1}};
inline constexpr CTap kJarvis[] = {{0, 1, 7}, {0, 2, 5},  {1, -2, 3}, {1, -1, 5}, {1, 0, 7}, {1, 1, 5},
                                   {1, 2, 3}, {2, -2, 1}, {2, -1, 3}, {2, 0, 5},  {2, 1, 3}, {2, 2, 1}};
inline constexpr CTap kStucki[] = {{0, 1, 8}, {0, 2, 4},  {1, -2, 2}, {1, -1, 4}, {1, 0, 8}, {1, 1, 4},
                                   {1, 2, 2}, {2, -2, 1}, {2, -1, 2}, {2, 0, 4},  {2, 1, 2}, {2, 2, 1}};
inline constexpr CTap kBurkes[] = {{0, 1, 8}, {0, 2, 4}, {1, -2, 2}, {1, -1, 4}, {1, 0, 8}, {1, 1, 4}, {1, 2, 2}};
inline constexpr CTap kSierra[] = {{0, 1, 5}, {0, 2, 3}, {1, -2, 2}, {1, -1, 4}, {1, 0, 5},
                                   {1, 1, 4}, {1, 2, 2}, {2, -1, 2}, {2, 0, 3},  {2, 1, 2}};
inline constexpr CTap kSierra2[] = {{0, 1, 4}, {0, 2, 3}, {1, -2, 1}, {1, -1, 2}, {1, 0, 3}, {1, 1, 2}, {1, 2, 1}};
inline constexpr CTap kSierraLite[] = {{0, 1, 2}, {1, -1, 1}, {1, 0, 1}};
inline constexpr CTap kAtkinson[] = {{0, 1, 1}, {0, 2, 1}, {1, -1, 1}, {1, 0, 1}, {1, 1, 1}, {2, 0, 1}};

inline constexpr int kKernelCount = 8;

/// \brief The kernels whose weights depend on the input level (core/varkerneltable.h, checked in core/parallel.cpp),
/// compiled as ids kKernelCount + v: their taps (w = 1: the band kernels keep W_t(a) E per tap, not E) and divisor.
inline constexpr CTap kVarTaps[] = {{0, 1, 1}, {1, -1, 1}, {1, 0, 1}};
inline constexpr int kVarDivisor = 1 << 14;
inline constexpr int kVarKernelCount = 2;
inline constexpr bool kVarModulated[kVarKernelCount] = {false, true};
inline constexpr const char* kKernelNames[kKernelCount] = {"floyd-steinberg", "jarvis",  "stucki",      "burkes",
                                                           "sierra",          "sierra2", "sierra-lite", "atkinson"};

template <int Id>
constexpr CKernel ckernel() {
    if constexpr (Id == 0)
        return {kFs, 4, 16};
    else if constexpr (Id == 1)
        return {kJarvis, 12, 48};
    else if constexpr (Id == 2)
        return {kStucki, 12, 42};
    else if constexpr (Id == 3)
        return {kBurkes, 7, 32};
    else if constexpr (Id == 4)
        return {kSierra, 10, 32};
    else if constexpr (Id == 5)
        return {kSierra2, 7, 16};
    else if constexpr (Id == 6)
        return {kSierraLite, 3, 4};
    else if constexpr (Id == 7)
        return {kAtkinson, 6, 8};
    else
        return {kVarTaps, 3, kVarDivisor};
}

/// \brief Smallest k with k*di + dj > 0 for every tap (Kasagi, Nakano and Ito's k-delay), at compile time.
constexpr int cdelay(CKernel k) {
    for (int d = 1;; ++d) {
        bool ok = true;
        for (int i = 0; i < k.count; ++i)
            if (d * k.taps[i].di + k.taps[i].dj <= 0) ok = false;
        if (ok) return d;
    }
}
constexpr int cmaxDi(CKernel k) {
    int m = 0;
    for (int i = 0; i < k.count; ++i) m = k.taps[i].di > m ? k.taps[i].di : m;
    return m;
}
constexpr int cmaxLeft(CKernel k) {
    int m = 0;
    for (int i = 0; i < k.count; ++i) m = -k.taps[i].dj > m ? -k.taps[i].dj : m;
    return m;
}
/// \brief Largest step lag dj + k*di of a source in the k-delay wavefront.
constexpr int cmaxLag(CKernel k) {
    const int d = cdelay(k);
    int m = 0;
    for (int i = 0; i < k.count; ++i) m = k.taps[i].dj + d * k.taps[i].di > m ? k.taps[i].dj + d * k.taps[i].di : m;
    return m;
}
constexpr bool isPow2(int x) { return x > 0 && (x & (x - 1)) == 0; }
constexpr int log2i(int x) { return x <= 1 ? 0 : 1 + log2i(x / 2); }

}  // namespace halftone::par
