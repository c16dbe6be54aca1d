#pragma once
// \brief The OpenImageIO side of io/ (compiled only when HALFTONE_HAVE_OIIO); messages carry no file name.
#include <string>

#include "core/image.h"
#include "core/status.h"
#include "io/imagefile.h"

namespace halftone::io::detail {

/// \brief Reads the first subimage through OpenImageIO into 8-bit planes (conversion rules in imagefile.h).
Status readOiio(const std::string& path, Image& image, const ReadOptions& options, ReadInfo* info);

/// \brief True when OpenImageIO has a writer for the extension of `path`.
bool oiioCanWrite(const std::string& path, std::string& why);

/// \brief Writes `image` to `tmpPath` in the format chosen by the extension of `finalPath`.
Status writeOiio(const std::string& finalPath, const std::string& tmpPath, const Image& image, const WriteOptions& options);

/// \brief Reads `writtenPath` back with the reader of `finalPath`'s format: it must be complete and,
/// when `exact`, hold the values of `image` (a gray image may come back as RGB).
Status verifyWrittenOiio(const std::string& finalPath, const std::string& writtenPath, const Image& image, bool exact);

/// \brief Checks a JPEG's marker structure up to its end-of-image marker (libjpeg silently pads truncated files).
Status checkJpegComplete(const std::string& path);

}  // namespace halftone::io::detail
