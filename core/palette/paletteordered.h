#pragma once
// \brief Ordered dither to a colour palette (docs/spec.md section 5): a mixing plan of palette colours per input
// colour (Yliluoma's greedy plan, computed in linear light in integers), and the threshold array picking one entry.
#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "core/image.h"
#include "core/palette/palette.h"
#include "core/runcontrol.h"
#include "core/screen/screen.h"
#include "core/status.h"

namespace halftone {

inline constexpr int kMinMixingPlan = 1;
inline constexpr int kMaxMixingPlan = 256;
inline constexpr int kDefaultMixingPlan = 64;
/// \brief Up to this many bytes, ordered dither to a palette computes the plan of every distinct colour of the image
/// once into a table; beyond, each thread caches the plans of recent colours.
inline constexpr uint64_t kPlanTableBytes = uint64_t(256) << 20;

/// \brief Computes mixing plans: for an input colour, N palette indices whose mean in linear light is close to the
/// colour by the match's distance, ordered brightest first (docs/spec.md section 5).
class MixingPlanner {
public:
    /// \brief `planSize` N in kMinMixingPlan..kMaxMixingPlan (clamped); `match` the distance of each step.
    MixingPlanner(const Palette& palette, int planSize, PaletteMatch match);
    int planSize() const { return n_; }
    /// \brief Writes the plan of the 8-bit sRGB colour (r, g, b) to out[0 .. N-1], brightest entry first.
    void plan(uint8_t r, uint8_t g, uint8_t b, uint8_t* out) const;
    /// \brief The plan entry each threshold value t picks on `screen` (M entries): the centre of the ranks that
    /// hold t, entry(t) = min(N - 1, floor(N (F(t) + G(t)) / (2 M))) with F(t) the count of entries below t and
    /// G(t) the count at or below t, so that every entry is picked equally often over one period of the screen.
    static std::array<uint8_t, 256> entryTable(const ThresholdArray& screen, int planSize);

private:
    int n_;
    std::vector<std::array<int64_t, 3>> targets_;  // P_k in linear light, scale 4080
    std::array<int64_t, 3> weights_{};             // (w_R, w_G, w_B) of the match
    std::vector<int64_t> norm_;                    // w_R P_R^2 + w_G P_G^2 + w_B P_B^2
    std::vector<int> rank_;                        // position of palette index k in brightest-first order
    std::array<int32_t, 256> input_{};             // round(4080 lin(a / 255))
};

/// \brief Ordered dither of an RGB image (three planes, or one gray plane used as R = G = B) to `palette` with the
/// threshold array `screen` (tiled from the top-left corner) and the plans of `match`; `indices` gets the palette
/// index per pixel.
/// Plans and rows run on `control.threads` threads (the indices do not depend on the count); cancellation is checked
/// per band of work.
/// `planTableBytes` bounds the table of every distinct colour's plan (0 forces the per-thread caches; same indices).
Status orderedPaletteDither(const Image& rgb, const Palette& palette, const ThresholdArray& screen, int planSize,
                            PaletteMatch match, Plane8& indices, const RunControl& control = {},
                            uint64_t planTableBytes = kPlanTableBytes);

}  // namespace halftone
