#pragma once
// \brief MBVQ colour error diffusion (Shaked, Arad, Fitzhugh and Sobel 1999): vector error diffusion to the eight
// corners of the RGB cube where each pixel may use only the four colours of the minimal-brightness-variation
// quadruple of its input colour (docs/spec.md section 6).
#include <array>
#include <cstdint>

#include "core/ed/errordiffusion.h"
#include "core/image.h"
#include "core/palette/palette.h"
#include "core/runcontrol.h"
#include "core/status.h"

namespace halftone {

/// \brief The six quadruples of Shaked et al., each a set of four RGB-cube corners.
enum class MbvqQuadruple { CMYW, MYGC, RGMY, KRGB, RGBM, CMGB };

/// \brief The eight-colour device palette in CMYRGBWK order: cyan, magenta, yellow, red, green, blue, white, black.
const Palette& mbvqPalette();

/// \brief The quadruple of a working-space colour (each channel at scale 16, 0..4080; docs/spec.md section 6).
MbvqQuadruple mbvqQuadruple(int32_t r, int32_t g, int32_t b);

/// \brief The four corners of a quadruple as indices into mbvqPalette(), in the tie-break order.
std::array<int, 4> mbvqVertices(MbvqQuadruple q);

/// \brief The quadruple's name ("CMYW", ...).
const char* toString(MbvqQuadruple q);

/// \brief Maps each corner of the RGB cube (code 4 R + 2 G + B with R, G, B in {0, 1}) to its index in `palette`;
/// an error naming the palette unless it is exactly the eight corners, in any order.
Status mbvqCornerIndices(const Palette& palette, std::array<int, 8>& indexOfCorner);

/// \brief MBVQ error diffusion of an RGB image (three planes, or one gray plane used as R = G = B) to the eight
/// corners listed in `palette` (any order); `indices` gets each pixel's index into `palette`. Uses params.kernel,
/// params.serpentine and params.linear. Progress and cancellation per row.
Status mbvqErrorDiffusion(const Image& rgb, const Palette& palette, const EdParams& params, Plane8& indices,
                          const RunControl& control = {});

class Registry;
/// \brief Registers `ed/mbvq`.
void registerMbvqMethods(Registry& r);

}  // namespace halftone
