#pragma once
// \brief The built-in codecs: PNG (libpng), JPEG (libjpeg-turbo), TIFF (libtiff), WebP (libwebp) and GIF (giflib),
// linked into the programs, so the common formats never load the OpenImageIO module (io/oiiomodule.h). Compiled only
// when HALFTONE_HAVE_OIIO (the HALFTONE_IO option); messages carry no file name.
#include <cstddef>
#include <cstdint>
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

/// \brief Writes `image` to `tmpPath` in the format of the extension `ext` with the built-in codec. Every write error
/// is reported (no read-back needed).
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

/// \brief The end of every built-in read: orientation applied, ReadInfo filled, the image moved out.
void finishRead(Image& out, int orientation, const std::string& format, int sourceChannels,
                const std::string& sourceType, const std::string& notes, ReadInfo* info, Image& image);

// ---- the codecs ----

Status readPng(const std::string& path, const HeaderFacts& facts, Image& image, const ReadOptions& options,
               ReadInfo* info);
/// \brief 8-bit gray, gray + alpha, RGB or RGBA; a pHYs chunk when `dpi` > 0.
Status writePng(const std::string& path, const Image& image, double dpi);
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
/// \brief `bilevel`: one bit a sample; resolution tags when `dpi` > 0.
Status writeTiff(const std::string& path, const Image& image, bool bilevel, double dpi);
/// \brief A 1-bit separation: photometric separated, one sample a pixel per ink (nonzero = ink), InkSet CMYK for the
/// names Cyan, Magenta, Yellow, Black in that order and multi-ink otherwise, InkNames and NumberOfInks; resolution
/// tags when `dpi` > 0. The planes are of one size.
Status writeTiffInks(const std::string& path, const std::vector<const Plane8*>& inks,
                     const std::vector<std::string>& names, double dpi);
Status readGif(const std::string& path, const HeaderFacts& facts, Image& image, const ReadOptions& options,
               ReadInfo* info);

}  // namespace halftone::io::detail
