#pragma once
// \brief Block-parallel DBS on the GPU (plain C++ API, no CUDA types). Built only with CUDA (HALFTONE_HAVE_CUDA).
#include "core/dbs.h"
#include "core/registry.h"

namespace halftone::gpu {

/// \brief Timings of one GPU DBS run in milliseconds.
struct DbsGpuTiming {
    double deviceMs = 0;     ///< input on the device to output on the device (CUDA events): start, c_pe, iterations
    double endToEndMs = 0;   ///< host 8-bit in to host out, allocations included (host clock)
};

/// \brief Four-group block-parallel DBS (seed 003 section 4, seed 004 quad-interleaved) with one warp per block and the
/// block's c_pe in shared memory; bit-identical to dbsHalftone with DbsSchedule::Blocks and the same block side
/// (block side >= max(4w+1, 2(2w+1))). No usable device or a CUDA error gives Status::unavailable.
/// Progress per iteration (iteration, moves, error); cancellation checked between block-group launches.
Status dbsHalftoneGpu(const Plane8& src, Plane8& dst, const DbsParams& params, const RunControl& control = {},
                      DbsStats* stats = nullptr, DbsGpuTiming* timing = nullptr);

/// \brief Attaches the GPU path to `dbs/blocks` (called from gpu::registerMethods).
void registerDbsGpu(Registry& registry);

}  // namespace halftone::gpu
