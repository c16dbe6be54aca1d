#pragma once
// \brief Planar 8-bit images: one Plane per channel, the unit every halftoning method works on.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/print/separation.h"
#include "core/status.h"

namespace halftone {

/// \brief Default limit on width x height (1 Gpixel); raise with --max-pixels.
inline constexpr uint64_t kDefaultMaxPixels = 1ull << 30;

/// \brief Checks that width x height x channels is positive, fits memory arithmetic and is within maxPixels.
Status checkImageSize(int64_t width, int64_t height, int64_t channels, uint64_t maxPixels = kDefaultMaxPixels);

/// \brief A width x height grid of T, row-major, rows contiguous.
template <class T>
struct PlaneT {
    int width = 0;
    int height = 0;
    std::vector<T> data;

    PlaneT() = default;
    PlaneT(int w, int h, T fill = T{}) : width(w), height(h), data(size_t(w) * size_t(h), fill) {}
    T* row(int y) { return data.data() + size_t(y) * size_t(width); }
    const T* row(int y) const { return data.data() + size_t(y) * size_t(width); }
    T& at(int y, int x) { return data[size_t(y) * size_t(width) + size_t(x)]; }
    const T& at(int y, int x) const { return data[size_t(y) * size_t(width) + size_t(x)]; }
    size_t size() const { return data.size(); }
    bool empty() const { return data.empty(); }
    bool sameSize(const PlaneT& o) const { return width == o.width && height == o.height; }
    friend bool operator==(const PlaneT& a, const PlaneT& b) {
        return a.width == b.width && a.height == b.height && a.data == b.data;
    }
};

using Plane8 = PlaneT<uint8_t>;
using PlaneF = PlaneT<float>;

/// \brief What the channels of an Image mean.
enum class ColorSpace { Gray, RGB, CMYK };

/// \brief Planar 8-bit image: gray (1), RGB (3) or CMYK (4) channels, plus an optional alpha plane.
struct Image {
    ColorSpace space = ColorSpace::Gray;
    std::vector<Plane8> channels;
    bool hasAlpha = false;
    Plane8 alpha;  ///< valid when hasAlpha; never halftoned
    /// Set by palette halftoning (space RGB): the palette's colours and each pixel's index into them, so that a
    /// writer can store an indexed file. Empty for every other image.
    std::vector<std::array<uint8_t, 3>> palette;
    Plane8 indices;

    int width() const { return channels.empty() ? 0 : channels.front().width; }
    int height() const { return channels.empty() ? 0 : channels.front().height; }
    int channelCount() const { return int(channels.size()); }
    static Image gray(Plane8 p) {
        Image im;
        im.space = ColorSpace::Gray;
        im.channels.push_back(std::move(p));
        return im;
    }
};

/// \brief How colour input is handed to a method: one gray plane, three RGB planes or four CMYK planes.
enum class ColorMode { Gray, RGB, CMYK };

const char* toString(ColorMode m);
bool parseColorMode(const std::string& s, ColorMode& out);

/// \brief Converts any Image to the planes of `mode`, separating to CMYK with the default SeparationParams
/// (full grey component replacement, no ink limit).
///
/// Gray = (77 R + 150 G + 29 B + 128) >> 8 (Rec. 601 luma in integers); CMYK -> RGB as
/// R = 255 - min(255, C + K) etc.; RGB -> CMYK as separatePixel (docs/spec.md "Separation into inks"), which with the
/// defaults is K = 255 - max(R,G,B), C = (255 - R - K) * 255 / (255 - K) rounded (0 when K = 255). Alpha is carried
/// along unchanged.
Image convertColor(const Image& in, ColorMode mode);
/// \brief The same with the separation's GCR and ink limit for CMYK output: a colour input is separated with
/// separatePixel, or by the separation's Separator when it has one (then ink-limited), a CMYK input keeps its inks
/// and gets the ink limit (limitInk).
Image convertColor(const Image& in, ColorMode mode, const SeparationParams& separation);

/// \brief True when convertColor(in, mode, separation) returns `in` unchanged, so a caller can use `in` itself.
bool isColorIdentity(const Image& in, ColorMode mode, const SeparationParams& separation);

/// \brief A synthetic picture: a horizontal ramp (weight 3) plus a vertical one, plus `noise.at(y, x) % 64`, over 4
/// (wrapping past 255 near the bright corner). Smooth areas with both levels everywhere: the benchmark's GPU input
/// (noise from a fixed seed) and a test image of the fast GPU shapes (fresh noise).
Plane8 noisyGradient(const Plane8& noise);

}  // namespace halftone
