#pragma once
// \brief Colour separation of sRGB into the process inks cyan, magenta, yellow and black: grey component
// replacement (GCR) with under-colour removal (UCR) and a total ink limit, in integers (docs/spec.md, "Separation into
// inks").
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "core/status.h"

namespace halftone {

/// \brief The process inks' names in plane order, as TIFF InkNames and plate file names give them.
inline constexpr std::array<const char*, 4> kInkNames = {"Cyan", "Magenta", "Yellow", "Black"};

/// \brief A separation of RGB into the process inks other than the built-in formula: an ICC transform to a CMYK
/// output profile (io/icc.h). Immutable once made, so one separator may serve several runs at once.
class Separator {
public:
    virtual ~Separator() = default;
    /// \brief Separates `n` pixels of interleaved R, G, B bytes into interleaved C, M, Y, K bytes (0 = no ink, 255 =
    /// solid).
    virtual void separate(const uint8_t* rgb, uint8_t* cmyk, size_t n) const = 0;
};

/// \brief The rendering intents of an ICC transform (ICC.1:2022, section 7.2.15).
enum class RenderingIntent { Perceptual, Relative, Saturation, Absolute };

/// \brief The intent's word on the command line and in presets: perceptual, relative, saturation or absolute.
const char* toString(RenderingIntent intent);
/// \brief Reads the words of toString; false for any other.
bool parseRenderingIntent(const std::string& word, RenderingIntent& out);

/// \brief The ICC profiles a job separates through, by file name (io/icc.h makes them a Separator).
struct IccProfiles {
    std::string input;   ///< the source RGB profile; empty: sRGB
    std::string output;  ///< the CMYK output profile; empty: the built-in formula (SeparationParams)
    /// Relative colorimetric (with black-point compensation) by default: paper white stays paper, the darkest
    /// colour of the input becomes the darkest the press prints.
    RenderingIntent intent = RenderingIntent::Relative;
    bool empty() const { return output.empty(); }
    friend bool operator==(const IccProfiles&, const IccProfiles&) = default;
};

/// \brief How `--color cmyk` separates: GCR percent and total ink limit percent, or a Separator.
struct SeparationParams {
    /// Percent (0..100) of the common grey min(C, M, Y) moved to the black ink; 100 (the default) prints every
    /// neutral with black alone.
    int gcr = 100;
    /// Total ink limit in percent (0..400): C + M + Y + K never exceeds floor(inkLimit x 255 / 100); 400 = no limit.
    int inkLimit = 400;
    /// Set: colour input is separated by it (an ICC profile's transform) instead of the formula, so `gcr` does not
    /// apply (the profile's black generation does); `inkLimit` still caps C + M + Y + K afterwards (limitInk), so
    /// 400 leaves the profile's own limit alone.
    std::shared_ptr<const Separator> separator = nullptr;
};

/// \brief Checks the ranges (gcr 0..100, inkLimit 0..400); the message names the option.
Status checkSeparation(const SeparationParams& p);

/// \brief The total ink cap in 8-bit units: floor(inkLimit x 255 / 100).
int inkCap(int inkLimit);

/// \brief Separates one sRGB pixel into C, M, Y, K (0 = no ink, 255 = solid), docs/spec.md "Separation into inks".
std::array<uint8_t, 4> separatePixel(uint8_t r, uint8_t g, uint8_t b, const SeparationParams& p);

/// \brief Applies the total ink limit to one CMYK pixel in place: C, M and Y are scaled down (floor) so that
/// C + M + Y + K <= inkCap(inkLimit); K is kept unless it alone exceeds the cap.
void limitInk(std::array<uint8_t, 4>& cmyk, int inkLimit);

}  // namespace halftone
