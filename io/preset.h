#pragma once
// \brief Presets: a whole job (prepare steps, method, variant, parameters, palette, colour mode, device, output
// format) saved to and loaded from a JSON file (docs/presets.md describes the format).
#include <string>

#include "core/job/job.h"
#include "core/status.h"

namespace halftone::io {

/// \brief The preset format's version written into every file ("halftone-preset": 1).
inline constexpr int kPresetVersion = 1;

/// \brief The deepest nesting of objects and arrays a preset may have (it needs two); deeper files are refused while
/// they are parsed.
inline constexpr int kMaxPresetDepth = 16;

/// \brief The JSON text of a job: every setting that differs from the defaults, plus method and variant.
std::string presetJson(const JobSettings& job);

/// \brief Parses preset text. Unknown keys, values of the wrong type or out of range, and unknown methods,
/// variants or parameters are refused with a message naming `fileName` and the key ("preset 'x.json': prepare.gamma
/// must be between 0.1 and 10, got 0").
Status parsePreset(const std::string& fileName, const std::string& text, JobSettings& job);

/// \brief Reads a preset file (at most 1 MiB).
Status loadPreset(const std::string& path, JobSettings& job);

/// \brief Writes a preset file, complete or not at all.
Status savePreset(const std::string& path, const JobSettings& job);

}  // namespace halftone::io
