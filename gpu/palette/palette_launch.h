#pragma once
// \brief The palette wavefront kernel (gpu/palette/palette_wavefront.cu) behind a plain C++ interface: its arguments,
// the exact nearest-colour keys it compares, and its launch wrappers. Memory, transfers and synchronisation belong to
// gpu/palette/palette_gpu.cpp.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "gpu/ed/launch.h"
#include "gpu/palette/palette_keys.h"

namespace halftone::gpu {

/// \brief Arguments of the palette wavefront kernel.
struct PaletteWavefrontArgs {
    /// strip bookkeeping shared with the gray kernel (stripCounter, abortFlag, rowsDone, width, height, epoch); its
    /// in/out/boundary fields are unused here
    WavefrontArgs strip;
    const uint32_t* rgb = nullptr;  ///< packed input R | G << 8 | B << 16, rgbPitch words per row
    int rgbPitch = 0;
    uint8_t* out = nullptr;  ///< palette indices, outPitch bytes per row
    int outPitch = 0;
    /// [strips][2][boundaryStride] tagged error words: E_R, E_G, E_B as 16-bit fields and the epoch in the top 16
    /// bits, one 64-bit store each (single-copy atomic: data and flag arrive together)
    unsigned long long* boundary = nullptr;
    int boundaryStride = 0;
    const int32_t* input = nullptr;  ///< the 256-entry scale-16 input table (gamma or linear light)
    /// the keys travel in the launch's parameters (constant memory): the search reads them as uniform operands
    PaletteKeys keys;
};

/// \brief Rows one warp owns in the palette kernel.
int paletteStripRows();

/// \brief Whether the palette wavefront has an instance for kernel `kernelIndex` (position in core's kernels()).
bool paletteWavefrontHasKernel(int kernelIndex);

/// \brief Launches the palette wavefront (kernelIndex = position in core's kernels()); grid from the SM count.
cudaError_t launchPaletteWavefront(int kernelIndex, const PaletteWavefrontArgs& a, int smCount, cudaStream_t stream);

/// \brief Packs three pitched 8-bit planes into R | G << 8 | B << 16 words.
cudaError_t launchPackRgb(const uint8_t* r, const uint8_t* g, const uint8_t* b, int planePitch, uint32_t* dst,
                          int dstPitch, int width, int height, cudaStream_t stream);

}  // namespace halftone::gpu
