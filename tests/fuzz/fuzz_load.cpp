// libFuzzer target for the image loading path: io::readImage (OpenImageIO + built-in PNM) on a temp
// file, and the built-in PNM parser directly on memory. Built by the `fuzz` preset; run by scripts/fuzz.sh.
#include <stdio.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "io/imagefile.h"
#include "io/pnm.h"

#ifdef HALFTONE_FUZZ_HAVE_OIIO
#include <OpenImageIO/imageio.h>
#endif

using namespace halftone;

namespace {

/// A small pixel budget so a header that claims a huge image is refused instead of exhausting RAM.
constexpr uint64_t kMaxPixels = uint64_t(1) << 22;

/// The extension the loader would see for a real file of this content (OpenImageIO picks its
/// reader by extension first); unknown content gets one that makes OpenImageIO try every reader.
const char* extensionFor(const uint8_t* d, size_t n) {
    auto starts = [&](const char* m, size_t k) { return n >= k && std::memcmp(d, m, k) == 0; };
    if (starts("\x89PNG", 4)) return ".png";
    if (starts("\xFF\xD8", 2)) return ".jpg";
    if (starts("II*\0", 4) || starts("MM\0*", 4) || starts("II+\0", 4) || starts("MM\0+", 4)) return ".tif";
    if (starts("GIF8", 4)) return ".gif";
    if (starts("BM", 2)) return ".bmp";
    if (n >= 2 && d[0] == 'P' && d[1] >= '1' && d[1] <= '7') return ".pnm";
    return ".img";
}

std::string tempDir() {
    const char* t = std::getenv("HALFTONE_FUZZ_TMP");
    return t && *t ? t : "/tmp";
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
#ifdef HALFTONE_FUZZ_HAVE_OIIO
    OIIO::attribute("threads", 1);  // one process, one core: no pool threads per input
#endif
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    // 1. The whole loader through a real file, as the CLI and the studio call it.
    static const std::string base = tempDir() + "/halftone-fuzz-" + std::to_string(::getpid());
    const std::string path = base + extensionFor(data, size);
    if (FILE* f = std::fopen(path.c_str(), "wb")) {
        if (size) std::fwrite(data, 1, size, f);
        std::fclose(f);
        Image image;
        io::ReadOptions options;
        options.maxPixels = kMaxPixels;
        io::ReadInfo info;
        const Status s = io::readImage(path, image, options, &info);
        if (s) {
            // A loaded image must be consistent: every plane the same, non-empty size.
            if (image.channels.empty() || image.width() <= 0 || image.height() <= 0) std::abort();
            for (const Plane8& p : image.channels)
                if (p.width != image.width() || p.height != image.height() || p.data.size() != size_t(p.width) * size_t(p.height))
                    std::abort();
            if (uint64_t(image.width()) * uint64_t(image.height()) > kMaxPixels) std::abort();
        } else if (s.message().rfind("cannot read '" + path + "': ", 0) != 0 ||
                   s.message().find('\n') != std::string::npos) {
            std::abort();  // every error names the file and is one line
        }
        ::unlink(path.c_str());
    }

    // 2. The PNM parser on memory (no fstat size check: exercises the row-by-row truncation path).
    if (size >= 2 && data[0] == 'P') {
        if (FILE* m = ::fmemopen(const_cast<uint8_t*>(data), size, "rb")) {
            Image image;
            io::ReadOptions options;
            options.maxPixels = kMaxPixels;
            (void)io::detail::readPnm(m, image, options, nullptr);
            std::fclose(m);
        }
    }
    return 0;
}
