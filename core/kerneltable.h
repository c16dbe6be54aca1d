#pragma once
// \brief The error-diffusion kernels of docs/spec.md section 1 as plain constants (C++17, no allocation): core's
// kernels() (core/kernel.cpp) and the GPU kernels' compile-time taps (gpu/devicecommon.cuh) are both made from this
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
};
inline constexpr int kCount = int(sizeof(kKernels) / sizeof(kKernels[0]));

}  // namespace halftone::kerneltable
