#pragma once
// \brief A 1-bit gray PNG writer (libpng): OpenImageIO writes PNG samples of 8 or 16 bits only.
#include <string>

#include "core/image.h"
#include "core/status.h"

namespace halftone::io::detail {

/// \brief Writes a plane holding only 0 and 255 as a PNG of bit depth 1 (0 = black), with a pHYs resolution
/// chunk when `dpi` > 0. Messages carry no file name.
Status writePng1Bit(const std::string& path, const Plane8& plane, double dpi);

}  // namespace halftone::io::detail
