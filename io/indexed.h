#pragma once
// \brief Indexed (palette) image files: PNG with a PLTE chunk (libpng), palette-colour TIFF (libtiff) and GIF with the
// palette as its colour table: palette halftones, and RGB halftones whose channels take few values.
#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/image.h"
#include "core/status.h"
#include "io/imagefile.h"

namespace halftone::io::detail {

/// \brief True when `image` carries a palette that describes it exactly: 1..256 colours, an index plane of the
/// image's size, every index inside the palette, and the RGB planes equal to the palette's colours at the indices.
/// Images with alpha are excluded, unless `withAlpha` (an indexed PNG's tRNS chunk) and the palette with one more
/// entry per (colour, alpha below 255) pair that occurs has at most 256 entries.
bool hasExactPalette(const Image& image, bool withAlpha = false);

/// \brief An image as palette indices: the entries, their tRNS alphas (PNG only; empty: all opaque) and a function that
/// writes row y's indices (safe to call from several threads at once).
struct IndexedRows {
    std::vector<std::array<uint8_t, 3>> palette;
    std::vector<uint8_t> trans;
    std::function<void(int y, uint8_t* indices)> row;
};

/// \brief The indexed form of `image`, false when it has none: its own palette when hasExactPalette(image,
/// withAlpha) (with alpha, the palette's entries keep their indices and stay opaque, and each (colour, alpha below
/// 255) pair that occurs gets an entry after them with that alpha in `trans`; a fully transparent area: one entry
/// per colour under it), else, for an RGB image without alpha whose channels take n0, n1 and n2 values with
/// n0 n1 n2 <= 256 (a per-channel halftone: 8 for binary RGB), the n0 n1 n2 combinations in the order of their
/// values. `image` must outlive `rows`.
bool indexedForm(const Image& image, bool withAlpha, IndexedRows& rows);

/// \brief Writes `rows` (w x h) as a PNG of colour type 3 (PLTE, and tRNS when rows.trans is not empty), bit depth 1,
/// 2, 4 or 8 by the palette's size, with a pHYs chunk when options.dpi > 0. Messages carry no file name.
Status writePngIndexed(const std::string& path, int w, int h, const IndexedRows& rows, const WriteOptions& options);

/// \brief Writes `rows` (w x h, no alpha) as a baseline palette-colour TIFF (photometric 3, 4 or 8 bits per sample,
/// Deflate-compressed strips, resolution tags when options.dpi > 0). Messages carry no file name.
Status writeTiffIndexed(const std::string& path, int w, int h, const IndexedRows& rows, const WriteOptions& options);

/// \brief Writes image.indices with image.palette as a GIF89a image: a global colour table of the palette (padded
/// to a power of two), LZW-compressed indices. Messages carry no file name.
Status writeGifIndexed(const std::string& path, const Image& image);

}  // namespace halftone::io::detail
