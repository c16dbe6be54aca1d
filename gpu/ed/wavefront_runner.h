#pragma once
// \brief The wavefront kernel's runner (internal to gpu/): device buffers, band flags and the host-to-host path with
// its transfers overlapped (the staging ring fed and drained by two threads while the persistent kernel runs).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

#include "core/workerpool.h"
#include "gpu/deviceinfo.h"
#include "gpu/faultinject.h"
#include "gpu/runner.h"

namespace halftone::gpu {

// ------------------------------------------------------------------ the wavefront kernel
inline const char* formName(WavefrontForm f) { return f == WavefrontForm::Fast ? "fast" : "general"; }

class WavefrontRunner : public Runner {
public:
    explicit WavefrontRunner(WavefrontForm form) : form_(form) {}
    Status check(const EdParams& p) override {
        kernelIndex_ = kernelIndexOf(p.kernel);
        seed_ = p.seed;
        if (!wavefrontHasForm(kernelIndex_, form_, p.levels == 2))
            return Status::error(std::string("the wavefront's ") + formName(form_) +
                                 " form is not compiled for kernel " + p.kernel + " with " + std::to_string(p.levels) +
                                 " levels (the fast form is binary "
                                 "Floyd-Steinberg only)");
        return Status::ok();
    }
    Status allocate(const EdParams&) override {
        pitch_ = (W + 31) / 32 * 32;
        const int rows = wavefrontStripRows(form_);
        strips_ = (H + rows - 1) / rows;
        HT_CUDA(in_.allocate(size_t(pitch_) * H));
        HT_CUDA(out_.allocate(size_t(pitch_) * H));
        // the fast form indexes boundary words by step: up to W + 31 K + 124
        return strip_.allocate(strips_, pitch_ + 512);
    }
    Status upload(const uint8_t* host, cudaStream_t s) override {
        HT_CUDA(cudaMemcpy2DAsync(in_.get(), pitch_, host, W, W, H, cudaMemcpyHostToDevice, s));
        return Status::ok();
    }
    Status compute(cudaStream_t s, const RunControl& rc) override {
        bool wrapped = false;
        HT_TRY(strip_.begin(s, wrapped));
        if (wrapped) HT_TRY(clearBandFlags(s));
        HT_CUDA(launchWavefront(kernelIndex_, form_, args(), deviceInfo().smCount, s));
        return strip_.poll(s, rc, H);
    }
    Status download(uint8_t* host, cudaStream_t s) override {
        HT_CUDA(cudaMemcpy2DAsync(host, W, out_.get(), pitch_, W, H, cudaMemcpyDeviceToHost, s));
        return Status::ok();
    }
    Status finish() override { return strip_.finish(); }

    bool hasOverlapped() const override { return true; }
    /// Zhou and Fang's position noise seed for the next run.
    void setSeed(uint32_t seed) { seed_ = seed; }

    bool hasPacked() const override { return form_ == WavefrontForm::Fast; }
    Status setPacked(bool on) override {
        if (on && form_ != WavefrontForm::Fast)
            return Status::error("packed output needs the fast form (binary Floyd-Steinberg)");
        if (on && !packed_.get()) HT_CUDA(packed_.allocate(size_t(pitch_ / 8) * H));
        packedMode_ = on;
        return Status::ok();
    }
    Status downloadPacked(uint8_t* host, cudaStream_t s) override {
        const int rowBytes = (W + 7) / 8;
        HT_CUDA(cudaMemcpy2DAsync(host, rowBytes, packed_.get(), pitch_ / 8, rowBytes, H, cudaMemcpyDeviceToHost, s));
        return Status::ok();
    }

