#pragma once
// \brief Parallel exact error collection on the CPU: the trapezoid blocks of Deshpande, Misra and Narayanan and
// the wavefront bands. Both are bit-identical to referenceErrorDiffusion (docs/spec.md section 1).
#include <string>
#include <vector>

#include "core/ed/errordiffusion.h"
#include "core/image.h"
#include "core/runcontrol.h"
#include "core/status.h"

namespace halftone {

/// \brief Instruction-set path of the wavefront band kernel.
enum class SimdPath { Auto, Avx512, Avx2, Sse, Scalar };

const char* toString(SimdPath p);
/// \brief Parses "auto", "avx512", "avx2", "sse", "scalar".
bool parseSimdPath(const std::string& s, SimdPath& out);
/// \brief True when this processor can run the path (Scalar and Auto always).
bool simdPathSupported(SimdPath p);
/// \brief Every concrete path this processor supports, fastest first.
std::vector<SimdPath> supportedSimdPaths();
/// \brief Resolves Auto: HALFTONE_SIMD when set (error if unknown or unsupported), else the fastest supported.
Status resolveSimdPath(SimdPath requested, SimdPath& out);
/// \brief Rows per band (one row per lane) of a path (Auto: the one that would run): the wavefront schedule's block
/// height.
int simdBandRows(SimdPath p);

/// \brief Options of the parallel methods.
struct ParallelOptions {
    int threads = 0;  ///< 0 = all hardware threads
    SimdPath simd = SimdPath::Auto;
    int blockWidth = 0;  ///< trapezoid: 0 = from the thread count (Deshpande, Misra and Narayanan)
    int blockHeight = 0;
};

/// \brief Deshpande, Misra and Narayanan, section 3.2: trapezoid blocks in knight's-move order, one barrier per block
/// diagonal, error collection in raster order inside a block. Serpentine runs sequentially.
Status trapezoidErrorDiffusion(const Plane8& src, Plane8& dst, const EdParams& params, const ParallelOptions& options,
                               const RunControl& control = {});

/// \brief The fastest exact CPU method: threads own bands of rows and run a SIMD k-delay wavefront
/// across each band (one row per lane), each band running ahead as far as the band above allows
/// (progress counters with acquire/release, no barriers). Memory O(width x threads).
/// Serpentine runs sequentially (it has no wavefront parallelism).
Status wavefrontErrorDiffusion(const Plane8& src, Plane8& dst, const EdParams& params, const ParallelOptions& options,
                               const RunControl& control = {});

}  // namespace halftone
