#pragma once
// \brief Animations of indexed frames (the lesson's steps, docs/teaching.md): animated PNG (APNG chunks written over
// zlib, as libpng has no APNG interface), animated WebP (libwebpmux's WebPAnimEncoder, lossless) and animated GIF
// (giflib). Every frame has the same size and palette; the file is written complete or not at all.
#include <string>
#include <vector>

#include "core/image.h"
#include "core/status.h"

namespace halftone::io {

/// \brief True when `path` ends in an extension writeAnimation() writes: .png, .webp or .gif.
bool isAnimationFormat(const std::string& path);

/// \brief Writes `frames` (indexed RGB images of one size and one palette of at most 256 colours, as
/// renderLessonFrame() makes) as an animation that loops forever, `frameMs` milliseconds a frame; the format comes
/// from the extension. The message names the file.
Status writeAnimation(const std::string& path, const std::vector<Image>& frames, int frameMs);

}  // namespace halftone::io
