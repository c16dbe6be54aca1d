#pragma once
// \brief Colour palettes: the target colours of palette halftoning (docs/spec.md section 4), built-in device and
// system palettes, palette files, and palettes made from an image.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/image.h"
#include "core/status.h"

namespace halftone {

using Rgb8 = std::array<uint8_t, 3>;

/// \brief An ordered list of 2..256 8-bit sRGB colours; the order is the index written to indexed output and the
/// tie-break of the nearest-colour search (the smaller index wins).
struct Palette {
    std::string name;  ///< built-in name, file name or "auto:N"; for messages and labels
    std::vector<Rgb8> colors;

    int size() const { return int(colors.size()); }
    friend bool operator==(const Palette& a, const Palette& b) { return a.colors == b.colors; }
};

inline constexpr int kMinPaletteColors = 2;
inline constexpr int kMaxPaletteColors = 256;

/// \brief Checks the size bounds (2..256 colours).
Status checkPalette(const Palette& p);

/// \brief One built-in palette: its name (used by --palette), a group ("e-paper", "retro", "system", "print"),
/// and a line for --list-palettes.
struct BuiltinPalette {
    std::string name;
    std::string group;
    std::string description;
    Palette palette;
};

/// \brief Every built-in palette, in listing order.
const std::vector<BuiltinPalette>& builtinPalettes();

/// \brief The built-in palette named `name`, or nullptr.
const BuiltinPalette* findBuiltinPalette(const std::string& name);

/// \brief Parses palette file text: `.hex` (one RRGGBB a line), GIMP `.gpl`, Paint.NET `.txt` (AARRGGBB), Adobe
/// `.act` (binary); `fileName` picks the format by its extension (and names the file in errors, with the line).
Status parsePaletteFile(const std::string& fileName, const std::string& bytes, Palette& out);

/// \brief Reads and parses a palette file.
Status loadPaletteFile(const std::string& path, Palette& out);

/// \brief Writes a palette as a `.hex` or `.gpl` file (by extension).
Status savePaletteFile(const std::string& path, const Palette& p);

/// \brief Builds an n-colour palette from an image (RGB or gray), deterministically (same image, same palette).
Status autoPalette(const Image& image, int n, Palette& out);

/// \brief Resolves what a user typed: a built-in name, "auto:N" (needs `image`), or a palette file path.
Status resolvePalette(const std::string& spec, const Image* image, Palette& out);

}  // namespace halftone
