#pragma once
// \brief Separation through ICC profiles with LittleCMS 2: the job's profile files read and checked, and the
// transform from the source RGB profile to a CMYK output profile as a core Separator (docs/print.md, "ICC
// separation").
#include <array>
#include <cstdint>
#include <memory>
#include <string>

#include "core/print/printpreview.h"
#include "core/print/separation.h"
#include "core/status.h"

namespace halftone::io {

/// \brief The largest profile file read (ICC profiles of presses are a few MB at most).
inline constexpr uint64_t kMaxIccProfileBytes = 64ull << 20;

/// \brief An RGB -> CMYK transform between two ICC profiles: the input profile (a file, or sRGB) and a CMYK output
/// profile, with the job's rendering intent (black-point compensation with the relative colorimetric one).
class IccSeparator final : public Separator {
public:
    ~IccSeparator() override;
    IccSeparator(const IccSeparator&) = delete;
    IccSeparator& operator=(const IccSeparator&) = delete;

    /// \brief Reads and checks both profiles and builds the transform. Errors name the file and the problem: missing,
    /// not a regular file, larger than kMaxIccProfileBytes, not an ICC profile, the wrong colour space or class (the
    /// output must be a CMYK output profile, the input an RGB one), or no transform for the intent. The last
    /// separator made is kept and given again while its files keep their size and time (a batch's files, and the
    /// CLI's check before the run, build it once).
    static Status load(const IccProfiles& profiles, std::shared_ptr<const IccSeparator>& out);

    void separate(const uint8_t* rgb, uint8_t* cmyk, size_t n) const override;

    /// \brief The output profile's total area coverage in percent (C + M + Y + K at its darkest), as LittleCMS
    /// estimates it from the profile's tables (cmsDetectTAC).
    double totalAreaCoverage() const { return tac_; }
    /// \brief The output profile's description tag (its name), or its file name when it has none.
    const std::string& outputName() const { return outputName_; }
    /// \brief The colours of the print the output profile describes, for a proof: the paper and each solid ink alone,
    /// through the profile to sRGB (relative colorimetric: the paper shows as white).
    const PrintInks& printInks() const { return inks_; }

private:
    IccSeparator() = default;
    static Status make(const IccProfiles& profiles, std::shared_ptr<const IccSeparator>& out);
    void* context_ = nullptr;    // cmsContext: its error handler collects LittleCMS's messages
    void* transform_ = nullptr;  // cmsHTRANSFORM, RGB_8 -> CMYK_8
    double tac_ = 0;
    std::string outputName_;
    PrintInks inks_;
};

/// \brief Whether this build separates through ICC profiles (it was built with LittleCMS 2).
bool iccAvailable();

}  // namespace halftone::io
