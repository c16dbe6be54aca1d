// Host side of error diffusion to a colour palette on the GPU (docs/spec.md section 4): buffers, the palette keys and
// input table made on the host from core's PaletteTargets, transfers, the launch with progress and cancel, timings.
// The kernel is gpu/palette/palette_wavefront.cu behind gpu/palette/palette_launch.h.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "core/ed/kernel.h"
#include "core/palette/paletteed.h"
#include "gpu/cudacheck.h"
#include "gpu/deviceinfo.h"
#include "gpu/faultinject.h"
#include "gpu/gpu.h"
#include "gpu/palette/palette_launch.h"
#include "gpu/runner.h"

namespace halftone::gpu {

namespace {

/// The planes of an RGB (or gray: one plane as R = G = B) image, checked.
Status inputPlanes(const Image& rgb, const Plane8* (&planes)[3]) {
    if (rgb.channels.empty() || rgb.width() <= 0 || rgb.height() <= 0) return Status::error("empty image");
    if (rgb.channels.size() != 1 && rgb.channels.size() < 3)
        return Status::error("palette error diffusion needs one gray or three RGB planes, got " +
                             std::to_string(rgb.channels.size()));
    for (int c = 0; c < 3; ++c) {
        planes[c] = &rgb.channels[rgb.channels.size() == 1 ? 0 : size_t(c)];
        if (!planes[c]->sameSize(rgb.channels.front())) return Status::error("the image's planes differ in size");
    }
    return Status::ok();
}

/// Checks the request; Status::unavailable for what the GPU path does not run (the caller runs it on the CPU).
Status checkRequest(const Image& rgb, const Palette& palette, const EdParams& params, int& kernelIndex) {
    const Plane8* planes[3];
    HT_TRY(inputPlanes(rgb, planes));
    if (Status s = checkPalette(palette); !s) return s;
    EdParams check = params;
    check.levels = 2;  // levels do not apply to palette output; validateEdParams checks the rest
    const Kernel* kernel = nullptr;
    HT_TRY(validateEdParams(check, kernel));
    if (kernel->levelDependent())
        return Status::error("kernel '" + kernel->name +
                             "' takes its weights from a gray input level; palette error diffusion takes the fixed "
                             "kernels only");
    kernelIndex = kernelIndexOf(kernel->name);
    if (kernelIndex < 0) return Status::error("kernel " + kernel->name + " has no GPU form");
    if (!paletteWavefrontHasKernel(kernelIndex))
        return Status::notOffered("the GPU palette wavefront passes errors at most two rows down; kernel " +
                                  kernel->name + " reaches " + std::to_string(kernel->maxDi()) +
                                  " rows down, so it runs on the CPU");
    if (params.serpentine)
        return Status::notOffered(
            "serpentine scans have no wavefront parallelism (each row waits for the whole row above); they run on "
            "the CPU");
    if (Status sz = checkImageSize(rgb.width(), rgb.height(), 1); !sz)
        return Status::unavailable("too large for the GPU path: " + std::to_string(rgb.width()) + " x " +
                                   std::to_string(rgb.height()) + " is over its limit of 2^30 pixels");
    if (!deviceInfo().usable) return Status::unavailable(deviceInfo().reason);
    return Status::ok();
}

/// The palette wavefront on one image size and palette: prepare once, then upload / compute / download.
class PaletteRunner {
public:
    Status prepare(int width, int height, int kernelIndex, const Palette& palette, bool linear, PaletteMatch match) {
        W_ = width;
        H_ = height;
        kernelIndex_ = kernelIndex;
        const PaletteTargets pt(palette, linear,
                                match);  // the host tables of section 4: never recomputed on the device
        keys_ = makePaletteKeys(pt.targets, pt.weights);
        pitch_ = (W_ + 31) / 32 * 32;
        const int strips = (H_ + paletteStripRows() - 1) / paletteStripRows();
        HT_CUDA(input_.allocate(256));
        HT_CUDA(cudaMemcpy(input_.get(), pt.input.data(), 256 * sizeof(int32_t), cudaMemcpyHostToDevice));
        HT_CUDA(planes_.allocate(size_t(3) * pitch_ * H_));
        HT_CUDA(rgb_.allocate(size_t(pitch_) * H_));
        HT_CUDA(out_.allocate(size_t(pitch_) * H_));
        return strip_.allocate(strips, pitch_ + 64);
    }
    /// Copies the three 8-bit planes (W x H, packed rows) to the device.
    Status upload(const uint8_t* const (&planes)[3], cudaStream_t s) {
        for (int c = 0; c < 3; ++c)
            HT_CUDA(cudaMemcpy2DAsync(plane(c), pitch_, planes[c], W_, W_, H_, cudaMemcpyHostToDevice, s));
        return Status::ok();
    }
    /// From the planes on the device to the indices on the device: pack, then the wavefront.
    Status compute(cudaStream_t s, const RunControl& rc) {
        bool wrapped = false;  // a wrap needs nothing beyond the boundary words StripState clears
        HT_TRY(strip_.begin(s, wrapped));
        HT_CUDA(launchPackRgb(plane(0), plane(1), plane(2), pitch_, rgb_.get(), pitch_, W_, H_, s));
        HT_CUDA(launchPaletteWavefront(kernelIndex_, args(), deviceInfo().smCount, s));
        return strip_.poll(s, rc, H_);
    }
    Status download(uint8_t* host, cudaStream_t s) {
        HT_CUDA(cudaMemcpy2DAsync(host, W_, out_.get(), pitch_, W_, H_, cudaMemcpyDeviceToHost, s));
        return Status::ok();
    }
    /// After the stream finished: reports a cancel the device saw.
    Status finish() const { return strip_.finish(); }

private:
    uint8_t* plane(int c) const { return planes_.get() + size_t(c) * pitch_ * H_; }
    PaletteWavefrontArgs args() const {
        PaletteWavefrontArgs a;
        strip_.fill(a.strip, W_, H_);
        a.rgb = rgb_.get();
        a.rgbPitch = pitch_;
        a.out = out_.get();
        a.outPitch = pitch_;
        a.boundary = strip_.boundary.get();
        a.boundaryStride = strip_.stride;
        a.input = input_.get();
        a.keys = keys_;
        return a;
    }
    int W_ = 0, H_ = 0, kernelIndex_ = 0, pitch_ = 0;
    PaletteKeys keys_;
    DeviceBuffer<int32_t> input_;
    DeviceBuffer<uint8_t> planes_, out_;
    DeviceBuffer<uint32_t> rgb_;
    StripState<unsigned long long> strip_;
};

}  // namespace

Status paletteErrorDiffusion(const Image& rgb, const Palette& palette, const EdParams& params, Plane8& indices,
                             const RunControl& control) {
    int kernelIndex = -1;
    HT_TRY(checkRequest(rgb, palette, params, kernelIndex));
    const Plane8* planes[3];
    HT_TRY(inputPlanes(rgb, planes));
    const auto device = lockDevice();
    if (control.cancelled()) return Status::cancelled();  // cancelled while another run held the device
    PaletteRunner r;
    Status prepared = r.prepare(rgb.width(), rgb.height(), kernelIndex, palette, params.linear, params.match);
    if (isOutOfDeviceMemory(prepared)) {  // the wavefront's kept buffers make room
        releaseDeviceCache();
        prepared = r.prepare(rgb.width(), rgb.height(), kernelIndex, palette, params.linear, params.match);
    }
    HT_TRY(prepared);
    Stream s;
    HT_CUDA(s.create());
    const uint8_t* const host[3] = {planes[0]->data.data(), planes[1]->data.data(), planes[2]->data.data()};
    HT_TRY(r.upload(host, s.get()));
    HT_TRY(injectFault(s.get()));  // test-only, off unless HALFTONE_GPU_FAULT is set (gpu/faultinject.h)
    Status cs = r.compute(s.get(), control);
    const cudaError_t se = cudaStreamSynchronize(s.get());
    HT_TRY(cs);
    HT_CUDA(se);
    HT_CUDA(cudaGetLastError());
    HT_TRY(r.finish());
    Plane8 out(rgb.width(), rgb.height());
    HT_TRY(r.download(out.data.data(), s.get()));
    HT_CUDA(cudaStreamSynchronize(s.get()));
    indices = std::move(out);
    Progress p;
    p.fraction = 1.0;
    p.rowsDone = rgb.height();
    control.report(p);
    return Status::ok();
}

Status timePalette(const Image& rgb, const Palette& palette, const EdParams& params, int runs, Timing& t,
                   Plane8* result) {
    int kernelIndex = -1;
    HT_TRY(checkRequest(rgb, palette, params, kernelIndex));
    const Plane8* planes[3];
    HT_TRY(inputPlanes(rgb, planes));
    const int W = rgb.width(), H = rgb.height();
    const size_t n = size_t(W) * size_t(H);
    const auto device = lockDevice();
    PaletteRunner r;
    HT_TRY(r.prepare(W, H, kernelIndex, palette, params.linear, params.match));
    Stream s;
    HT_CUDA(s.create());
    PinnedBuffer<uint8_t> hin, hout;
    HT_CUDA(hin.allocate(3 * n));
    HT_CUDA(hout.allocate(n));
    for (int c = 0; c < 3; ++c) std::memcpy(hin.get() + size_t(c) * n, planes[c]->data.data(), n);
    const uint8_t* const host[3] = {hin.get(), hin.get() + n, hin.get() + 2 * n};
    const RunControl none;
    PhaseTimer timer;
    HT_TRY(timer.create(s.get(), runs));
    HT_TRY(timer.phases([&] { return r.upload(host, s.get()); }, [&] { return r.compute(s.get(), none); },
                        [&] { return r.download(hout.get(), s.get()); }, false, t));
    HT_TRY(r.finish());
    if (result) {
        *result = Plane8(W, H);
        std::memcpy(result->data.data(), hout.get(), n);
    }
    return Status::ok();
}

}  // namespace halftone::gpu
