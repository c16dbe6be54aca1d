#pragma once
// \brief Target files: a device the user measured, as JSON (docs/targets.md describes the format).
#include <string>

#include "core/palette/target.h"
#include "core/status.h"

namespace halftone::io {

/// \brief The target file format's version ("halftone-target": 1).
inline constexpr int kTargetVersion = 1;

/// \brief Parses target file text; unknown keys, wrong types, bad colours and codes are refused with a message naming
/// `fileName` and the key.
Status parseTargetFile(const std::string& fileName, const std::string& text, Target& out);

/// \brief Reads a target file (at most 1 MiB).
Status loadTargetFile(const std::string& path, Target& out);

/// \brief The JSON text of a target (every key written), the form parseTargetFile reads.
std::string targetJson(const Target& target);

/// \brief Lets core's resolveTarget read target files (setTargetFileReader); programs call it once at start.
void installTargetFileReader();

}  // namespace halftone::io
