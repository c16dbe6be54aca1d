#pragma once
// \brief Output devices: an e-paper panel, a gray reader, a thermal printer or a laser engraver as one row: its size,
// its resolution, the colours it shows and the index its driver expects for each (docs/targets.md cites every value).
#include <functional>
#include <string>
#include <vector>

#include "core/palette/palette.h"
#include "core/status.h"

namespace halftone {

/// \brief One colour a device makes.
struct TargetInk {
    std::string name;  ///< "black", "red", "gray 5"
    int code = 0;      ///< the index the device's driver expects in the output for this colour (0..255)
    Rgb8 nominal{};    ///< the colour the driver's own palette gives it (written into the output file's palette)
    Rgb8 shown{};      ///< the colour the panel shows (measured or published): the method matches against these
};

/// \brief A device to halftone for: a row of builtinTargets() or a target file.
struct Target {
    std::string name;
    std::string group;          ///< "e-paper", "gray", "printer", "engraver"
    std::string description;    ///< one line for --list-targets
    std::string source;         ///< where the shown colours come from, in a few words (docs/targets.md in full)
    int width = 0, height = 0;  ///< the driver's frame in pixels; a height of 0: the length follows the image
    double dpi = 0;             ///< the device's resolution (written into the file, and the unit of --print-size)
    /// The colours, in the order the nearest-colour search takes them; empty: a 1-bit device (black and white
    /// output of the gray methods, no palette).
    std::vector<TargetInk> inks;

    /// \brief The shown colours in ink order: the palette the method runs against.
    Palette shownPalette() const;
    /// \brief The palette the output is written with: the nominal colour of each ink at its code, every code below
    /// the largest that no ink uses given the first ink's nominal colour.
    Palette writtenPalette() const;
    /// \brief The code of each ink, in ink order.
    std::vector<uint8_t> codes() const;
    /// \brief Checks a target: a name, a size and resolution in range, 2..256 inks with distinct codes 0..255 (or
    /// none); messages name the target.
    Status validate() const;
};

/// \brief Every built-in target, in listing order.
const std::vector<Target>& builtinTargets();

/// \brief The built-in target `name` means (any case and spelling), or nullptr.
const Target* findBuiltinTarget(const std::string& name);

/// \brief The file a target spec reads: the spec itself unless it names a built-in target (then empty).
std::string targetFile(const std::string& spec);

/// \brief Reads a target file (JSON, docs/targets.md); io/ sets it, since core reads no JSON.
using TargetFileReader = std::function<Status(const std::string& path, Target& out)>;
void setTargetFileReader(TargetFileReader reader);

/// \brief A built-in target by name, or a target file (a spec ending in .json or naming an existing file); an error
/// naming the spec and the nearest built-in names otherwise.
Status resolveTarget(const std::string& spec, Target& out);

}  // namespace halftone
