#pragma once
// \brief Ordered dither with any threshold array (Koge, Ito and Nakano, section 2.1: output 0 where a <= t, else 255).
#include <string>

#include "core/image.h"
#include "core/runcontrol.h"
#include "core/screen/screen.h"
#include "core/status.h"

namespace halftone {

/// \brief Ordered dither of one plane with a periodic threshold array (tiled from the top-left corner) to `levels`
/// output values v_k = floor((510 k + L - 1) / (2 (L - 1))) (docs/spec.md section 1): gray a between v_k and v_k+1
/// (k at most L - 2) takes v_k+1 where 255 (a - v_k) > t (v_k+1 - v_k), else v_k; with two levels, white where
/// a > t. Cancellation is checked per row band.
Status orderedDither(const Plane8& src, Plane8& dst, const ThresholdArray& screen, const RunControl& control = {},
                     int levels = 2);

struct ParamSpec;
/// \brief The `screen` parameter shared by ordered dither and clip-free DBS: a spec text (bayer:N,
/// cluster:..., blue-noise[:options], dbs or a file of thresholds) with named presets to pick from.
ParamSpec screenParamSpec(std::string label, std::string defaultSpec, std::string help);

class Registry;
/// \brief Registers `ordered/screen` (parameter `screen`: bayer:N, cluster:..., blue-noise, dbs or a file).
void registerOrderedMethods(Registry& r);

}  // namespace halftone
