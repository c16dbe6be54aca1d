#pragma once
// \brief Binary PNM image files (P4 PBM, P5 PGM, P6 PPM; 8 and 16 bit) in every build, through core/pnm.h.
#include <cstdio>
#include <string>

#include "core/image.h"
#include "core/status.h"
#include "io/imagefile.h"

namespace halftone::io::detail {

/// \brief True when the first bytes are a binary PNM magic number (P4, P5 or P6).
bool isBinaryPnmMagic(const unsigned char* head, size_t n);

/// \brief Reads a binary PNM from an open file (positioned at its start). Messages carry no file name.
/// The header is validated strictly and the size checked against maxPixels and the file length
/// before any pixel memory is allocated.
Status readPnm(std::FILE* f, Image& image, const ReadOptions& options, ReadInfo* info);

/// \brief PNM flavours the writer produces.
enum class PnmKind { Pbm, Pgm, Ppm };

/// \brief Writes `image` as binary PNM of `kind` (alpha is dropped: PNM has none). Messages carry no file name.
Status writePnm(std::FILE* f, const Image& image, PnmKind kind);

}  // namespace halftone::io::detail
