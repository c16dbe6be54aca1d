#pragma once
// \brief Internal interface between the wavefront driver (core/ed/parallel.cpp) and the per-ISA band
// kernels (core/ed/simd_*.cpp, each compiled for its own instruction set and picked at run time).
// Plain C-style types only: the SIMD translation units must not instantiate shared std templates.
#include <cstddef>
#include <cstdint>

#include "core/ed/parallel_kernels.h"
#include "core/ed/varkerneltable.h"

namespace halftone::par {

/// \brief Rows a kernel may reach down (core/ed/kerneltable.h checks its kernels against this).
inline constexpr int kMaxBandDi = 3;

/// \brief One band of `bandRows` rows (one row per SIMD lane) run as a k-delay wavefront.
struct BandJob {
    int width = 0;
    int rows = 0;  ///< rows of the image in this band (<= bandRows; the last band may be short)
    const uint8_t* src = nullptr;
    ptrdiff_t srcStride = 0;
    uint8_t* dst = nullptr;
    ptrdiff_t dstStride = 0;
    const int32_t* prevErr[kMaxBandDi] = {};  ///< errors of image rows i0-1, i0-2, i0-3 (null: outside)
    int32_t* nextErr[kMaxBandDi] = {};        ///< receives errors of band rows bandRows-1, bandRows-2, bandRows-3
    // quantizer (docs/spec.md section 1)
    bool binary = true;
    bool gammaInput = true;               ///< A = 16 a (else inputTable)
    const int32_t* inputTable = nullptr;  ///< 256 entries
    int32_t threshold0 = 2040;            ///< binary: level 1 iff S > threshold0
    int32_t binaryTarget1 = 4080;         ///< binary: Q_1
    uint8_t binaryValue1 = 255;
    const int32_t* levelLut = nullptr;  ///< multi-level: lut[clamp(S,0,4080)] = Q_k | (v_k << 16)
    // level-dependent kernels (docs/spec.md section 1)
    const int32_t* varWeights = nullptr;  ///< 256 entries: W_right(a) | (W_downLeft(a) << 16); W_down = D - both
    const int32_t* modScale = nullptr;    ///< 256 entries: the modulation word of each input level
    uint32_t seed = 1;                    ///< the modulation noise's seed
    int firstRow = 0;                     ///< image row of the band's first row (the noise hashes image coordinates)
    // synchronisation with the band above (driver callbacks)
    void* ctx = nullptr;
    /// Called before steps [.., t1) run: waits until the band above is far enough; false = cancelled.
    bool (*wait)(void* ctx, int64_t t1) = nullptr;
    /// Called after steps [0, t1) are done and their error rows written.
    void (*publish)(void* ctx, int64_t t1) = nullptr;
};

/// \brief Runs a whole band; returns false when cancelled.
using BandFn = bool (*)(const BandJob& job);

/// \brief One instruction-set path: name, lanes, band height, and a band kernel per SPEC kernel.
struct SimdPathInfo {
    const char* name;
    int lanes;
    int bandRows;
    int chunk;  ///< steps between progress publications
    BandFn kernels[kKernelCount];
    BandFn varKernels[kVarKernelCount];  ///< the level-dependent kernels
};

const SimdPathInfo& simdPathAvx512();
const SimdPathInfo& simdPathAvx2();
const SimdPathInfo& simdPathSse();
const SimdPathInfo& simdPathScalar();

}  // namespace halftone::par
