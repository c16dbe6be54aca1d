#pragma once
// \brief Threshold arrays (screens) from image files of any format this build reads.
#include <string>

#include "core/screen/screen.h"
#include "core/status.h"

namespace halftone::io {

/// \brief Reads a threshold array from an image file through readImage (any format it reads; colour converted to
/// gray, 16-bit samples rounded to 8 bits as readImage does); errors name the file.
Status readScreenFile(const std::string& path, ThresholdArray& out);

/// \brief Makes screenFromSpec read screen files with readScreenFile; the CLI and the studio call it at start.
void installScreenFileLoader();

}  // namespace halftone::io
