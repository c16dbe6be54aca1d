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

/// \brief Which kernel processes the blocks of a group.
enum class DbsGpuLayout {
    Ours,     ///< one CTA per block, warp-wide speculative scan (32 pixels a step, first accepted move applied)
    Seed003,  ///< seed 003 section 4: one warp per block, lanes evaluate the 9 moves of one pixel at a time
};

/// \brief Four-group block-parallel DBS (seed 003 section 4, seed 004 quad-interleaved), the block's c_pe in shared
/// memory; bit-identical to dbsHalftone with DbsSchedule::Blocks and the same block side
/// (block side >= max(4w+1, 2(2w+1))). No usable device or a CUDA error gives Status::unavailable.
/// Progress per iteration (iteration, moves, error); cancellation checked between block-group launches.
/// Both layouts give the same bits for the same block side; they differ in speed.
Status dbsHalftoneGpu(const Plane8& src, Plane8& dst, const DbsParams& params, const RunControl& control = {},
                      DbsStats* stats = nullptr, DbsGpuTiming* timing = nullptr,
                      DbsGpuLayout layout = DbsGpuLayout::Ours);

/// \brief Attaches ours to `dbs/blocks` and the seed 003 layout to `dbs/blocks-seed003` (called from
/// gpu::registerMethods).
void registerDbsGpu(Registry& registry);

}  // namespace halftone::gpu
