#pragma once
// \brief Compile-time views of the SPEC kernels for the parallel CPU code, made from the kernel tables
// (core/ed/kerneltable.h and core/ed/varkerneltable.h, the order of kernels()); band::compiledKernelId()
// (core/ed/bandengine.h) checks a runtime kernel against them tap by tap.
// Header-only and free of std templates with code, so SIMD translation units can include it.
#include <cstdint>

#include "core/ed/kerneltable.h"
#include "core/ed/varkerneltable.h"

namespace halftone::par {

using CTap = kerneltable::TapDef;

struct CKernel {
    const CTap* taps;
    int count;
    int divisor;
};

inline constexpr int kKernelCount = kerneltable::kCount;

struct KernelNameList {
    const char* names[kKernelCount];
};
inline constexpr KernelNameList kKernelNameList = [] {
    KernelNameList l{};
    for (int i = 0; i < kKernelCount; ++i) l.names[i] = kerneltable::kKernels[i].name;
    return l;
}();
inline constexpr const char* const* kKernelNames = kKernelNameList.names;

/// \brief The kernels whose weights depend on the input level (core/ed/varkerneltable.h), compiled as ids
/// kKernelCount + v: their taps (w = 1: the band kernels keep W_t(a) E per tap, not E), divisor and whether Zhou and
/// Fang's threshold modulation applies, all read from that table.
inline constexpr int kVarKernelCount = varkerneltable::kVarCount;
inline constexpr int kVarDivisor = varkerneltable::kDivisor;
struct VarTapList {
    CTap taps[varkerneltable::kTaps];
};
inline constexpr VarTapList kVarTapList = [] {
    VarTapList l{};
    for (int i = 0; i < varkerneltable::kTaps; ++i)
        l.taps[i] = CTap{varkerneltable::kTapDi[i], varkerneltable::kTapDj[i], 1};
    return l;
}();
inline constexpr const CTap* kVarTaps = kVarTapList.taps;
/// \brief Whether level-dependent kernel v modulates the threshold.
constexpr bool varModulated(int v) { return varkerneltable::kVarKernels[v].modulated; }
/// \brief Whether the modulation of level-dependent kernel v has the position-noise term.
constexpr bool varNoise(int v) { return varkerneltable::kVarKernels[v].noise; }
/// \brief Whether the modulation words of level-dependent kernel v are symmetric (word(a) = word(255 - a)), so that a
/// table of levels 0..127 holds them all: true without threshold offsets.
constexpr bool varSymmetricWords(int v) {
    for (int a = 0; a < 256; ++a)
        if (varkerneltable::kVarKernels[v].threshold[a] != 0) return false;
    return true;
}

/// \brief Kernel `Id` of the table at compile time.
template <int Id>
constexpr CKernel ckernel() {
    static_assert(Id >= 0 && Id < kKernelCount + kVarKernelCount, "kernel index inside core/ed/kerneltable.h");
    if constexpr (Id < kKernelCount)
        return {kerneltable::kKernels[Id].taps, kerneltable::kKernels[Id].count, kerneltable::kKernels[Id].divisor};
    else
        return {kVarTaps, varkerneltable::kTaps, kVarDivisor};
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
