#pragma once
// \brief A picture of a CMYK halftone as printed: process inks on white paper, overprints multiplying in linear
// light (docs/studio-views.md, "Print preview"). For viewing only; no method or measure depends on it.
#include <array>
#include <cstdint>

#include "core/image.h"
#include "core/runcontrol.h"
#include "core/status.h"

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

/// \brief How a print is shown at its printed size (docs/studio-views.md, "Printed size").
struct PrintSizeView {
    double deviceDpi = 600;  ///< the halftone's pixels per inch: the printer's resolution
    double viewDpi = 96;     ///< the picture's pixels per inch: the screen's logical dpi times the zoom
    double dotGain = 0;      ///< the press's dot gain at 50 %, in percent (the one number of docs/print.md)
    double lpi = 150;        ///< the screen ruling the gain is stated for: the AM screen's own, else 150
    PrintInks inks;
};

/// \brief The rim, in device pixels, by which a press of `gainPercent` spreads every dot: the width w that grows
/// the 50 % dot of a round (Euclidean) screen of period P = `periodPixels` by that share of the cell. That dot is a
/// square of side P / sqrt 2 turned 45 degrees (a checkerboard), perimeter 2 sqrt 2 P, so w = g P / (2 sqrt 2).
double dotGainRim(double gainPercent, double periodPixels);

/// \brief Each ink plane of a CMYK image with every dot spread by `rim` device pixels: a pixel keeps its amount, and
/// one near ink gets at least the share of it the rim covers, clamp(rim + 1 - d, 0, 1) x 255, where d is the
/// distance between its centre and the nearest inked pixel's (value 128 or more): an edge pixel's neighbour gets
/// `rim` of its width, so an edge of length L gains L x rim.
Image spreadDots(const Image& cmyk, double rim);

/// \brief The picture of a halftone as printed at its size: CMYK inks (a gray halftone prints in black ink, K = 255
/// - gray) spread by the dot gain (spreadDots with dotGainRim of the period deviceDpi / lpi), composed on paper
/// (simulatePrint), then resampled in linear light from deviceDpi to viewDpi (an area average when smaller, each
/// device dot repeated when larger): zoom 100 % is the printed size. Errors name a result that is neither CMYK nor
/// gray, resolutions out of range and a picture over 2^28 pixels; progress and cancel through `control`.
Status printAtSize(const Image& halftone, const PrintSizeView& view, Image& out, const RunControl& control = {});

}  // namespace halftone
