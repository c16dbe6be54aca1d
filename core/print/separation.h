#pragma once
// \brief Colour separation of sRGB into the process inks cyan, magenta, yellow and black: grey component
// replacement (GCR) with under-colour removal (UCR) and a total ink limit, in integers (docs/spec.md, "Separation into
// inks").
#include <array>
#include <cstdint>
#include <string>

#include "core/status.h"

namespace halftone {

/// \brief The process inks' names in plane order, as TIFF InkNames and plate file names give them.
inline constexpr std::array<const char*, 4> kInkNames = {"Cyan", "Magenta", "Yellow", "Black"};

/// \brief How `--color cmyk` separates: GCR percent and total ink limit percent.
struct SeparationParams {
    /// Percent (0..100) of the common grey min(C, M, Y) moved to the black ink; 100 (the default) prints every
    /// neutral with black alone.
    int gcr = 100;
    /// Total ink limit in percent (0..400): C + M + Y + K never exceeds floor(inkLimit x 255 / 100); 400 = no limit.
    int inkLimit = 400;
};

/// \brief Checks the ranges (gcr 0..100, inkLimit 0..400); the message names the option.
Status checkSeparation(const SeparationParams& p);

/// \brief The total ink cap in 8-bit units: floor(inkLimit x 255 / 100).
int inkCap(int inkLimit);

/// \brief Separates one sRGB pixel into C, M, Y, K (0 = no ink, 255 = solid), docs/spec.md "Separation into inks".
std::array<uint8_t, 4> separatePixel(uint8_t r, uint8_t g, uint8_t b, const SeparationParams& p);

/// \brief Applies the total ink limit to one CMYK pixel in place: C, M and Y are scaled down (floor) so that
/// C + M + Y + K <= inkCap(inkLimit); K is kept unless it alone exceeds the cap.
void limitInk(std::array<uint8_t, 4>& cmyk, int inkLimit);

}  // namespace halftone
