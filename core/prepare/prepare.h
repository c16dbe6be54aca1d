#pragma once
// \brief Preparing an image for halftoning: orientation, size, tone and sharpness, applied in memory before the
// method runs (never to the file on disk), in one documented order (docs/prepare.md).
#include <optional>
#include <string>

#include "core/image.h"
#include "core/palette/palette.h"
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
    Stretch,  ///< exactly width x height, the aspect ratio changed
    Cover,    ///< exactly width x height: fill the frame, aspect kept, the overflow cropped (by the gravity)
    Contain,  ///< exactly width x height: fit inside, aspect kept, the rest filled with the background (letterbox)
};

const char* toString(ResizeFit f);
bool parseResizeFit(const std::string& s, ResizeFit& out);

/// \brief Where the image sits in its frame: the part a cover crop keeps, the side a contain letterbox leaves.
enum class Gravity { Center, North, South, East, West, NorthEast, NorthWest, SouthEast, SouthWest };

const char* toString(Gravity g);
bool parseGravity(const std::string& s, Gravity& out);

/// \brief Every preparation step; the defaults change nothing.
///
/// The file's EXIF orientation is applied when it is read (io/ uses applyOrientation). The steps then run in this
/// order: (1) `rotate`, (2) alpha flattened onto `background` when one is set, (3) the cover crop, (4) resize to the
/// target size (divided by pixelSize), in linear light unless `linearResize` is off, (5) the contain letterbox,
/// (6) the tone curve: black and white points, brightness, contrast, gamma, (7) saturation (colour images), (8)
/// unsharp mask. After halftoning, `enlargePixels` scales the result up by pixelSize with nearest neighbour.
struct PrepareSettings {
    int width = 0;     ///< target width in pixels; 0 = from height (aspect kept) or unchanged
    int height = 0;    ///< target height in pixels; 0 = from width (aspect kept) or unchanged
    double scale = 0;  ///< scale factor (> 0) when width and height are 0; 0 = none
    ResizeFit fit = ResizeFit::Inside;
    Gravity gravity = Gravity::Center;  ///< the kept part of a cover crop, the place of a contained image
    int rotate = 0;                     ///< clockwise quarter turns in degrees (0, 90, 180, 270), after EXIF
    /// Set: alpha is flattened onto this colour (the output has no alpha) and a contain letterbox has it. Unset: alpha
    /// stays and the letterbox is white paper (transparent where the image has alpha).
    std::optional<Rgb8> background;
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

    friend bool operator==(const PrepareSettings&, const PrepareSettings&) = default;

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

/// \brief The size the image has after the rotation, the resize and the letterbox, before pixelSize reduces it (the
/// frame itself under cover and contain); refused when a side would be over 1048576 pixels (a 4096 x 1 strip resized
/// to a height of 600000).
Status preparedSize(const PrepareSettings& s, int inWidth, int inHeight, int& outWidth, int& outHeight);

/// \brief Runs every step on `in` (gray, RGB or CMYK, with or without alpha); progress over the steps, cancel
/// between rows. CMYK planes are inverted for the tone steps (brightness lightens the print).
Status prepareImage(const Image& in, const PrepareSettings& s, Image& out, const RunControl& control = {});

/// \brief Rotates or mirrors by an EXIF orientation (1..8) so the image shows upright.
Image applyOrientation(const Image& in, int orientation);

/// \brief Enlarges every plane (and palette indices) by n with nearest neighbour: the last step of pixelSize.
Image enlargePixels(const Image& in, int n);

}  // namespace halftone
