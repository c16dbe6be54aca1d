#pragma once
// \brief Format sniffing and header checks done before any decoder sees a file (no OpenImageIO here).
#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"
#include "io/imagefile.h"

namespace halftone::io::detail {

/// \brief Most scans a JPEG may have; a progressive file has about ten, a decoder spends
/// time on every scan over the whole image, so thousands of empty scans are a CPU bomb.
inline constexpr int kMaxJpegScans = 256;

/// \brief The format a file's first bytes name: an OpenImageIO format name ("png", "jpeg", "tiff",
/// "gif", "bmp", "webp", "openexr", "psd", "ico", ...), or empty when no known signature matches.
std::string sniffFormat(const unsigned char* head, size_t n);

/// \brief What the header check learned, for the memory budget and the choice of decoder.
struct HeaderFacts {
    uint64_t decoderBytes = 0;              ///< buffers the decoder allocates besides our planes and strips
    bool bmpRle = false;                    ///< BMP with RLE4/RLE8 compression (decoded by the built-in reader)
    int tiffExtraSamples = -1;              ///< TIFF: ExtraSamples count of the first image (-1: not a classic TIFF)
    int tiffFirstExtra = -1;                ///< TIFF: meaning of the first extra sample (0 unspecified, 1/2 alpha)
    int tiffInkSet = -1;                    ///< TIFF: InkSet (1 = CMYK, 2 = named inks), -1 when absent
    int tiffPhotometric = -1;               ///< TIFF: PhotometricInterpretation of the first image, -1 when absent
    int tiffSampleFormat = 1;               ///< TIFF: SampleFormat (1 unsigned, 2 signed, 3 floating point)
    std::vector<std::string> tiffInkNames;  ///< TIFF: InkNames, one per ink (empty when absent)
};

/// \brief The fewest bytes of image data a Photoshop file's merged image of this size can be stored in: raw samples
/// (compression 0), the PackBits row table and two bytes for every 128 bytes of a row (1), or Deflate's best ratio of
/// 1032 to 1 (2, 3).
uint64_t psdMinimumImageData(uint64_t width, uint64_t height, uint64_t channels, uint64_t depthBits, int compression,
                             bool psb);

/// \brief Format-specific checks of the header against the limits in `options`, before a decoder
/// allocates anything: GIF logical screen, PNG size and interlacing, ICO entries, JPEG structure
/// (end-of-image marker, scan count, progressive buffers), BMP and PSD sizes. Messages carry no file name.
Status checkHeader(const std::string& path, const std::string& format, const ReadOptions& options, HeaderFacts& facts);

}  // namespace halftone::io::detail
