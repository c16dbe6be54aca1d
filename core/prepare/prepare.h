#pragma once
// \brief Preparing an image for halftoning: orientation, size, tone and sharpness, applied in memory before the
// method runs (never to the file on disk), in one documented order (docs/prepare.md).
#include <string>

#include "core/image.h"
#include "core/runcontrol.h"
#include "core/status.h"

namespace halftone {

/// \brief The filter of a resize.
enum class ResizeFilter {
    Lanczos3,  ///< windowed sinc, 3 lobes: sharp, the default
    Bicubic,   ///< Catmull-Rom cubic: sharp, fewer halos than Lanczos
    Box,       ///< area average: exact for integer reductions, no ringing
    Nearest,   ///< nearest pixel: pixel art stays crisp
};

const char* toString(ResizeFilter f);
bool parseResizeFilter(const std::string& s, ResizeFilter& out);

/// \brief What --width/--height (or a print size) mean when both are given.
enum class ResizeFit {
    Inside,   ///< keep the aspect ratio and fit inside width x height (the default)
    Stretch,  ///< exactly width x height
};

/// \brief Every preparation step; the defaults change nothing.
///
/// The file's EXIF orientation is applied when it is read (io/ uses applyOrientation). The steps then run in this
/// order: (1) resize to the target size (divided by pixelSize), in
/// linear light unless `linearResize` is off, (2) the tone curve: black and white points, brightness, contrast,
/// gamma, (3) saturation (colour images), (4) unsharp mask. After halftoning, `enlargePixels` scales the result
/// up by pixelSize with nearest neighbour.
struct PrepareSettings {
    int width = 0;     ///< target width in pixels; 0 = from height (aspect kept) or unchanged
    int height = 0;    ///< target height in pixels; 0 = from width (aspect kept) or unchanged
    double scale = 0;  ///< scale factor (> 0) when width and height are 0; 0 = none
    ResizeFit fit = ResizeFit::Inside;
    ResizeFilter filter = ResizeFilter::Lanczos3;
    bool linearResize = true;  ///< resample in linear light (sRGB decoded); off: on the 8-bit values
    int pixelSize = 1;         ///< halftone at 1/N of the size and enlarge by N after (the pixel-art look)

    int blackPoint = 0;          ///< input level mapped to 0 (levels)
    int whitePoint = 255;        ///< input level mapped to 255
    double brightness = 0;       ///< -100..100: adds brightness x 2.55 to every level
    double contrast = 0;         ///< -100..100: slope (100 + c) / (100 - c) about mid-gray 127.5; 100 = a threshold
    double gamma = 1.0;          ///< 0.1..10: out = 255 (v / 255)^(1 / gamma); > 1 lightens the mid-tones
    double saturation = 100;     ///< 0..400 percent: 0 = gray, 100 = unchanged
    double sharpenAmount = 0;    ///< unsharp mask strength in percent (0..500); 0 = off
    double sharpenRadius = 1.0;  ///< its Gaussian's standard deviation in pixels (0.3..50)

    /// \brief True when the settings change nothing (no step runs).
    bool isIdentity() const;
    /// \brief True when a step other than geometry is set (levels, brightness, contrast, gamma, saturation, sharpen).
    bool changesTone() const;
    /// \brief Checks every range; messages name the option ("brightness must be between -100 and 100").
    Status validate() const;
};

/// \brief A length pair "WxH" with a unit: "6x4in", "15x10cm", "210x297mm" (the unit may follow each number).
Status parsePrintSize(const std::string& text, double& widthInches, double& heightInches);

/// \brief Sets width/height in pixels from a print size and a resolution in dots per inch.
Status applyPrintSize(PrepareSettings& s, const std::string& printSize, double dpi);

/// \brief The size the image has after the resize, before pixelSize reduces it; refused when a side would be over
/// 1048576 pixels (a 4096 x 1 strip resized to a height of 600000).
Status preparedSize(const PrepareSettings& s, int inWidth, int inHeight, int& outWidth, int& outHeight);

/// \brief Runs every step on `in` (gray, RGB or CMYK, with or without alpha); progress over the steps, cancel
/// between rows. CMYK planes are inverted for the tone steps (brightness lightens the print).
Status prepareImage(const Image& in, const PrepareSettings& s, Image& out, const RunControl& control = {});

/// \brief Rotates or mirrors by an EXIF orientation (1..8) so the image shows upright.
Image applyOrientation(const Image& in, int orientation);

/// \brief Enlarges every plane (and palette indices) by n with nearest neighbour: the last step of pixelSize.
Image enlargePixels(const Image& in, int n);

}  // namespace halftone
