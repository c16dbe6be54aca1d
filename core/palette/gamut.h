#pragma once
// \brief Tone and gamut mapping of an image into the colours a palette can make (a panel's shown colours), in CIELAB,
// before the method runs: the tone curve maps the image's lightness onto the palette's black-to-white range, the
// gamut mapping moves colours the palette cannot mix onto (clip) or toward (compress) its gamut (docs/targets.md).
#include <array>
#include <string>
#include <vector>

#include "core/image.h"
#include "core/palette/palette.h"
#include "core/runcontrol.h"
#include "core/status.h"

namespace halftone {

/// \brief How the image's lightness is mapped onto the palette's range.
enum class ToneMap {
    None,    ///< unchanged (the default)
    Auto,    ///< L* 0..100 linearly onto the palette's darkest..lightest L*: shadows and highlights kept
    SCurve,  ///< the same through s(t) = 0.6 t + 0.4 (3t^2 - 2t^3): more mid-tone contrast, ends kept (slope 0.6)
};

/// \brief What happens to colours outside the palette's gamut.
enum class GamutMap {
    None,      ///< unchanged (the default)
    Clip,      ///< out-of-gamut colours move toward the gray axis at constant L* and hue onto the gamut's surface
    Compress,  ///< the chroma between 70 % of the gamut's boundary and the sRGB boundary is compressed linearly
               ///< into the last 30 %: nearby in-gamut colours move a little so that gradations survive
};

const char* toString(ToneMap t);
bool parseToneMap(const std::string& s, ToneMap& out);
const char* toString(GamutMap g);
bool parseGamutMap(const std::string& s, GamutMap& out);

/// \brief The colours a palette can make by dithering: the convex hull of its colours in linear light (a segment for
/// gray palettes, a polygon for three colours or coplanar ones).
class PaletteGamut {
public:
    explicit PaletteGamut(const Palette& palette);
    /// \brief True when the linear-light colour is inside the hull (within 1e-6).
    bool contains(const std::array<double, 3>& linear) const;
    /// \brief L* of the darkest and the lightest colour.
    double blackL() const { return blackL_; }
    double whiteL() const { return whiteL_; }
    /// \brief The linear-light colour on the segment from the darkest to the lightest colour with luminance Y (clamped
    /// to its ends): the gray axis of the palette.
    std::array<double, 3> axisPoint(double luminance) const;

private:
    std::vector<std::array<double, 3>> points_;
    std::vector<std::array<double, 4>> planes_;  ///< n and d of n . x <= d, n of unit length
    int rank_ = 0;                               ///< affine dimension of the points: 0, 1, 2 or 3
    std::array<double, 3> dark_{}, light_{};
    double blackL_ = 0, whiteL_ = 100;
};

/// \brief The colour `rgb` (8-bit sRGB) mapped by the tone curve and the gamut mapping into `gamut`.
Rgb8 mapColor(const Rgb8& rgb, const PaletteGamut& gamut, ToneMap tone, GamutMap mapping);

/// \brief Maps every pixel of an RGB image (three planes; alpha untouched) into the palette's range and gamut through
/// a 33 x 33 x 33 table of mapColor with trilinear interpolation; cancel between rows. Nothing changes when both
/// mappings are None.
Status mapToPalette(Image& rgb, const Palette& palette, ToneMap tone, GamutMap mapping, const RunControl& control = {});

}  // namespace halftone
