#pragma once
// \brief The OpenImageIO module's own readers, for files OpenImageIO 2.4 reads wrongly or not at all: RLE-compressed
// BMP, ICO/CUR icons and CMYK Photoshop files. Messages carry no file name.
#include <string>

#include "core/image.h"
#include "core/status.h"
#include "io/imagefile.h"

namespace halftone::io::detail {

/// \brief BMP with RLE8 or RLE4 compression (palette expanded; gray when the palette is gray).
Status readBmp(const std::string& path, Image& image, const ReadOptions& options, ReadInfo* info);

/// \brief ICO/CUR: the largest entry (a 0 in the directory means 256), PNG or BMP, with its mask as alpha.
Status readIco(const std::string& path, Image& image, const ReadOptions& options, ReadInfo* info);

/// \brief True for a Photoshop file in CMYK colour mode (OpenImageIO 2.4 mixes the inks up when asked for raw colour).
bool isPsdCmyk(const unsigned char* head, size_t n);

/// \brief The merged image of a CMYK Photoshop file (raw or RLE, 8 or 16 bit) as CMYK planes, un-inverted.
Status readPsdCmyk(const std::string& path, Image& image, const ReadOptions& options, ReadInfo* info);

}  // namespace halftone::io::detail
