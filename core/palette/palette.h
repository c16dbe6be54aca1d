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

/// \brief Reads a colour as people write it: "#RRGGBB", "RRGGBB", "#RGB" or a name (black, white, gray/grey, red,
/// green, blue, yellow, cyan, magenta, orange), any case; false for anything else.
bool parseColorText(const std::string& text, Rgb8& out);
/// \brief A colour as "#rrggbb".
std::string colorText(const Rgb8& c);

/// \brief The distance the nearest-colour search to a palette minimises (docs/spec.md sections 4 and 5).
enum class PaletteMatch {
    Euclidean,  ///< dR^2 + dG^2 + dB^2 (the default)
    Weighted,   ///< 299 dR^2 + 587 dG^2 + 114 dB^2 (luma weights)
};

/// \brief The working space of error diffusion to a palette (docs/spec.md section 4).
enum class PaletteSpace {
    Linear,  ///< linear light: sRGB decoded (the default)
    Gamma,   ///< the 8-bit sRGB values as they are
};

/// \brief The parameter key that carries the match to a method's palette form ("euclidean" or "weighted"; not a
/// ParamSpec: runImage sets it from RunRequest::paletteMatch, as it sets the "linear" parameter from paletteSpace).
inline constexpr const char* kPaletteMatchKey = "match";

/// \brief The channel weights (w_R, w_G, w_B) of a match: (1, 1, 1) or (299, 587, 114).
std::array<int32_t, 3> matchWeights(PaletteMatch m);
/// \brief "euclidean" or "weighted".
const char* toString(PaletteMatch m);
/// \brief "linear" or "gamma".
const char* toString(PaletteSpace s);
/// \brief The match named `name` ("euclidean" or "weighted"); false for any other name.
bool parsePaletteMatch(const std::string& name, PaletteMatch& out);
/// \brief The space named `name` ("linear" or "gamma"); false for any other name.
bool parsePaletteSpace(const std::string& name, PaletteSpace& out);

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
/// `.act` (binary), JASC `.pal`; `fileName` picks the format by its extension (the content decides when the
/// extension names none of these) and names the file in errors, with the line ("palette file 'F', line N: ...").
/// Colours keep the file's order, duplicates included (the order is the index of indexed output).
Status parsePaletteFile(const std::string& fileName, const std::string& bytes, Palette& out);

/// \brief Reads and parses a palette file.
Status loadPaletteFile(const std::string& path, Palette& out);

/// \brief The bytes of a palette file named `fileName`, in the format its extension names: `.hex`, `.gpl`, `.txt`
/// (Paint.NET), `.act` (772 bytes, with the colour count) or `.pal` (JASC).
Status formatPaletteFile(const std::string& fileName, const Palette& p, std::string& bytes);

/// \brief Writes a palette file in the format of its extension (see formatPaletteFile).
Status savePaletteFile(const std::string& path, const Palette& p);

/// \brief One palette autoPalette considers: how it was made and the filtered Delta E 2000 (docs/spec.md section 3)
/// of its Floyd-Steinberg halftone of the samples (linear light, euclidean match) against them.
struct AutoPaletteCandidate {
    Palette palette;
    std::string method;
    double error = 0;
};

/// \brief The palettes autoPalette chooses from (docs/palettes.md): an image with n colours or fewer gives one, its
/// own colours (a one-colour image gets black or white beside it); any other gives four, weighted k-means over a
/// fixed grid of at most about 2^18 samples in CIELAB and in sRGB code values, each with and without error feedback.
/// Each palette is sorted darkest first (L*), ties by the hex value.
Status autoPaletteCandidates(const Image& image, int n, std::vector<AutoPaletteCandidate>& out);

/// \brief Builds a palette of at most n colours (2..256) from an image (gray, RGB or CMYK), deterministically (same
/// image, same palette): the candidate of autoPaletteCandidates whose halftone of the samples is closest to them
/// (the first of equals).
Status autoPalette(const Image& image, int n, Palette& out);

/// \brief For a spec "auto:N" sets n = N (an error unless 2 <= N <= 256); n = 0 for any other spec.
Status parseAutoPaletteSpec(const std::string& spec, int& n);

/// \brief The file a palette spec reads: the spec itself unless it is a built-in name or auto:N (then empty).
std::string paletteFile(const std::string& spec);

/// \brief Resolves what a user typed: a built-in name, "auto:N" (needs `image`), or a palette file path.
Status resolvePalette(const std::string& spec, const Image* image, Palette& out);

}  // namespace halftone
