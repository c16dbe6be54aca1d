#pragma once
// \brief Block-parallel DBS on the GPU (plain C++ API, no CUDA types). Built only with CUDA (HALFTONE_HAVE_CUDA).
#include "core/dbs/dbs.h"
#include "core/job/registry.h"

namespace halftone::gpu {

/// \brief Timings of one GPU DBS run in milliseconds.
struct DbsGpuTiming {
    double deviceMs = 0;    ///< input on the device to output on the device (CUDA events): start, c_pe, iterations
    double endToEndMs = 0;  ///< host 8-bit in to host out, allocations included (host clock)
};

/// \brief Which kernel processes the blocks of a group.
enum class DbsGpuLayout {
    WarpScan,  ///< one CTA per block, warp-wide speculative scan (32 pixels a step, first accepted move applied)
    Koge,      ///< Koge, Ito and Nakano (2014), section 4: one warp per block, lanes evaluate the 9 moves of one pixel
};

/// \brief Four-group block-parallel DBS (Koge, Ito and Nakano, section 4; Zhang and Allebach's quad-interleaved
/// blocks), the block's c_pe in shared memory; bit-identical to dbsHalftone with DbsSchedule::Blocks and the same block
/// side (block side >= max(4w+1, 2(2w+1))). No usable device or a CUDA error gives Status::unavailable. Progress per
/// iteration (iteration, moves, error); cancellation checked between block-group launches. Both layouts give the same
/// bits for the same block side; they differ in speed.
Status dbsHalftoneGpu(const Plane8& src, Plane8& dst, const DbsParams& params, const RunControl& control = {},
                      DbsStats* stats = nullptr, DbsGpuTiming* timing = nullptr,
                      DbsGpuLayout layout = DbsGpuLayout::WarpScan);

/// \brief Attaches the warp-scan layout to `dbs/blocks` and Koge et al.'s layout to `dbs/blocks-koge` (called
/// from gpu::registerMethods).
void registerDbsGpu(Registry& registry);

}  // namespace halftone::gpu
