#pragma once
// \brief Threshold arrays (screens) from image files: what `--screen FILE` and the studio's Screen > From file...
// read.
#include <string>

#include "core/screen/screen.h"
#include "core/status.h"

namespace halftone::io {

/// \brief Reads a threshold array from any image file readImage reads (PNG, PGM, TIFF, ...); colour is converted to
/// gray. Errors name the file.
Status readScreenFile(const std::string& path, ThresholdArray& out);

/// \brief Makes core's screen specs ("--screen FILE", a preset's screen) read files with readScreenFile.
void installScreenFileLoader();

}  // namespace halftone::io
