// Image files in binary PNM through core's one PNM codec (core/pnm.h).
#include "io/pnm.h"

#include <cerrno>
#include <cstring>

#include "core/pnm.h"

namespace halftone::io::detail {

bool isBinaryPnmMagic(const unsigned char* head, size_t n) { return pnm::isBinaryMagic(head, n); }

Status readPnm(std::FILE* f, Image& image, const ReadOptions& options, ReadInfo* info) {
    pnm::FileSource in(f);
    pnm::Limits limits;
    limits.maxPixels = options.maxPixels;
    limits.maxMemory = options.maxMemory;
    pnm::Info found;
    if (Status s = pnm::read(in, image, limits, info ? &found : nullptr); !s) return s;
    if (info) {
        info->format = "pnm";
        info->sourceChannels = found.sourceChannels;
        info->sourceType = found.sourceType;
        info->notes = found.notes;
    }
    return Status::ok();
}

Status writePnm(std::FILE* f, const Image& image, PnmKind kind) {
    const pnm::Kind k = kind == PnmKind::Pbm ? pnm::Kind::Pbm : kind == PnmKind::Pgm ? pnm::Kind::Pgm : pnm::Kind::Ppm;
    return pnm::write(image, k, [f](const void* data, size_t bytes) {
        return std::fwrite(data, 1, bytes, f) == bytes
                   ? Status::ok()
                   : Status::error(std::string("write failed: ") + std::strerror(errno));
    });
}

}  // namespace halftone::io::detail
