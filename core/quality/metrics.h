#pragma once
// \brief Quality measures of docs/spec.md section 3: HVS-weighted error, PSNR between the filtered halftone
// and the filtered original, tone reproduction on a ramp, radially averaged power spectrum and anisotropy (Ulichney).
#include <array>
#include <string>
#include <vector>

#include "core/dbs/dbs.h"
#include "core/image.h"
#include "core/status.h"

namespace halftone {

/// \brief E / N of a halftone (values /255, any number of levels) against the original, with DBS's filter.
double hvsWeightedError(const Plane8& original, const Plane8& halftone, const HvsParams& hvs = {});

/// \brief PSNR in dB between the HVS-filtered halftone and the HVS-filtered original (docs/spec.md section 3): both
/// through the same truncated Gaussian (taps outside the image dropped, the rest renormalised), in gamma
/// values or, with `linear`, in linear light (sRGB decoded, 0..255). A copy of the original gives +inf;
/// NaN when the sizes differ or a plane is empty.
double filteredPsnr(const Plane8& original, const Plane8& halftone, double sigma = 1.2, int radius = 4,
                    bool linear = false);

/// \brief Mean SSIM (Wang, Bovik, Sheikh and Simoncelli 2004) between the original and the halftone, both as stored:
/// the 11 x 11 Gaussian window of sigma 1.5 (taps outside the image dropped, the rest renormalised), K1 = 0.01,
/// K2 = 0.03, L = 255. 1 for a copy; NaN when the sizes differ or a plane is empty.
double ssim(const Plane8& original, const Plane8& halftone);

/// \brief A CIELAB colour (L* 0..100, a*, b*), white point D65.
struct Lab {
    double L = 0, a = 0, b = 0;
};

/// \brief CIELAB of a linear-light sRGB colour (components 0..1): the sRGB (IEC 61966-2-1) matrix to XYZ, white
/// D65 taken as the matrix's image of (1, 1, 1) so that white has a* = b* = 0.
Lab linearSrgbToLab(double r, double g, double b);

/// \brief The linear-light sRGB colour of a CIELAB colour: the inverse of linearSrgbToLab (components may fall outside
/// 0..1 for colours outside sRGB).
std::array<double, 3> labToLinearSrgb(const Lab& lab);

/// \brief The CIEDE2000 colour difference with kL = kC = kH = 1, as Sharma, Wu and Dalal (2005) write it out.
double ciede2000(const Lab& x, const Lab& y);

/// \brief Mean CIEDE2000 between the HVS-filtered original and the HVS-filtered halftone (docs/spec.md section 3):
/// both as RGB (gray as R = G = B, CMYK converted), each channel decoded to linear light and filtered by the same
/// truncated Gaussian as filteredPsnr, then converted to CIELAB per pixel. 0 for a copy; NaN when the sizes
/// differ or an image is empty.
double filteredDeltaE2000(const Image& original, const Image& halftone, double sigma = 1.2, int radius = 4);

/// \brief How a halftone is seen: its resolution and the distance it is viewed from (docs/quality.md, "Colour
/// difference as seen").
struct ViewingConditions {
    double dpi = 96;             ///< pixels per inch, on paper or on screen (the default: a desktop screen at 1:1)
    double distanceInches = 18;  ///< viewing distance (the default: 46 cm, arm's length from a screen)
};

/// \brief The deviation in pixels of the eye's low-pass filter under `v`: a Gaussian of kEyeSigmaDegrees of visual
/// angle, that is dpi x distance x tan(kEyeSigmaDegrees) pixels.
inline constexpr double kEyeSigmaDegrees = 0.05;
double eyeSigmaPixels(const ViewingConditions& v);

/// \brief The colour difference as seen (docs/quality.md): mean CIEDE2000 between the original and the halftone, both
/// as light in the space the method diffused in (sRGB decoded with `linear`, else the values taken as light, as
/// such a method takes them), through the Gaussian of eyeSigmaPixels(v) truncated at three deviations, then to
/// CIELAB (D65). 0 for a copy; lower is better; NaN when the sizes differ or an image is empty.
double seenDeltaE2000(const Image& original, const Image& halftone, bool linear, const ViewingConditions& v = {});

/// \brief filteredPsnr through the eye's Gaussian under `v` (sigma eyeSigmaPixels(v), truncated at three deviations):
/// the PSNR of a halftone printed at v.dpi and seen from v.distanceInches (docs/quality.md, "Measured as printed").
double seenPsnr(const Plane8& original, const Plane8& halftone, const ViewingConditions& v, bool linear = false);

/// \brief The central `maxWidth` x `maxHeight` part of a plane (the whole plane when it is no larger).
Plane8 centralCrop(const Plane8& plane, int maxWidth, int maxHeight);

/// \brief Mean output (0..255) per input gray level; `count[g]` = 0 where level g does not occur.
struct ToneCurve {
    std::vector<double> meanOut;  ///< 256 entries
    std::vector<int64_t> count;   ///< 256 entries
    double maxDeviation = 0;      ///< max |meanOut - g| over levels that occur
    double meanDeviation = 0;     ///< mean |meanOut - g| over levels that occur
    int worstLevel = -1;          ///< the level of maxDeviation (-1 when no level occurs)
};
/// \brief Tone reproduction of a halftone of `original` (usually a ramp, see grayRamp).
ToneCurve toneCurve(const Plane8& original, const Plane8& halftone);
/// \brief A horizontal ramp 0..255 of the given size (column x -> round(255 x / (w - 1))).
Plane8 grayRamp(int width, int height);
/// \brief A horizontal ramp 0..255 as a staircase of `columnsPerLevel` columns per level (column x -> x /
/// columnsPerLevel; 256 x columnsPerLevel wide): the ramp of the tone error (docs/spec.md section 3).
Plane8 grayStaircase(int columnsPerLevel, int height);
/// \brief Constant-level tiles 0..255 (16 x 16 tiles of tile x tile pixels, level = row * 16 + column).
Plane8 grayTiles(int tile);

/// \brief Radially averaged power spectrum of a patch (values /255, mean removed), Ulichney's periodogram
/// normalised so that the mean over all frequencies equals the patch variance.
struct RadialSpectrum {
    std::vector<double> frequency;   ///< ring centre in cycles per pixel (0 .. 0.707)
    std::vector<double> power;       ///< mean power in the ring
    std::vector<double> anisotropy;  ///< variance / mean^2 of the ring's samples, in dB (10 log10)
    std::vector<int> samples;        ///< frequencies in the ring
    double variance = 0;             ///< variance of the patch (g - mean)^2, values /255 (mean over the patches)
    int periodograms = 1;            ///< K: how many patches' periodograms were averaged
    std::string backend;             ///< "fftw3" or "dft" (the built-in separable DFT)
};
/// \brief Computes the spectrum of a patch up to 1024 x 1024 (larger patches: use a crop).
Status radialSpectrum(const Plane8& patch, RadialSpectrum& out);
/// \brief Bartlett's estimate over K patches of one size (Ulichney 1988): the mean of their periodograms (each
/// patch's own mean removed), then radially averaged as above. K independent periodograms of an isotropic random
/// pattern give an anisotropy of about -10 log10 K dB in every ring (the noise floor).
Status radialSpectrum(const std::vector<Plane8>& patches, RadialSpectrum& out);
/// \brief The `tile` x `tile` pieces of a plane inside a border of `margin` pixels, row by row (none when the plane
/// is too small).
std::vector<Plane8> tilesOf(const Plane8& plane, int tile, int margin);
/// \brief Mean anisotropy in dB over the rings that hold power (ring mean above 1e-9 of the variance: rounding
/// residue of the FFT is not power); NaN when no ring does.
double meanAnisotropy(const RadialSpectrum& s);
/// \brief Mean power below `fmax` cycles/pixel divided by the patch variance (about 1 for white noise, small for blue
/// noise).
double lowFrequencyRatio(const RadialSpectrum& s, double fmax);
/// \brief True when this build computes spectra with FFTW3.
bool metricsHaveFftw();

}  // namespace halftone
