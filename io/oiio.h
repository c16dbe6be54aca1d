#pragma once
// \brief The OpenImageIO side of io/ (compiled only when HALFTONE_HAVE_OIIO); messages carry no file name.
#include <cstdint>
#include <string>

#include "core/image.h"
#include "core/status.h"
#include "io/headers.h"
#include "io/imagefile.h"

namespace halftone::io::detail {

/// \brief Reads the first subimage through OpenImageIO into 8-bit planes (conversion rules in imagefile.h),
/// the reader chosen by the file's extension.
Status readOiio(const std::string& path, Image& image, const ReadOptions& options, ReadInfo* info);

/// \brief As readOiio with the reader of `format` (an OpenImageIO format name; empty: by extension) and
/// what the header check found (decoder buffers, counted in the memory budget; TIFF extra samples).
Status readOiioAs(const std::string& path, const std::string& format, const HeaderFacts& facts, Image& image,
                  const ReadOptions& options, ReadInfo* info);

/// \brief As readOiioAs on `size` bytes in memory (an image held inside another file, e.g. a PNG in an ICO).
Status readOiioMemory(const std::string& format, const unsigned char* data, size_t size, Image& image,
                      const ReadOptions& options, ReadInfo* info);

/// \brief True when OpenImageIO has a writer for the extension of `path`.
bool oiioCanWrite(const std::string& path, std::string& why);

/// \brief Writes `image` to `tmpPath` in the format chosen by the extension of `finalPath`.
Status writeOiio(const std::string& finalPath, const std::string& tmpPath, const Image& image,
                 const WriteOptions& options);

/// \brief Reads `writtenPath` back with the reader of `finalPath`'s format: it must be complete and,
/// when `exact`, hold the values of `image` (a gray image may come back as RGB).
Status verifyWrittenOiio(const std::string& finalPath, const std::string& writtenPath, const Image& image, bool exact);

}  // namespace halftone::io::detail