    /// Input copied in bands on one stream (each followed by a flag the strips wait for), the kernel
    /// running meanwhile, and every finished band copied out on a third stream as soon as all its
    /// strips have set their done flag in mapped host memory.
    Status overlapped(const uint8_t* hin, uint8_t* hout, cudaStream_t sK) override {
        const int rows = wavefrontStripRows(form_);
        const int bandRows = std::max(rows, (H / 16 + rows - 1) / rows * rows);
        const int bands = (H + bandRows - 1) / bandRows;
        if (!sIn_.get()) {
            HT_CUDA(sIn_.create());
            HT_CUDA(sOut_.create());
        }
        HT_TRY(startBands(sK));
        for (int b = 0; b < bands; ++b) {
            const int r0 = b * bandRows, n = std::min(bandRows, H - r0);
            HT_CUDA(cudaMemcpy2DAsync(in_.get() + size_t(r0) * pitch_, pitch_, hin + size_t(r0) * W, W, W, n,
                                      cudaMemcpyHostToDevice, sIn_.get()));
            HT_CUDA(launchSetFlag(bandReady_.get(), b, strip_.epoch, sIn_.get()));
        }
        WavefrontArgs a = args();
        a.bandReady = bandReady_.get();
        a.bandRows = bandRows;
        a.stripDone = stripDoneDev_;
        HT_CUDA(launchWavefront(kernelIndex_, form_, a, deviceInfo().smCount, sK));
        volatile int* done = stripDone_.get();
        for (int b = 0; b < bands;) {
            const int r0 = b * bandRows, n = std::min(bandRows, H - r0);
            const int s0 = r0 / rows, s1 = (r0 + n + rows - 1) / rows;
            bool ready = true;
            for (int st = s0; st < s1 && ready; ++st) ready = done[st] == strip_.epoch;
            if (ready) {
                HT_CUDA(cudaMemcpy2DAsync(hout + size_t(r0) * W, W, out_.get() + size_t(r0) * pitch_, pitch_, W, n,
                                          cudaMemcpyDeviceToHost, sOut_.get()));
                ++b;
                continue;
            }
            const cudaError_t q = cudaStreamQuery(sK);
            if (q != cudaErrorNotReady && q != cudaSuccess) HT_CUDA(q);
            if (q == cudaSuccess) {  // the kernel ended: every flag must be there now
                std::atomic_thread_fence(std::memory_order_seq_cst);
                bool all = true;
                for (int st = s0; st < s1; ++st) all = all && done[st] == strip_.epoch;
                if (!all)
                    return Status::error("wavefront: kernel ended before band " + std::to_string(b) + " was done");
            }
        }
        HT_CUDA(cudaStreamSynchronize(sIn_.get()));
        HT_CUDA(cudaStreamSynchronize(sK));
        HT_CUDA(cudaStreamSynchronize(sOut_.get()));
        return Status::ok();
    }

