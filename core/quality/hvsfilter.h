#pragma once
// \brief The Gaussian HVS filter of docs/spec.md section 2 (sigma 1.2 px, truncated to (2w+1)^2, w = 4),
// used to show a halftone "as perceived" at a viewing distance. Quality numbers (PSNR, HVS error) are
// core/quality/metrics.h; this filter only makes the 8-bit picture the studio displays.
#include <vector>

#include "core/image.h"
#include "core/runcontrol.h"
#include "core/status.h"

namespace halftone {

/// \brief Parameters of the truncated, normalised Gaussian HVS filter.
struct HvsFilterParams {
    double sigma = 1.2;   ///< deviation in pixels
    int radius = 4;       ///< w: the support is (2w+1) x (2w+1)
    bool linear = false;  ///< filter in linear light (sRGB decoded, re-encoded for display), as a method that diffused
                          ///< in linear light
};

/// \brief Normalised 1-D taps of the separable Gaussian (size 2w+1, sum 1).
std::vector<double> hvsGaussianTaps(const HvsFilterParams& params);

/// \brief Filters an 8-bit plane with the Gaussian HVS filter (edges clamped), rounding to 8 bits; with
/// `params.linear` the plane is decoded to linear light, filtered, and encoded back to sRGB values.
/// Progress per row band; cancellation checked per row.
Status hvsFilter(const Plane8& src, Plane8& dst, const HvsFilterParams& params = {}, const RunControl& control = {});

}  // namespace halftone
