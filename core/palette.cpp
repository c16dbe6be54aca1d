#include "core/palette.h"

#include <string>

namespace halftone {

Status checkPalette(const Palette& p) {
    if (p.size() < kMinPaletteColors || p.size() > kMaxPaletteColors)
        return Status::error("palette " + (p.name.empty() ? std::string() : "'" + p.name + "' ") + "has " +
                             std::to_string(p.size()) + " colours; a palette needs 2 to 256");
    return Status::ok();
}

}  // namespace halftone
