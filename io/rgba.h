#pragma once
// \brief What the built-in codecs and the OpenImageIO module's own readers share: a whole file read within the
// budget, and interleaved RGBA made planes. Messages carry no file name.
#include <cstddef>
#include <string>
#include <vector>

#include "core/image.h"
#include "core/status.h"
#include "io/headers.h"
#include "io/imagefile.h"

namespace halftone::io::detail {

/// \brief The whole file, after checking its size against the budget (formats decoded from memory).
Status readWholeFile(const std::string& path, const ReadOptions& options, std::vector<unsigned char>& data);

/// \brief Interleaved RGBA (unassociated) to planes: RGB, or gray when every pixel is gray; alpha only when some
/// pixel is not opaque.
Image fromRgba(const unsigned char* rgba, int w, int h, size_t stride);

/// \brief How the samples of a separated (ink) TIFF map onto planes.
struct InkLayout {
    ColorSpace space = ColorSpace::CMYK;
    std::vector<int> order;  ///< source sample of each plane (-1: the file has no such ink, the plane stays 0)
    int alpha = -1;          ///< source sample of alpha, -1 none
    bool invert = false;     ///< one black ink read as gray (no ink = white)
};

/// \brief A separated TIFF of `samples` samples: the InkSet and InkNames tags in `facts` say which ink each sample is
/// (OpenImageIO writes CMYK + alpha as five named inks C, M, Y, K, A without an ExtraSamples tag); inks go on their
/// CMYK planes (absent inks: none), a single unnamed or black ink is gray. `cmykSet`: four or more samples of the
/// CMYK ink set. Refused: inks other than cyan, magenta, yellow and black.
Status separatedInks(int samples, const HeaderFacts& facts, bool cmykSet, InkLayout& L);

}  // namespace halftone::io::detail
