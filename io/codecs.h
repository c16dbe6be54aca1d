#pragma once
// \brief The built-in codecs: PNG (libpng), JPEG (libjpeg-turbo), TIFF (libtiff), WebP (libwebp) and GIF (giflib),
// linked into the programs, so the common formats never load the OpenImageIO module (io/oiiomodule.h). Compiled only
// when HALFTONE_HAVE_OIIO (the HALFTONE_IO option); messages carry no file name.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/image.h"
#include "core/status.h"
#include "io/headers.h"
#include "io/imagefile.h"

namespace halftone::io::detail {

/// \brief True when the built-in codecs read a file of `format` (a sniffFormat name) whose header check found
/// `facts`: PNG, JPEG, WebP and GIF always; TIFF of unsigned gray, RGB, palette or ink samples (floating point,
/// YCbCr, CIELab, LogLuv and BigTIFF go through OpenImageIO).
bool builtInReads(const std::string& format, const HeaderFacts& facts);

/// \brief Which decoder reads the file: the built-in one unless `options` or the environment variable
/// HALFTONE_DECODER ("openimageio") ask for OpenImageIO (see ReadOptions::decoder).
bool useBuiltInReader(const std::string& format, const HeaderFacts& facts, const ReadOptions& options);

/// \brief Reads `path`, whose content is `format`, with the built-in codec; `facts` from checkHeader.
Status readBuiltIn(const std::string& path, const std::string& format, const HeaderFacts& facts, Image& image,
                   const ReadOptions& options, ReadInfo* info);

/// \brief True when the built-in codecs write files with the extension `ext` (lower case, with the dot) of this
/// image: .png, .jpg/.jpeg/.jpe/.jfif/.jif, .tif/.tiff, .webp, and .gif for an image with an exact palette.
bool builtInWrites(const std::string& ext, const Image* image);

/// \brief Refusals of the built-in writers for a layout, before any work: CMYK outside TIFF. Empty when it fits.
std::string builtInLayoutProblem(const std::string& ext, ColorSpace space);

/// \brief Writes `image` to `tmpPath` in the format of the extension `ext` with the built-in codec, PNG and TIFF in the
/// smallest exact form (writeImage). Every write error is reported (no read-back needed); a stop of
/// options.control gives Status::cancelled().
Status writeBuiltIn(const std::string& ext, const std::string& tmpPath, const Image& image,
                    const WriteOptions& options);

// ---- shared by the codecs (io/codecs.cpp) ----

/// \brief The EXIF orientation (1..8) in a TIFF-structured EXIF block (starting at its byte-order mark); 1 when absent
/// or unreadable.
int exifOrientation(const unsigned char* tiff, size_t n);

/// \brief How a decoder's interleaved samples map onto planes.
struct SampleLayout {
    ColorSpace space = ColorSpace::Gray;
    std::vector<int> order;  ///< source sample of each colour plane (-1: absent ink, plane stays 0)
    int alpha = -1;          ///< source sample of alpha, -1 none
    bool invert = false;     ///< colour samples are 255 - value (inverted CMYK, one-ink separations)
    int samples = 0;         ///< samples a pixel in the source rows
};

/// \brief The standard layouts of `samples` samples: 1 gray, 2 gray + alpha, 3 RGB, 4 RGBA.
SampleLayout plainLayout(int samples);

/// \brief Checks the read's memory (planes of `layout` for w x h, plus `decoderBytes`, plus the upright copy when
/// `orientation` turns the image) against the budget, with the message of the other readers.
Status checkReadMemory(int w, int h, const SampleLayout& layout, uint64_t decoderBytes, int orientation,
                       const ReadOptions& options);

/// \brief Allocates the planes of `layout` (each in place).
void allocatePlanes(Image& image, int w, int h, const SampleLayout& layout);

/// \brief One row of `n` pixels of 8-bit (`bits` 8) or 16-bit host-order (`bits` 16) samples into row y of the
/// planes, from column x0.
void storeRow(Image& image, const SampleLayout& layout, const void* row, int bits, int y, int x0, int n);

/// \brief Row y of the colour planes and then alpha, interleaved (8-bit samples, as PNG and TIFF store them).
void interleaveRow(const Image& image, int y, uint8_t* out);

/// \brief The end of every built-in read: orientation applied, ReadInfo filled, the image moved out.
void finishRead(Image& out, int orientation, const std::string& format, int sourceChannels,
                const std::string& sourceType, const std::string& notes, ReadInfo* info, Image& image);

// ---- the codecs ----

Status readPng(const std::string& path, const HeaderFacts& facts, Image& image, const ReadOptions& options,
               ReadInfo* info);
/// \brief 8-bit gray, gray + alpha, RGB or RGBA; a pHYs chunk when options.dpi > 0.
Status writePng(const std::string& path, const Image& image, const WriteOptions& options);
/// \brief A gray plane of `bits` 1, 2 or 4 bits a pixel, every value a multiple of 255 / (2^bits - 1) (grayBits());
/// a pHYs chunk when options.dpi > 0.
Status writePngGray(const std::string& path, const Plane8& plane, int bits, const WriteOptions& options);
/// \brief The fewest bits (1, 2, 4 or 8) a sample of a gray image without alpha needs to hold its values exactly as
/// PNG and TIFF scale gray samples: 1 for only 0 and 255, 2 for multiples of 85, 4 for multiples of 17.
int grayBits(const Image& image);
Status readJpeg(const std::string& path, const HeaderFacts& facts, Image& image, const ReadOptions& options,
                ReadInfo* info);
/// \brief Gray or RGB (alpha dropped) at quality 98, as OpenImageIO writes by default.
Status writeJpeg(const std::string& path, const Image& image);
/// \brief WebP, still or animated (the first frame composed on the full canvas, uncovered canvas transparent).
Status readWebp(const std::string& path, Image& image, const ReadOptions& options, ReadInfo* info);
/// \brief Lossy at quality 100; gray goes out as RGB.
Status writeWebp(const std::string& path, const Image& image);
bool builtInTiff(const HeaderFacts& facts);
Status readTiff(const std::string& path, const HeaderFacts& facts, Image& image, const ReadOptions& options,
                ReadInfo* info);
/// \brief Gray of `bits` 1, 2, 4 or 8 (grayBits()), or 8-bit RGB or CMYK with or without alpha; resolution tags when
/// options.dpi > 0.
Status writeTiff(const std::string& path, const Image& image, int bits, const WriteOptions& options);
/// \brief The shape of a TIFF that writeTiffRows writes.
struct TiffLayout {
    int width = 0, height = 0;
    int bits = 8;                    ///< bits per sample (1, 2, 4, 8)
    int samples = 1;                 ///< samples per pixel, alpha included
    int photometric = 1;             ///< 1 gray (min is black), 2 RGB, 3 palette, 5 separated (CMYK)
    bool alpha = false;              ///< the last sample is unassociated alpha
    std::vector<uint16_t> colorMap;  ///< photometric 3: 3 x 2^bits entries, all reds, then greens, then blues
    /// Photometric 5 of named inks, one a sample: InkSet CMYK for Cyan, Magenta, Yellow, Black in that order and
    /// multi-ink otherwise, InkNames and NumberOfInks; empty: InkSet CMYK without names.
    std::vector<std::string> inkNames;
    std::string pageName;  ///< PageName tag when not empty (a plate's ink)
};

/// \brief Writes a TIFF in Deflate strips of about 256 KiB: `fillRow(y, row, scratch)` packs row y into `row` (its
/// packed length), with `scratch` of width x samples bytes for its own use; it is called on several threads at once.
/// The strips are filled and compressed on the worker pool (options.control.threads workers; 8-bit samples with the
/// horizontal predictor), a few per worker at a time, and written in order, so memory stays a few strips per worker.
/// Resolution tags when options.dpi > 0; progress and stop through options.control.
Status writeTiffRows(const std::string& path, const TiffLayout& layout,
                     const std::function<void(int y, uint8_t* row, uint8_t* scratch)>& fillRow,
                     const WriteOptions& options);

/// \brief A 1-bit separation, one sample a pixel per ink (nonzero = ink); resolution tags when options.dpi > 0. The
/// planes are of one size. Several inks: photometric separated with their InkNames. One ink (a plate): photometric
/// min-is-white, so that 1 = ink shows black, with the ink's name as PageName: the form image editors, PostScript
/// converters and RIPs read as a bilevel plate (GIMP and libtiff's tiff2ps take a separated file of one ink for a
/// CMYK one).
Status writeTiffInks(const std::string& path, const std::vector<const Plane8*>& inks,
                     const std::vector<std::string>& names, const WriteOptions& options);
Status readGif(const std::string& path, const HeaderFacts& facts, Image& image, const ReadOptions& options,
               ReadInfo* info);

}  // namespace halftone::io::detail
