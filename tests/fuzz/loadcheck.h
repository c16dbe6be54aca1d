#pragma once
// What every loader fuzz target checks: a file of the fuzzed bytes read with io::readImage under small limits gives a
// consistent image or one error line naming the file; anything else aborts (libFuzzer reports it).
#include <stdio.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "io/imagefile.h"

namespace halftone::fuzz {

/// A small pixel budget so a header that claims a huge image is refused instead of exhausting RAM.
inline constexpr uint64_t kMaxPixels = uint64_t(1) << 22;

/// The folder for the fuzzed files: $HALFTONE_FUZZ_TMP, else /tmp.
inline std::string tempDir() {
    const char* t = std::getenv("HALFTONE_FUZZ_TMP");
    return t && *t ? t : "/tmp";
}

/// Reads `bytes` from a file named with `ext` and checks the loader's promises.
inline void load(const std::string& base, const char* ext, const uint8_t* data, size_t size) {
    const std::string path = base + ext;
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) return;
    if (size) std::fwrite(data, 1, size, f);
    std::fclose(f);
    Image image;
    io::ReadOptions options;
    options.maxPixels = kMaxPixels;
    options.maxMemory = uint64_t(256) << 20;
    io::ReadInfo info;
    const Status s = io::readImage(path, image, options, &info);
    if (s) {
        // A loaded image must be consistent: every plane the same, non-empty size.
        if (image.channels.empty() || image.width() <= 0 || image.height() <= 0) std::abort();
        for (const Plane8& p : image.channels)
            if (p.width != image.width() || p.height != image.height() ||
                p.data.size() != size_t(p.width) * size_t(p.height))
                std::abort();
        if (image.hasAlpha && !image.alpha.sameSize(image.channels[0])) std::abort();
        if (uint64_t(image.width()) * uint64_t(image.height()) > kMaxPixels) std::abort();
        const size_t expected = image.space == ColorSpace::Gray ? 1 : image.space == ColorSpace::RGB ? 3 : 4;
        if (image.channels.size() != expected) std::abort();
    } else if (s.message().rfind("cannot read '" + path + "': ", 0) != 0 ||
               s.message().find('\n') != std::string::npos) {
        std::abort();  // every error names the file and is one line
    }
    ::unlink(path.c_str());
}

}  // namespace halftone::fuzz
