#pragma once
// \brief nvcc-only strip bookkeeping shared by both forms of the wavefront kernel (gpu/ed/wavefront.cu and
// gpu/ed/wavefront_fast.cuh): taking a strip, waiting for its input band, cancellation in spin loops, finishing a
// strip. Every function is warp-uniform: all 32 lanes call it with the same arguments and get the same result.
#include <cuda_runtime.h>

#include "gpu/ed/launch.h"

namespace halftone::gpu::strip {

inline constexpr unsigned kFull = 0xffffffffu;

/// \brief The next strip from the work-stealing counter (the same value in every lane).
__device__ __forceinline__ int take(const WavefrontArgs& a, int lane) {
    int s = 0;
    if (lane == 0) s = atomicAdd(a.stripCounter, 1);
    return __shfl_sync(kFull, s, 0);
}

/// \brief Overlapped path: waits until the input band of the strip starting at row `base` has arrived; false when a
/// cancel was seen meanwhile.
__device__ __forceinline__ bool waitForBand(const WavefrontArgs& a, int base, int lane) {
    if (!a.bandReady) return true;
    const int band = base / a.bandRows;
    int spins = 0;
    for (;;) {
        int ready = 0;
        if (lane == 0) ready = *reinterpret_cast<const volatile int*>(a.bandReady + band) == int(a.epoch);
        if (__shfl_sync(kFull, ready, 0)) return true;
        if (++spins > 64) {
            spins = 0;
            int ab = 0;
            if (lane == 0) ab = *reinterpret_cast<volatile int*>(a.abortFlag);
            if (__shfl_sync(kFull, ab, 0)) return false;
        }
        __nanosleep(256);
    }
}

/// \brief For spin loops: every 64th call reads the cancel flag (lane 0, broadcast); true when a cancel was seen,
/// after setting the flag for the other warps.
__device__ __forceinline__ bool spinAbort(const WavefrontArgs& a, int lane, int& spins) {
    if (++spins <= 64) return false;
    spins = 0;
    int ab = 0;
    if (lane == 0) ab = *reinterpret_cast<volatile int*>(a.abortFlag);
    if (!__shfl_sync(kFull, ab, 0)) return false;
    if (lane == 0) atomicExch(a.abortFlag, 1);
    return true;
}

/// \brief A strip is done: its done flag (overlapped path, after its output stores) and the progress counter.
__device__ __forceinline__ void finish(const WavefrontArgs& a, int s, int rowsDone, int lane) {
    if (a.stripDone) {
        __threadfence_system();  // this strip's output stores before its done flag
        __syncwarp();
        if (lane == 0) a.stripDone[s] = int(a.epoch);
    }
    if (lane == 0 && a.rowsDone) *a.rowsDone = rowsDone;
}

}  // namespace halftone::gpu::strip
