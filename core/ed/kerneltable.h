#pragma once
// \brief The error-diffusion kernels of docs/spec.md section 1 as plain constants (C++17, no allocation): core's
// kernels() (core/ed/kernel.cpp) and the GPU kernels' compile-time taps (gpu/devicecommon.cuh) are both made from this
// one table, in this order.
namespace halftone::kerneltable {

/// \brief One tap: error of pixel (i, j) goes to (i + di, j + dj) with weight w.
struct TapDef {
    int di, dj, w;
};

/// \brief A kernel: its name, `count` taps (at most 12) and the divisor.
struct KernelDef {
    const char* name;
    TapDef taps[12];
    int count;
    int divisor;
};

inline constexpr KernelDef kKernels[] = {
    {"floyd-steinberg", {{0, 1, 7}, {1, -1, 3}, {1, 0, 5}, {1, 1, 1}}, 4, 16},
    {"jarvis",
     {{0, 1, 7},
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
     48},
    {"stucki",
     {{0, 1, 8},
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
     42},
    {"burkes", {{0, 1, 8}, {0, 2, 4}, {1, -2, 2}, {1, -1, 4}, {1, 0, 8}, {1, 1, 4}, {1, 2, 2}}, 7, 32},
    {"sierra",
     {{0, 1, 5}, {0, 2, 3}, {1, -2, 2}, {1, -1, 4}, {1, 0, 5}, {1, 1, 4}, {1, 2, 2}, {2, -1, 2}, {2, 0, 3}, {2, 1, 2}},
     10,
     32},
    {"sierra2", {{0, 1, 4}, {0, 2, 3}, {1, -2, 1}, {1, -1, 2}, {1, 0, 3}, {1, 1, 2}, {1, 2, 1}}, 7, 16},
    {"sierra-lite", {{0, 1, 2}, {1, -1, 1}, {1, 0, 1}}, 3, 4},
    {"atkinson", {{0, 1, 1}, {0, 2, 1}, {1, -1, 1}, {1, 0, 1}, {1, 1, 1}, {2, 0, 1}}, 6, 8},
    {"fan", {{0, 1, 7}, {1, -2, 1}, {1, -1, 3}, {1, 0, 5}}, 4, 16},
    {"shiau-fan", {{0, 1, 4}, {1, -2, 1}, {1, -1, 1}, {1, 0, 2}}, 4, 8},
    {"shiau-fan2", {{0, 1, 8}, {1, -3, 1}, {1, -2, 1}, {1, -1, 2}, {1, 0, 4}}, 5, 16},
    {"stevenson-arce",
     {{0, 2, 32},
      {1, -3, 12},
      {1, -1, 26},
      {1, 1, 30},
      {1, 3, 16},
      {2, -2, 12},
      {2, 0, 26},
      {2, 2, 12},
      {3, -3, 5},
      {3, -1, 12},
      {3, 1, 12},
      {3, 3, 5}},
     12,
     200},
    {"hocevar-niger", {{0, 1, 7}, {1, -1, 4}, {1, 0, 5}}, 3, 16},
};
inline constexpr int kCount = int(sizeof(kKernels) / sizeof(kKernels[0]));

/// \brief The table keeps docs/spec.md section 1's rules: 1..12 taps of positive weight, none reaching back (di >= 0,
/// dj > 0 on the pixel's own row), at most three rows down, and weights summing to at most the divisor.
constexpr bool tableIsValid() {
    for (const KernelDef& k : kKernels) {
        if (k.count < 1 || k.count > 12 || k.divisor < 1) return false;
        int sum = 0;
        for (int i = 0; i < k.count; ++i) {
            const TapDef& t = k.taps[i];
            if (t.w <= 0 || t.di < 0 || t.di > 3 || (t.di == 0 && t.dj <= 0)) return false;
            sum += t.w;
        }
        if (sum > k.divisor) return false;
    }
    return true;
}
static_assert(tableIsValid(), "every kernel keeps the rules of docs/spec.md section 1");

}  // namespace halftone::kerneltable
