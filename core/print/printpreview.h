#pragma once
// \brief A picture of a CMYK halftone as printed: process inks on white paper, overprints multiplying in linear
// light (docs/studio-views.md, "Print preview"). For viewing only; no method or measure depends on it.
#include <array>
#include <cstdint>

#include "core/image.h"

namespace halftone {

/// \brief The colours of a print: the paper and each solid ink printed alone on it, as 8-bit sRGB.
struct PrintInks {
    std::array<uint8_t, 3> paper{255, 255, 255};
    std::array<uint8_t, 3> cyan{0x00, 0xAE, 0xEF};
    std::array<uint8_t, 3> magenta{0xEC, 0x00, 0x8C};
    std::array<uint8_t, 3> yellow{0xFF, 0xF2, 0x00};
    std::array<uint8_t, 3> black{0x23, 0x1F, 0x20};
};

/// \brief The RGB picture of a CMYK image printed with `inks`: per channel, in linear light,
/// paper x product over the four inks of (1 - a (1 - t)), where a = ink value / 255 is the ink's coverage and
/// t = ink / paper its reflectance, then encoded to 8-bit sRGB (rounded). A pixel with no ink is the paper, a pixel
/// with one solid ink is that ink, solid overprints multiply. Alpha is kept; an image that is not CMYK comes back
/// as convertColor(image, RGB).
Image simulatePrint(const Image& cmyk, const PrintInks& inks = {});

}  // namespace halftone
