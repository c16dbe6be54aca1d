#pragma once
// \brief Launch wrappers of the DBS kernels in dbs_kernels.cu (plain C++, no CUDA syntax, no core headers).
// Each wrapper only enqueues work on `stream` and returns the launch error.
#include <cuda_runtime_api.h>

#include <cstdint>

namespace halftone::gpu::dbsdev {

/// \brief Device buffers and geometry of one DBS run (all pointers are device pointers).
struct DbsDeviceState {
    int width = 0, height = 0;
    const uint8_t* src = nullptr;  ///< width x height, 8-bit gray
    uint8_t* g = nullptr;          ///< (width + 2) x (height + 2), border 0
    uint8_t* freeMask = nullptr;   ///< (width + 2) x (height + 2), border 0
    float* cpe = nullptr;          ///< (width + 2 pad) x (height + 2 pad), pad = cppRadius + 1
    int pad = 0;
    const float* cpp = nullptr;  ///< (2R + 1)^2
    int cppRadius = 0;
    int* activeUntil = nullptr;  ///< update map: tiles of 8 x 8
    int tilesX = 0, tilesY = 0, reach = 0;
    unsigned long long* moves = nullptr;  ///< accepted moves of the current iteration
};

/// \brief Start image (Koge, Ito and Nakano, step 1): random dither from the hash of (seed, x, y); clip-free labels
/// from the screen.
cudaError_t launchStart(const DbsDeviceState& s, uint64_t seed, bool clipFree, double margin, const uint8_t* screen,
                        int screenW, int screenH, cudaStream_t stream);

/// \brief c_pe = c_pp * e in double (the same summation order as core's computeCpe), stored as float.
/// Separable when a1d (2R+1 taps of the 1-D autocorrelation) is given, else the 2-D c_pp (as float) is used.
cudaError_t launchCpe(const DbsDeviceState& s, const double* a1d, double* scratchE, double* scratchT,
                      cudaStream_t stream);

/// \brief One block group of block-parallel DBS: blocks (by, bx) with by % 2 == py and bx % 2 == px, side bs,
/// one warp per block, c_pe of the block and its margin in shared memory. Bit-identical to core's Blocks schedule.
/// `eps` is the acceptance margin (core: 1e-5 * c_pp[0]); the accepted dE are added to *gain (device double).
cudaError_t launchGroup(const DbsDeviceState& s, int bs, int py, int px, int iteration, bool swaps, bool updateMap,
                        float eps, double* gain, cudaStream_t stream);

/// \brief The warp-scan layout: the same block group, one CTA per block; warp 0 scans 32 pixels at a time from the
/// current state and applies the first accepted move (ballot), so the result is that of the sequential in-block scan,
/// bit for bit. Blocks with no active update-map tile are skipped. Same arguments as launchGroup; shared memory
/// scanSharedBytes.
cudaError_t launchScanGroup(const DbsDeviceState& s, int bs, int py, int px, int iteration, bool swaps, bool updateMap,
                            float eps, double* gain, cudaStream_t stream);

/// \brief Shared memory a group launch needs for block side bs (bytes): Koge et al.'s layout, the warp-scan layout.
size_t groupSharedBytes(int bs, int cppRadius);
size_t scanSharedBytes(int bs, int cppRadius);

/// \brief g (0/1, padded) to the 0/255 output plane.
cudaError_t launchOutput(const DbsDeviceState& s, uint8_t* out, cudaStream_t stream);

}  // namespace halftone::gpu::dbsdev