    /// Host to host from pageable memory: the input goes through the staging ring band by band (a few threads copy a
    /// band into a pinned slot, the copy engine takes it up, then the band's flag is set) on one thread while this one
    /// takes every finished band down into the other ring and on into `dst` (8-bit rows of W bytes, or with `packed`
    /// 1-bit rows of (W + 7) / 8 bytes). The kernel starts at once and each strip waits for its band, so the kernel,
    /// both directions of the bus and both staging copies all run at the same time.
    Status streamed(const uint8_t* src, uint8_t* dst, HostOutput output, Staging& st, const RunControl& rc) {
        const bool packed = output != HostOutput::Bytes;
        HT_TRY(setPacked(packed));
        const int rows = wavefrontStripRows(form_);
        const size_t outRow = packed ? size_t((W + 7) / 8) : size_t(W);
        const int capRows = std::max(rows, int(std::min<size_t>(Staging::kBandBytes / size_t(W), size_t(H))));
        const int bandRows = std::min(std::max(rows, (H / 16 + rows - 1) / rows * rows), capRows / rows * rows);
        const int bands = (H + bandRows - 1) / bandRows;
        HT_TRY(st.ensure(size_t(bandRows) * size_t(W), size_t(bandRows) * outRow));
        const cudaStream_t sK = st.kernel.get(), sUp = st.up.get(), sDown = st.down.get();
        HT_TRY(startBands(sK));
        if (!epochHost_.get()) HT_CUDA(epochHost_.allocate(1));
        epochHost_.get()[0] = strip_.epoch;  // no copy of the last run's is pending: startBands synchronised
        HT_TRY(injectFault(sK));             // test-only, off unless HALFTONE_GPU_FAULT is set (gpu/faultinject.h)
        WavefrontArgs a = args();
        a.bandReady = bandReady_.get();
        a.bandRows = bandRows;
        a.stripDone = stripDoneDev_;
        HT_CUDA(launchWavefront(kernelIndex_, form_, a, deviceInfo().smCount, sK));

        // From here on the kernel waits for bands: every way out either feeds them all or stops the kernel.
        std::atomic<bool> stopFeed{false}, feedFailed{false};
        Status feedStatus, drainStatus;
        auto feed = [&]() -> Status {
            for (int b = 0; b < bands && !stopFeed.load(std::memory_order_relaxed); ++b) {
                const int slot = b % Staging::kSlots, r0 = b * bandRows, n = std::min(bandRows, H - r0);
                if (b >= Staging::kSlots) HT_CUDA(cudaEventSynchronize(st.inDone[slot].get()));
                parallelCopy(st.in[slot].get(), src + size_t(r0) * W, size_t(n) * W);
                HT_CUDA(cudaMemcpy2DAsync(in_.get() + size_t(r0) * pitch_, pitch_, st.in[slot].get(), W, W, n,
                                          cudaMemcpyHostToDevice, sUp));
                // the band's flag by the copy engine, stream-ordered after its rows: no kernel is launched (or
                // loaded, CUDA loads kernels lazily and waits for running ones to do so) while the wavefront waits
                HT_CUDA(
                    cudaMemcpyAsync(bandReady_.get() + b, epochHost_.get(), sizeof(int), cudaMemcpyHostToDevice, sUp));
                HT_CUDA(cudaEventRecord(st.inDone[slot].get(), sUp));
            }
            return Status::ok();
        };
        bool cancelSent = false;
        auto stopKernel = [&]() -> Status {
            if (cancelSent) return Status::ok();
            static const int one = 1;
            cancelSent = true;
            HT_CUDA(
                cudaMemcpyAsync(strip_.flags.get() + 1, &one, sizeof(int), cudaMemcpyHostToDevice, st.cancel.get()));
            return Status::ok();
        };
        auto drain = [&]() -> Status {
            volatile int* done = stripDone_.get();
            const uint8_t* devOut = packed ? packed_.get() : out_.get();
            const size_t devPitch = packed ? size_t(pitch_ / 8) : size_t(pitch_);
            int pending = -1;  // the band whose copy down is in flight
            auto flush = [&](int b) -> Status {
                const int slot = b % Staging::kSlots, r0 = b * bandRows, n = std::min(bandRows, H - r0);
                HT_CUDA(cudaEventSynchronize(st.outDone[slot].get()));
                parallelCopy(dst + size_t(r0) * outRow, st.out[slot].get(), size_t(n) * outRow);
                Progress p;
                p.rowsDone = r0 + n;
                p.fraction = double(r0 + n) / H;
                rc.report(p);
                return Status::ok();
            };
            for (int b = 0; b < bands;) {
                if (!cancelSent && (rc.cancelled() || feedFailed.load())) {
                    stopFeed = true;
                    HT_TRY(stopKernel());
                }
                const int r0 = b * bandRows, n = std::min(bandRows, H - r0);
                const int s0 = r0 / rows, s1 = (r0 + n + rows - 1) / rows;
                bool ready = true;
                for (int s = s0; s < s1 && ready; ++s) ready = done[s] == strip_.epoch;
                if (ready) {
                    const int slot = b % Staging::kSlots;
                    HT_CUDA(cudaMemcpy2DAsync(st.out[slot].get(), outRow, devOut + size_t(r0) * devPitch, devPitch,
                                              outRow, n, cudaMemcpyDeviceToHost, sDown));
                    HT_CUDA(cudaEventRecord(st.outDone[slot].get(), sDown));
                    if (pending >= 0) HT_TRY(flush(pending));
                    pending = b++;
                    continue;
                }
                const cudaError_t q = cudaStreamQuery(sK);
                if (q != cudaErrorNotReady && q != cudaSuccess) HT_CUDA(q);
                if (q == cudaSuccess) {  // the kernel ended: every flag is there now, unless it was stopped
                    std::atomic_thread_fence(std::memory_order_seq_cst);
                    bool all = true;
                    for (int s = s0; s < s1; ++s) all = all && done[s] == strip_.epoch;
                    if (!all) {
                        if (cancelSent) return Status::cancelled();
                        return Status::error("wavefront: kernel ended before band " + std::to_string(b) + " was done");
                    }
                    continue;
                }
                std::this_thread::yield();
            }
            if (pending >= 0) HT_TRY(flush(pending));
            return Status::ok();
        };
        WorkerPool::shared().run(2, [&](int i) {
            if (i == 1) {
                feedStatus = feed();
                if (!feedStatus) feedFailed = true;
            } else {
                drainStatus = drain();
                if (!drainStatus) {
                    stopFeed = true;
                    if (Status s = stopKernel(); !s) drainStatus = s;
                }
            }
        });
        const cudaError_t eUp = cudaStreamSynchronize(sUp), eK = cudaStreamSynchronize(sK);
        const cudaError_t eDown = cudaStreamSynchronize(sDown), eC = cudaStreamSynchronize(st.cancel.get());
        if (!feedStatus) return feedStatus;
        if (!drainStatus && !drainStatus.isCancelled()) return drainStatus;
        HT_CUDA(eUp);
        HT_CUDA(eK);
        HT_CUDA(eDown);
        HT_CUDA(eC);
        HT_CUDA(cudaGetLastError());
        if (drainStatus.isCancelled() || rc.cancelled()) return Status::cancelled();
        return finish();
    }

private:
    /// The band flags and done flags of the overlapped paths (allocated once per runner) and a fresh epoch; the
    /// flags are clear before any band flag can be seen.
    Status startBands(cudaStream_t sK) {
        if (!bandReady_.get()) {
            HT_CUDA(bandReady_.allocate(size_t(strips_)));  // bands cover whole strips: never more bands than strips
            HT_CUDA(cudaMemset(bandReady_.get(), 0, bandReady_.bytes()));
            HT_CUDA(stripDone_.allocate(size_t(strips_), true));
            std::fill(stripDone_.get(), stripDone_.get() + strips_, 0);
            HT_CUDA(stripDone_.devicePointer(&stripDoneDev_));
        }
        bool wrapped = false;
        HT_TRY(strip_.begin(sK, wrapped));
        if (wrapped) HT_TRY(clearBandFlags(sK));
        HT_CUDA(cudaStreamSynchronize(sK));
        return Status::ok();
    }
    /// After the tags wrapped: the band and done flags of earlier launches cleared too.
    Status clearBandFlags(cudaStream_t s) {
        if (bandReady_.get()) HT_CUDA(cudaMemsetAsync(bandReady_.get(), 0, bandReady_.bytes(), s));
        HT_CUDA(cudaStreamSynchronize(s));
        if (stripDone_.get()) std::fill(stripDone_.get(), stripDone_.get() + strips_, 0);
        return Status::ok();
    }
    WavefrontArgs args() const {
        WavefrontArgs a;
        a.in = in_.get();
        a.out = out_.get();
        a.pitch = pitch_;
        a.outPitch = pitch_;
        strip_.fill(a, W, H);
        a.boundary = strip_.boundary.get();
        a.q = tables.view();
        a.levelWeights = tables.weights.get();
        a.seed = seed_;
        a.threshold = tables.threshold;
        a.binaryFast = tables.binary ? 1 : 0;
        a.gammaInput = tables.gamma ? 1 : 0;
        if (packedMode_) {
            a.packed = packed_.get();
            a.packedPitch = pitch_ / 8;
        }
        return a;
    }
    DeviceBuffer<uint8_t> packed_;
    PinnedBuffer<int> epochHost_;  ///< the streamed path's band flag value, copied after each band
    bool packedMode_ = false;
    Stream sIn_, sOut_;
    DeviceBuffer<int> bandReady_;
    PinnedBuffer<int> stripDone_;
    int* stripDoneDev_ = nullptr;
    WavefrontForm form_;
    int kernelIndex_ = 0, pitch_ = 0, strips_ = 0;
    uint32_t seed_ = 1;
    DeviceBuffer<uint8_t> in_, out_;
    StripState<uint32_t> strip_;
};

}  // namespace halftone::gpu
