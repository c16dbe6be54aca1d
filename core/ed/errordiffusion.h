#pragma once
// \brief Sequential error diffusion and error collection (Kasagi, Nakano and Ito, section III; docs/spec.md section 1).
#include <cstdint>
#include <string>

#include "core/image.h"
#include "core/ed/kernel.h"
#include "core/palette/palette.h"
#include "core/runcontrol.h"
#include "core/status.h"

namespace halftone {

/// \brief The arithmetic parameters every ED/EC path shares.
struct EdParams {
    std::string kernel = "floyd-steinberg";
    int levels = 2;
    bool linear = false;
    bool serpentine = false;
    /// The nearest-colour distance of error diffusion to a palette (docs/spec.md section 4); gray ignores it.
    PaletteMatch match = PaletteMatch::Euclidean;
    /// Seed of the position noise of Zhou and Fang's threshold modulation (docs/spec.md section 1); other kernels
    /// ignore it.
    uint32_t seed = 1;
};

/// \brief The four sequential CPU variants of Kasagi, Nakano and Ito, Table V (1).
enum class EdVariant {
    Diffusion,            ///< ED: scatter w*E into a full int32 accumulator plane
    Collection,           ///< EC: gather from a full int32 error plane
    DiffusionRegisters,   ///< ED with register caching: O(width) row accumulators, same-row error in locals
    CollectionRegisters,  ///< EC with register caching: O(width) error rows, same-row errors in locals
};

/// \brief Checks kernel name, levels and sizes; fills `kernel` when ok.
Status validateEdParams(const EdParams& params, const Kernel*& kernel);

/// \brief Halftones one 8-bit plane with the chosen sequential variant; dst is resized.
/// Progress is reported per row; cancellation is checked per row.
Status errorDiffuse(const Plane8& src, Plane8& dst, const EdParams& params, EdVariant variant,
                    const RunControl& control = {});

/// \brief The simplest transcription of the SPEC recurrence (gather, full error plane, any kernel,
/// serpentine): the reference every other path is compared with bit for bit.
Plane8 referenceErrorDiffusion(const Plane8& src, const EdParams& params);
/// \brief The same with the kernel given, not looked up by params.kernel: a table that is not compiled in (the TDED
/// training's candidates, core/ed/varkerneltable.h's format) runs through the same recurrence.
Plane8 referenceErrorDiffusion(const Plane8& src, const EdParams& params, const Kernel& kernel);

}  // namespace halftone

#include <vector>

namespace halftone {
struct ParamSpec;
class ParamValues;

/// \brief The parameter specs shared by every ED/EC method: kernel, levels, linear, serpentine, seed.
std::vector<ParamSpec> edParamSpecs(bool withSerpentine = true);
/// \brief Reads the shared ED/EC parameters from resolved values.
EdParams edParamsFrom(const ParamValues& values);
/// \brief Whether the CPU error-diffusion methods may halftone a plane in place for these parameters
/// (MethodInfo::cpuInPlace).
bool edRunsInPlace(const ParamValues& values);
}  // namespace halftone
