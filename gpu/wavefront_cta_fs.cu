// Instances of the CTA kernel (wavefront_cta.cuh) for tuning binary Floyd-Steinberg, and its launcher.
#include <cstdio>
#include <cstdlib>

#include "gpu/wavefront_cta.cuh"

namespace halftone::gpu {
namespace cta {

CtaFn fsTuning(int extra, int warps) {
    if (warps == 4) {
        if (extra == 0) return &ctaKernel<0, 0, 4, true, true>;
        if (extra == 1) return &ctaKernel<0, 1, 4, true, true>;
        if (extra == 2) return &ctaKernel<0, 2, 4, true, true>;
    } else if (warps == 8) {
        if (extra == 0) return &ctaKernel<0, 0, 8, true, true>;
        if (extra == 1) return &ctaKernel<0, 1, 8, true, true>;
        if (extra == 2) return &ctaKernel<0, 2, 8, true, true>;
    }
    return nullptr;
}

namespace {
CtaFn find(int id, const WavefrontShape& s, bool bin, bool ident) {
    if (id < 0 || id >= kKernelCount || s.rowSets != 1) return nullptr;
    if (id == 0 && bin && ident) {
        if (CtaFn f = fsTuning(s.extraDelay, s.warps)) return f;
    }
    if (s.warps != 4 || s.extraDelay != defaultExtra(id)) return nullptr;
    return id < 4 ? defaultShape03(id, bin, ident) : defaultShape47(id, bin, ident);
}
}  // namespace
}  // namespace cta

bool wavefrontCtaHasShape(int kernelIndex, const WavefrontShape& shape, bool binary, bool identInput) {
    return cta::find(kernelIndex, shape, binary, identInput) != nullptr;
}

cudaError_t launchWavefrontCta(int kernelIndex, const WavefrontShape& shape, const WavefrontArgs& a, int smCount,
                               cudaStream_t stream) {
    const bool bin = a.binaryFast != 0;
    const cta::CtaFn fn = cta::find(kernelIndex, shape, bin, a.identInput != 0);
    if (!fn) return cudaErrorInvalidValue;
    const size_t shm = cta::sharedBytes(shape.warps, bin);
    if (cudaError_t e = cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shm)); e != cudaSuccess)
        return e;
    const int threads = 32 * (shape.warps + 1);  // compute warps + the loader warp
    int perSm = 0;
    if (cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, fn, threads, shm); e != cudaSuccess) return e;
    if (perSm < 1) return cudaErrorInvalidConfiguration;
    const int rows = wavefrontStripRows(shape);
    const int strips = (a.height + rows - 1) / rows;
    // one block per SM first (each block's warps then have a scheduler each); strips are taken in order
    int blocks = strips < smCount ? strips : smCount;
    if (blocks < 1) blocks = 1;
    if (std::getenv("HALFTONE_GPU_TRACE"))
        std::fprintf(stderr, "wavefront-cta: %dx%d e%dw%d strips=%d blocks=%d (sm=%d, resident per SM=%d) shm=%zu\n",
                     a.width, a.height, shape.extraDelay, shape.warps, strips, blocks, smCount, perSm, shm);
    fn<<<blocks, threads, shm, stream>>>(a);
    return cudaGetLastError();
}

}  // namespace halftone::gpu
