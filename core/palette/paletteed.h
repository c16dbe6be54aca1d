#pragma once
// \brief Error diffusion to a colour palette (docs/spec.md section 4): the reference recurrence that every
// implementation (sequential, parallel CPU, GPU) reproduces bit for bit.
#include <cstdint>
#include <vector>

#include "core/ed/errordiffusion.h"
#include "core/image.h"
#include "core/palette/palette.h"
#include "core/ed/parallel.h"
#include "core/runcontrol.h"
#include "core/status.h"

namespace halftone {

/// \brief The palette in the working space of section 4: targets P_kc at scale 16 (gamma: 16 x; linear:
/// round(4080 lin(x / 255)) from the same table as section 1), the scale-16 input table, and the match's channel
/// weights, which every nearest-colour search of every engine takes from here.
struct PaletteTargets {
    std::vector<std::array<int32_t, 3>> targets;  ///< P_k (R, G, B), in palette order
    std::array<int32_t, 256> input{};             ///< A for an 8-bit input value
    std::array<int32_t, 3> weights{};             ///< (w_R, w_G, w_B) of the match: (1, 1, 1) or (299, 587, 114)
    PaletteTargets(const Palette& p, bool linear, PaletteMatch match);
    int size() const { return int(targets.size()); }
    /// \brief w_R dR^2 + w_G dG^2 + w_B dB^2 between (r, g, b) and target `p` (64-bit; |d| <= 4080, so at most
    /// 1000 x 4080^2 < 2^35).
    int64_t distance(int32_t r, int32_t g, int32_t b, const std::array<int32_t, 3>& p) const {
        const int64_t dr = r - p[0], dg = g - p[1], db = b - p[2];
        return weights[0] * dr * dr + weights[1] * dg * dg + weights[2] * db * db;
    }
    /// \brief The index k minimising distance() to P_k, ties to the smaller k.
    int nearest(int32_t r, int32_t g, int32_t b) const;
};

/// \brief Section 4 in its simplest form: raster or serpentine order, a full-size error buffer per channel.
/// `rgb` holds three planes (gray input: the same plane three times); returns the palette index per pixel.
/// Uses params.kernel, params.serpentine, params.linear and params.match (params.levels is ignored).
Plane8 referencePaletteErrorDiffusion(const Image& rgb, const Palette& palette, const EdParams& params);

/// \brief Section 4 in one of the four sequential forms of Kasagi, Nakano and Ito, Table V (1) (diffusion or
/// collection, full buffer or register caching), three channels interleaved, raster or serpentine; the nearest
/// colour through NearestColor (core/palette/nearestcolor.h) with cells of side 2^searchShift (0: chosen by palette
/// size; 12: one cell, the full search; the benchmark compares them). Bit-identical to referencePaletteErrorDiffusion.
Status paletteErrorDiffuse(const Image& rgb, const Palette& palette, Plane8& indices, const EdParams& params,
                           EdVariant variant, const RunControl& control = {}, int searchShift = 0);

/// \brief Section 4 as the k-delay wavefront on several threads (the "wavefront" schedule: bands of
/// simdBandRows(options.simd) rows, each running ahead as far as the band above allows); serpentine runs
/// sequentially. Bit-identical to referencePaletteErrorDiffusion.
Status wavefrontPaletteErrorDiffusion(const Image& rgb, const Palette& palette, Plane8& indices, const EdParams& params,
                                      const ParallelOptions& options, const RunControl& control = {});

/// \brief Section 4 in the trapezoid blocks of Deshpande, Misra and Narayanan (the "trapezoid" schedule, one barrier
/// per block diagonal), a full error plane; serpentine runs sequentially. Bit-identical to
/// referencePaletteErrorDiffusion.
Status trapezoidPaletteErrorDiffusion(const Image& rgb, const Palette& palette, Plane8& indices, const EdParams& params,
                                      const ParallelOptions& options, const RunControl& control = {});

/// \brief The fixed kernel params.kernel names, for a colour method (`method`, e.g. "palette error diffusion", names it
/// in the message); an error for an unknown kernel or one whose weights follow a gray input level.
Status fixedColorKernel(const EdParams& params, const char* method, const Kernel*& kernel);

/// \brief Expands palette indices to an RGB image.
Image expandIndexed(const Plane8& indices, const Palette& palette);

}  // namespace halftone
