#pragma once
// \brief Indexed (palette) image files: PNG with a PLTE chunk (libpng), palette-colour TIFF and GIF with the
// palette as its colour table, written directly because OpenImageIO writes none of them with a given palette.
#include <string>

#include "core/image.h"
#include "core/status.h"

namespace halftone::io::detail {

/// \brief True when `image` carries a palette that describes it exactly: 1..256 colours, an index plane of the
/// image's size, every index inside the palette, and the RGB planes equal to the palette's colours at the indices.
/// Images with alpha are excluded, unless `withAlpha` (an indexed PNG's tRNS chunk) and the palette with one more
/// entry per (colour, alpha below 255) pair that occurs has at most 256 entries.
bool hasExactPalette(const Image& image, bool withAlpha = false);

/// \brief Writes image.indices with image.palette as a PNG of colour type 3 (PLTE), bit depth 1, 2, 4 or 8 by the
/// palette's size, with a pHYs chunk when `dpi` > 0. With alpha (hasExactPalette(image, true)) the palette's entries
/// keep their indices and stay opaque, and each (colour, alpha below 255) pair that occurs gets an entry after them
/// with that alpha in the tRNS chunk (a fully transparent area: one entry per colour under it). Messages carry no
/// file name.
Status writePngIndexed(const std::string& path, const Image& image, double dpi);

/// \brief Writes image.indices with image.palette as a baseline palette-colour TIFF (photometric 3, 4 or 8 bits
/// per sample, Deflate-compressed strips, resolution tags when `dpi` > 0). Messages carry no file name.
Status writeTiffIndexed(const std::string& path, const Image& image, double dpi);

/// \brief Writes image.indices with image.palette as a GIF89a image: a global colour table of the palette (padded
/// to a power of two), LZW-compressed indices. Messages carry no file name.
Status writeGifIndexed(const std::string& path, const Image& image);

}  // namespace halftone::io::detail
