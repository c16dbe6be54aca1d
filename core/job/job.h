#pragma once
// \brief A whole halftoning job as the user sets it up: how to prepare the image, which method with which
// parameters, colour or palette, device, and the output format. The CLI, batch runs, presets and the studio
// share it; resolveJob turns it into a RunRequest.
#include <optional>
#include <string>

#include "core/image.h"
#include "core/palette/target.h"
#include "core/job/registry.h"
#include "core/prepare/prepare.h"
#include "core/print/dotgain.h"
#include "core/print/separation.h"
#include "core/status.h"

namespace halftone {

struct JobSettings {
    std::string method;   ///< empty: the default method (error diffusion)
    std::string variant;  ///< empty: the method's default variant
    ParamValues params;   ///< the method's parameters that differ from its defaults
    ColorMode color = ColorMode::Gray;
    SeparationParams separation;  ///< GCR and ink limit of ColorMode::CMYK
    DotGain dotGain;              ///< with ColorMode::CMYK: each ink's dot gain, compensated before screening
    /// With ColorMode::CMYK: separate through these ICC profiles (loaded by io/icc.h) instead of the formula; the
    /// output profile brings its black generation and ink limit, so `separation.gcr` stays at its default.
    IccProfiles icc;
    std::string palette;  ///< a built-in palette name, a palette file or "auto:N"; empty: no palette
    /// A device (builtinTargets() name or a target file): its frame, resolution, shown colours and driver codes
    /// (applyTarget); empty: none. A target brings its own palette, so `palette` stays empty.
    std::string target;
    /// With a palette or a target: the image's lightness and colours mapped into the palette's before the method.
    ToneMap tone = ToneMap::None;
    GamutMap gamut = GamutMap::None;
    /// With a palette: the working space and the nearest-colour match (docs/spec.md section 4).
    PaletteSpace paletteSpace = PaletteSpace::Linear;
    PaletteMatch paletteMatch = PaletteMatch::Euclidean;
    std::string device = "auto";  ///< "auto", "cpu" or "gpu"
    int threads = 0;              ///< worker threads of parallel methods; 0 = all
    bool keepAlpha = false;       ///< copy the input's alpha channel into the output
    PrepareSettings prepare;      ///< resize and tone steps before the method
    std::string printSize;        ///< "6x4in" etc.; with dpi sets prepare.width/height
    double dpi = 0;               ///< device resolution for printSize (and written into the file); 0 = unset
    std::string format;  ///< output format of batch runs by extension ("png", "tif", "pbm", "gif"); empty = png

    friend bool operator==(const JobSettings& a, const JobSettings& b);
};

/// \brief The job with its target applied where the job leaves a setting unset: the target's frame as the size (with
/// --fit cover unless the job asks for stretch or contain) when the job gives no width, height, scale or print size;
/// its resolution when the job gives none; gray for a 1-bit device. `out` has no target; `target` (when given) gets
/// it, whose palette and codes the run uses. Without a target `out` is the job itself.
Status applyTarget(const JobSettings& job, JobSettings& out, Target* target = nullptr);

/// \brief The job's device resolution as the `dpi` parameter of a method that models a printer (one with a `dpi`
/// parameter, the AM screen): set when `dpi` is over 0, as the CLI's --dpi and the studio's Adjust DPI do.
void applyJobDpi(const MethodInfo& method, double dpi, ParamValues& params);

/// \brief True when the job halftones to a palette: a named one, auto:N or a target with colours.
bool jobToPalette(const JobSettings& job);

/// \brief True when the job will run on the GPU: device gpu, or auto with a usable GPU, and a GPU form of the method
/// (its palette form when the job names a palette). Batches size their worker count by it.
bool jobUsesGpu(const JobSettings& job);

/// \brief The method the job names (defaults filled in), or an error naming the unknown method or variant.
Status jobMethod(const JobSettings& job, const MethodInfo*& method);

/// \brief Checks everything that can be checked without an image: method and variant, parameters (names, kinds,
/// ranges, choices), device, threads, prepare ranges, print size and format.
Status validateJob(const JobSettings& job);

/// \brief The run request for one image: the method, its parameters, colour mode, separation, device and palette,
/// and the prepare settings with the print size applied. An "auto:N" palette is made from `image`; without an image
/// the request's palette stays unset for the caller to make once the image is known.
Status resolveJob(const JobSettings& job, const Image* image, RunRequest& request, PrepareSettings& prepare);

}  // namespace halftone
