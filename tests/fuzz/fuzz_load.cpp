// libFuzzer target for the image loading path: io::readImage (format sniffing, header checks, OpenImageIO,
// the built-in WebP/BMP/ICO/PSD/PNM readers) on a temp file; the same bytes as the EXIF block of a valid
// JPEG (orientation path) and as the second image of a valid TIFF and GIF (multi-image probe); the
// built-in PNM parser directly on memory. Built by the `fuzz` preset; run by scripts/fuzz.sh.
#include <stdio.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "io/imagefile.h"
#include "io/pnm.h"
#include "tests/fuzz/loadcheck.h"

#ifdef HALFTONE_FUZZ_HAVE_OIIO
#include <OpenImageIO/imageio.h>
#endif

using namespace halftone;

namespace {

/// The extension the loader would see for a real file of this content (OpenImageIO picks its
/// reader by extension first); unknown content gets one that makes OpenImageIO try every reader.
const char* extensionFor(const uint8_t* d, size_t n) {
    auto starts = [&](const char* m, size_t k) { return n >= k && std::memcmp(d, m, k) == 0; };
    if (starts("\x89PNG", 4)) return ".png";
    if (starts("\xFF\xD8", 2)) return ".jpg";
    if (starts("II*\0", 4) || starts("MM\0*", 4) || starts("II+\0", 4) || starts("MM\0+", 4)) return ".tif";
    if (starts("GIF8", 4)) return ".gif";
    if (starts("BM", 2)) return ".bmp";
    if (n >= 12 && starts("RIFF", 4) && std::memcmp(d + 8, "WEBP", 4) == 0) return ".webp";
    if (starts("\0\0\1\0", 4)) return ".ico";
    if (starts("8BPS", 4)) return ".psd";
    if (starts("\x76\x2f\x31\x01", 4)) return ".exr";
    if (n >= 2 && d[0] == 'P' && d[1] >= '1' && d[1] <= '7') return ".pnm";
    return ".img";
}

/// An 8 x 8 gray baseline JPEG (ImageMagick, quality 50): the carrier of fuzzed EXIF blocks.
const uint8_t kTinyJpeg[] = {
    0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01,
    0x00, 0x00, 0xff, 0xdb, 0x00, 0x43, 0x00, 0x10, 0x0b, 0x0c, 0x0e, 0x0c, 0x0a, 0x10, 0x0e, 0x0d, 0x0e, 0x12,
    0x11, 0x10, 0x13, 0x18, 0x28, 0x1a, 0x18, 0x16, 0x16, 0x18, 0x31, 0x23, 0x25, 0x1d, 0x28, 0x3a, 0x33, 0x3d,
    0x3c, 0x39, 0x33, 0x38, 0x37, 0x40, 0x48, 0x5c, 0x4e, 0x40, 0x44, 0x57, 0x45, 0x37, 0x38, 0x50, 0x6d, 0x51,
    0x57, 0x5f, 0x62, 0x67, 0x68, 0x67, 0x3e, 0x4d, 0x71, 0x79, 0x70, 0x64, 0x78, 0x5c, 0x65, 0x67, 0x63, 0xff,
    0xc0, 0x00, 0x0b, 0x08, 0x00, 0x08, 0x00, 0x08, 0x01, 0x01, 0x11, 0x00, 0xff, 0xc4, 0x00, 0x14, 0x00, 0x01,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0xff, 0xc4,
    0x00, 0x14, 0x10, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0xff, 0xda, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3f, 0x00, 0x1f, 0xff, 0xd9};

/// A valid 2 x 2 gray TIFF page whose next-IFD offset points at the bytes appended after it.
std::vector<uint8_t> tiffWithSecondPage(const uint8_t* d, size_t n) {
    std::vector<uint8_t> t = {'I', 'I', 42, 0, 12, 0, 0, 0, 10, 20, 30, 40};  // header, IFD at 12, pixels at 8
    auto u16 = [&](uint16_t v) { t.push_back(uint8_t(v)), t.push_back(uint8_t(v >> 8)); };
    auto u32 = [&](uint32_t v) { u16(uint16_t(v)), u16(uint16_t(v >> 16)); };
    auto entry = [&](uint16_t tag, uint16_t type, uint32_t value) { u16(tag), u16(type), u32(1), u32(value); };
    u16(8);
    entry(256, 4, 2), entry(257, 4, 2), entry(258, 3, 8), entry(262, 3, 1), entry(273, 4, 8), entry(277, 3, 1),
        entry(278, 4, 2), entry(279, 4, 4);
    u32(uint32_t(t.size() + 4));  // the next IFD: the fuzzed bytes
    t.insert(t.end(), d, d + n);
    return t;
}

/// A valid 1 x 1 GIF frame followed by the fuzzed bytes as further blocks (frames, extensions).
std::vector<uint8_t> gifWithMoreFrames(const uint8_t* d, size_t n) {
    static const uint8_t head[] = {'G', 'I', 'F',  '8', '9', 'a', 2, 0, 2, 0, 0x80, 0, 0, 0, 0,    0, 255,
                                   255, 255, 0x2c, 0,   0,   0,   0, 1, 0, 1, 0,    0, 2, 2, 0x44, 1, 0};
    std::vector<uint8_t> g(head, head + sizeof head);
    g.insert(g.end(), d, d + n);
    return g;
}

/// The tiny JPEG with the fuzzed bytes as an APP1 "Exif" segment (up to the 64 KB a segment holds).
std::vector<uint8_t> jpegWithExif(const uint8_t* d, size_t n) {
    n = std::min<size_t>(n, 65000);
    std::vector<uint8_t> j(kTinyJpeg, kTinyJpeg + 2);
    const size_t len = n + 8;
    j.insert(j.end(), {0xFF, 0xE1, uint8_t(len >> 8), uint8_t(len), 'E', 'x', 'i', 'f', 0, 0});
    j.insert(j.end(), d, d + n);
    j.insert(j.end(), kTinyJpeg + 2, kTinyJpeg + sizeof kTinyJpeg);
    return j;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
#ifdef HALFTONE_FUZZ_HAVE_OIIO
    OIIO::attribute("threads", 1);  // one process, one core: no pool threads per input
#endif
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const std::string base = fuzz::tempDir() + "/halftone-fuzz-" + std::to_string(::getpid());
    // 1. The whole loader through a real file, as the CLI and the studio call it.
    fuzz::load(base, extensionFor(data, size), data, size);
    // 2. The EXIF path: the bytes as the EXIF block of a valid JPEG (orientation, any tag values).
    const std::vector<uint8_t> jpeg = jpegWithExif(data, size);
    fuzz::load(base, ".jpg", jpeg.data(), jpeg.size());
    // 3. The multi-image paths: the bytes as the second page of a TIFF and further frames of a GIF.
    const std::vector<uint8_t> tiff = tiffWithSecondPage(data, size);
    fuzz::load(base, ".tif", tiff.data(), tiff.size());
    const std::vector<uint8_t> gif = gifWithMoreFrames(data, size);
    fuzz::load(base, ".gif", gif.data(), gif.size());

    // 4. The PNM parser on memory (no fstat size check: exercises the row-by-row truncation path).
    if (size >= 2 && data[0] == 'P') {
        if (FILE* m = ::fmemopen(const_cast<uint8_t*>(data), size, "rb")) {
            Image image;
            io::ReadOptions options;
            options.maxPixels = fuzz::kMaxPixels;
            (void)io::detail::readPnm(m, image, options, nullptr);
            std::fclose(m);
        }
    }
    return 0;
}
