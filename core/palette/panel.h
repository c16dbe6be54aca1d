#pragma once
// \brief The simulated panel: a halftone written for a target (core/palette/target.h) as the device shows it, in its
// shown (measured or published) colours, and the colour difference of that view from the original (docs/targets.md,
// "Simulated panel").
#include "core/image.h"
#include "core/palette/target.h"
#include "core/status.h"

namespace halftone {

/// \brief How the simulated panel is seen by the measure. Without a resolution and distance: pixel for pixel through
/// the Gaussian of `halftone analyze`'s colour measure (`sigma`, 1.2 px, truncated at w = 4); with both: the eye's
/// Gaussian at that resolution and distance (eyeSigmaPixels, truncated at three deviations), as seenDeltaE2000 takes
/// it.
struct PanelViewing {
    double dpi = 0;             ///< the panel's pixels per inch (0: not given)
    double distanceInches = 0;  ///< the viewing distance (0: not given)
    double sigma = 1.2;         ///< the deviation in pixels without a resolution and distance
    bool physical() const { return dpi > 0 && distanceInches > 0; }
    /// \brief The deviation of the filter in pixels.
    double filterSigma() const;
    /// \brief The filter's half-width w in pixels (support 2w + 1).
    int filterRadius() const;
};

/// \brief The ink of every pixel of `result`, a halftone written for `target`: its indices when it carries them
/// (Image::indices with the target's written palette: the driver codes, as runImage makes it), else its colours
/// (as read from a file: an indexed file's palette is expanded) matched exactly against the inks' nominal colours.
/// A 1-bit target (no inks): 0 for black, 1 for white. An error names the first pixel that is none of the target's
/// colours, or two inks a file cannot tell apart (the same nominal colour).
Status panelInks(const Target& target, const Image& result, Plane8& inks);

/// \brief `result` as the panel shows it: an RGB image of each pixel's ink in its shown colour (black and white for a
/// 1-bit target); alpha dropped. Errors as panelInks.
Status simulatePanel(const Target& target, const Image& result, Image& shown);

/// \brief The colour difference of the simulated panel from the original: filteredDeltaE2000 (HVS-filtered mean
/// CIEDE2000 in linear light) of `original` (the prepared image the method ran on, before tone and gamut mapping)
/// against simulatePanel(target, result), through the Gaussian of `viewing`. An error when the sizes differ, naming
/// both.
Status panelDeltaE2000(const Target& target, const Image& original, const Image& result, double& deltaE,
                       const PanelViewing& viewing = {});

}  // namespace halftone
