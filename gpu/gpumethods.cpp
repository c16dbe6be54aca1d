// Host side of every GPU method: buffers, transfers, launches in order, cancellation, progress,
// timings. Kernels live in wavefront.cu / publishedmethods.cu behind gpu/launch.h.
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "core/quantizer.h"
#include "core/schedule.h"
#include "core/threads.h"
#include "core/workerpool.h"
#include "core/varkerneltable.h"
#include "gpu/cudacheck.h"
#include "gpu/deviceinfo.h"
#include "gpu/faultinject.h"
#include "gpu/gpu.h"
#include "gpu/launch.h"

namespace halftone::gpu {

namespace {

using Clock = std::chrono::steady_clock;

int kernelIndexOf(const std::string& name) {
    const auto all = kernels();
    for (size_t i = 0; i < all.size(); ++i)
        if (all[i].name == name) return int(i);
    return -1;
}

/// The level-weight tables of a level-dependent kernel (WavefrontArgs::levelWeights), from core's Kernel::weight()
/// and strength(); empty for a fixed kernel.
std::vector<int32_t> levelWeightTable(const Kernel& k, int levels) {
    if (!k.levelDependent()) return {};
    std::vector<int32_t> t(kLevelWeightsSize);
    for (int a = 0; a < 256; ++a) {
        const uint8_t b = uint8_t(a);
        t[size_t(a)] = k.weight(0, b);
        t[size_t(256 + a)] = k.weight(1, b) | (k.weight(2, b) << 16);
        t[size_t(512 + a)] = k.modulated() ? varkerneltable::modulationScale(k.strength(b), levels) : 0;
    }
    return t;
}

/// Device copies of the Quantizer's tables (the GPU never recomputes lin) and of a level-dependent kernel's weights.
struct Tables {
    DeviceBuffer<int32_t> input, level, weights;
    int threshold = 2040;
    bool binary = false;
    bool gamma = false;  ///< input table is A = 16 a
    Status make(const EdParams& p) {
        const Quantizer q(p.levels, p.linear);
        std::vector<int32_t> lv(kLevelTableSize);
        for (int s = 0; s < kLevelTableSize; ++s) {
            const int k = q.level(s);
            lv[size_t(s)] = q.targets()[size_t(k)] | (int32_t(q.values()[size_t(k)]) << 16);
        }
        binary = p.levels == 2;
        threshold = q.thresholds()[0];
        gamma = true;
        for (int a = 0; a < 256; ++a) gamma = gamma && q.inputTable()[size_t(a)] == 16 * a;
        HT_CUDA(input.allocate(256));
        HT_CUDA(level.allocate(kLevelTableSize));
        HT_CUDA(cudaMemcpy(input.get(), q.inputTable().data(), 256 * sizeof(int32_t), cudaMemcpyHostToDevice));
        HT_CUDA(cudaMemcpy(level.get(), lv.data(), lv.size() * sizeof(int32_t), cudaMemcpyHostToDevice));
        if (const Kernel* k = findKernel(p.kernel); k && k->levelDependent()) {
            // the device reads the taps as right, down-left, down (core/varkerneltable.h's order)
            for (int t = 0; t < varkerneltable::kTaps; ++t)
                if (k->taps[size_t(t)].di != varkerneltable::kTapDi[t] ||
                    k->taps[size_t(t)].dj != varkerneltable::kTapDj[t])
                    return Status::error("kernel " + k->name + ": taps not in the order the GPU reads them");
            const std::vector<int32_t> wt = levelWeightTable(*k, p.levels);
            HT_CUDA(weights.allocate(wt.size()));
            HT_CUDA(cudaMemcpy(weights.get(), wt.data(), wt.size() * sizeof(int32_t), cudaMemcpyHostToDevice));
        }
        return Status::ok();
    }
    QuantTables view() const { return QuantTables{input.get(), level.get()}; }
};

/// The launch plan of a published method from the schedule model (core/schedule.h), Floyd-Steinberg.
Status planFs(const std::string& name, int width, int height, int delay, int block, SchedulePlan& plan) {
    ScheduleOptions o;
    o.delay = delay;
    o.blockWidth = block;
    o.blockHeight = block;
    return planSchedule(name, width, height, *findKernel("floyd-steinberg"), o, plan);
}

/// Copies n bytes with a few threads of the shared pool when there are many: one thread moves about 10 GB/s, which
/// would make the staging copies, not the bus, the bottleneck of a host-to-host run.
void parallelCopy(uint8_t* dst, const uint8_t* src, size_t n) {
    constexpr size_t kPerThread = size_t(2) << 20;
    const int parts = int(std::min<size_t>(size_t(std::min(8, hardwareThreads())), n / kPerThread));
    if (parts <= 1) {
        std::memcpy(dst, src, n);
        return;
    }
    const size_t step = (n / size_t(parts) + 4095) / 4096 * 4096;
    WorkerPool::shared().run(parts, [&](int i) {
        const size_t b = std::min(n, size_t(i) * step), e = std::min(n, b + step);
        if (e > b) std::memcpy(dst + b, src + b, e - b);
    });
}

/// A new zeroed w x h plane whose memory the kernel may back with transparent huge pages: the first touch of a new
/// 256 MiB plane in 4 KiB pages costs more than the whole GPU run (the vector's zero fill takes every page fault).
void makePlane(Plane8& dst, int w, int h) {
    Plane8 p;
    p.width = w;
    p.height = h;
    const size_t n = size_t(w) * size_t(h);
    p.data.reserve(n);
    constexpr uintptr_t kHuge = uintptr_t(2) << 20;
    const uintptr_t b = (uintptr_t(p.data.data()) + kHuge - 1) & ~(kHuge - 1);
    const uintptr_t e = (uintptr_t(p.data.data()) + n) & ~(kHuge - 1);
    if (e > b) (void)::madvise(reinterpret_cast<void*>(b), e - b, MADV_HUGEPAGE);  // a hint: ignored where THP is off
    p.data.resize(n);
    dst = std::move(p);
}

/// What comes back from the device: 8-bit rows or 1-bit rows.
enum class HostOutput { Bytes, Bits };

/// Pinned staging memory and streams of the host-to-host path, kept between runs: a ring of band-sized pinned slots
/// for the input and one for the output (pageable memory cannot be copied asynchronously, and pinning memory costs
/// more than copying it), the kernel's stream, one stream per direction and one for the cancel flag.
struct Staging {
    static constexpr int kSlots = 3;
    /// Bytes of input per band at most (the band also covers at least one strip and at most a sixteenth of the image).
    static constexpr size_t kBandBytes = size_t(8) << 20;
    PinnedBuffer<uint8_t> in[kSlots], out[kSlots];
    Event inDone[kSlots], outDone[kSlots];
    size_t inBytes = 0, outBytes = 0;
    Stream kernel, up, down, cancel;

    Status ensure(size_t inNeed, size_t outNeed) {
        if (!kernel.get()) {
            HT_CUDA(kernel.create());
            HT_CUDA(up.create());
            HT_CUDA(down.create());
            HT_CUDA(cancel.create());
            for (int i = 0; i < kSlots; ++i) {
                HT_CUDA(inDone[i].create());
                HT_CUDA(outDone[i].create());
            }
        }
        if (inNeed > inBytes) {
            inBytes = 0;
            for (PinnedBuffer<uint8_t>& b : in) HT_CUDA(b.allocate(inNeed));
            inBytes = inNeed;
        }
        if (outNeed > outBytes) {
            outBytes = 0;
            for (PinnedBuffer<uint8_t>& b : out) HT_CUDA(b.allocate(outNeed));
            outBytes = outNeed;
        }
        return Status::ok();
    }
    /// Frees the pinned slots (the streams and events stay).
    void release() {
        for (PinnedBuffer<uint8_t>& b : in) b.reset();
        for (PinnedBuffer<uint8_t>& b : out) b.reset();
        inBytes = outBytes = 0;
    }
};

/// One method on one image size: prepare once, then upload / compute / download as often as wanted.
class Runner {
public:
    virtual ~Runner() = default;
    virtual Status prepare(int width, int height, const EdParams& p) = 0;
    virtual Status upload(const uint8_t* host, cudaStream_t s) = 0;  ///< packed W x H rows
    virtual Status compute(cudaStream_t s, const RunControl& rc) = 0;
    virtual Status download(uint8_t* host, cudaStream_t s) = 0;
    /// After the stream finished: reports a cancel the device saw.
    virtual Status finish() { return Status::ok(); }
    virtual bool cpuAssisted() const { return false; }
    /// End to end with transfers overlapped with compute (host -> host, synchronous); false = not offered.
    virtual bool hasOverlapped() const { return false; }
    virtual Status overlapped(const uint8_t*, uint8_t*, cudaStream_t) { return Status::error("not offered"); }
    /// 1-bit packed output (PBM rows of (W + 7) / 8 bytes): false = not offered.
    virtual bool hasPacked() const { return false; }
    virtual Status setPacked(bool) { return Status::error("packed output is not offered by this method"); }
    virtual Status downloadPacked(uint8_t*, cudaStream_t) { return Status::error("not offered"); }

protected:
    int W = 0, H = 0;
    Tables tables;
};

// ------------------------------------------------------------------ the wavefront kernel
const char* formName(WavefrontForm f) { return f == WavefrontForm::Fast ? "fast" : "general"; }

class WavefrontRunner : public Runner {
public:
    explicit WavefrontRunner(WavefrontForm form) : form_(form) {}
    Status prepare(int width, int height, const EdParams& p) override {
        W = width;
        H = height;
        kernelIndex_ = kernelIndexOf(p.kernel);
        seed_ = p.seed;
        if (!wavefrontHasForm(kernelIndex_, form_, p.levels == 2))
            return Status::error(std::string("the wavefront's ") + formName(form_) +
                                 " form is not compiled for kernel " + p.kernel + " with " + std::to_string(p.levels) +
                                 " levels (the fast form is binary "
                                 "Floyd-Steinberg only)");
        HT_TRY(tables.make(p));
        pitch_ = (W + 31) / 32 * 32;
        const int rows = wavefrontStripRows(form_);
        strips_ = (H + rows - 1) / rows;
        stride_ = pitch_ + 512;  // the fast form indexes boundary words by step: up to W + 31 K + 124
        HT_CUDA(in_.allocate(size_t(pitch_) * H));
        HT_CUDA(out_.allocate(size_t(pitch_) * H));
        HT_CUDA(boundary_.allocate(size_t(strips_) * 2 * stride_));
        HT_CUDA(cudaMemset(boundary_.get(), 0, boundary_.bytes()));
        HT_CUDA(flags_.allocate(2));
        HT_CUDA(host_.allocate(2, true));
        host_.get()[0] = host_.get()[1] = 0;
        HT_CUDA(host_.devicePointer(&hostDev_));
        return Status::ok();
    }
    Status upload(const uint8_t* host, cudaStream_t s) override {
        HT_CUDA(cudaMemcpy2DAsync(in_.get(), pitch_, host, W, W, H, cudaMemcpyHostToDevice, s));
        return Status::ok();
    }
    Status compute(cudaStream_t s, const RunControl& rc) override {
        if (++epoch_ > 0xffff) {  // tags wrapped: clear the words and flags of earlier launches
            HT_CUDA(cudaMemsetAsync(boundary_.get(), 0, boundary_.bytes(), s));
            if (bandReady_.get()) HT_CUDA(cudaMemsetAsync(bandReady_.get(), 0, bandReady_.bytes(), s));
            HT_CUDA(cudaStreamSynchronize(s));
            if (stripDone_.get()) std::fill(stripDone_.get(), stripDone_.get() + strips_, 0);
            epoch_ = 1;
        }
        HT_CUDA(cudaMemsetAsync(flags_.get(), 0, 2 * sizeof(int), s));
        host_.get()[0] = 0;
        host_.get()[1] = 0;
        HT_CUDA(launchWavefront(kernelIndex_, form_, args(), deviceInfo().smCount, s));
        if (rc.onProgress || rc.cancelled()) {
            // live progress (rows done, from mapped host memory) and cancellation while it runs
            volatile int* hostFlags = host_.get();
            int last = -1;
            bool cancelSent = false;
            for (;;) {
                const cudaError_t q = cudaStreamQuery(s);
                if (q == cudaSuccess) break;
                if (q != cudaErrorNotReady) HT_CUDA(q);
                if (rc.cancelled() && !cancelSent) {
                    // the kernel polls a device flag: set it with a copy on a second stream
                    static const int one = 1;
                    HT_CUDA(cancelStream_.get() ? cudaSuccess : cancelStream_.create());
                    HT_CUDA(cudaMemcpyAsync(flags_.get() + 1, &one, sizeof(int), cudaMemcpyHostToDevice,
                                            cancelStream_.get()));
                    cancelSent = true;
                }
                const int done = hostFlags[1];
                if (done != last) {
                    last = done;
                    Progress p;
                    p.fraction = H > 0 ? double(done) / H : 1.0;
                    p.rowsDone = done;
                    rc.report(p);
                }
                std::this_thread::sleep_for(std::chrono::microseconds(200));
            }
        }
        return Status::ok();
    }
    Status download(uint8_t* host, cudaStream_t s) override {
        HT_CUDA(cudaMemcpy2DAsync(host, W, out_.get(), pitch_, W, H, cudaMemcpyDeviceToHost, s));
        return Status::ok();
    }
    Status finish() override {
        int f[2] = {0, 0};
        HT_CUDA(cudaMemcpy(f, flags_.get(), sizeof f, cudaMemcpyDeviceToHost));
        if (f[1]) return Status::cancelled();
        return Status::ok();
    }

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
            HT_CUDA(launchSetFlag(bandReady_.get(), b, epoch_, sIn_.get()));
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
            for (int st = s0; st < s1 && ready; ++st) ready = done[st] == epoch_;
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
                for (int st = s0; st < s1; ++st) all = all && done[st] == epoch_;
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
        epochHost_.get()[0] = epoch_;  // no copy of the last run's is pending: startBands synchronised
        HT_TRY(injectFault(sK));       // test-only, off unless HALFTONE_GPU_FAULT is set (gpu/faultinject.h)
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
            HT_CUDA(cudaMemcpyAsync(flags_.get() + 1, &one, sizeof(int), cudaMemcpyHostToDevice, st.cancel.get()));
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
                for (int s = s0; s < s1 && ready; ++s) ready = done[s] == epoch_;
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
                    for (int s = s0; s < s1; ++s) all = all && done[s] == epoch_;
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
        if (++epoch_ > 0xffff) {
            HT_CUDA(cudaMemsetAsync(boundary_.get(), 0, boundary_.bytes(), sK));
            HT_CUDA(cudaMemsetAsync(bandReady_.get(), 0, bandReady_.bytes(), sK));
            HT_CUDA(cudaStreamSynchronize(sK));
            std::fill(stripDone_.get(), stripDone_.get() + strips_, 0);
            epoch_ = 1;
        }
        HT_CUDA(cudaMemsetAsync(flags_.get(), 0, 2 * sizeof(int), sK));
        HT_CUDA(cudaStreamSynchronize(sK));
        return Status::ok();
    }
    WavefrontArgs args() const {
        WavefrontArgs a;
        a.in = in_.get();
        a.out = out_.get();
        a.pitch = pitch_;
        a.outPitch = pitch_;
        a.width = W;
        a.height = H;
        a.boundary = boundary_.get();
        a.boundaryStride = stride_;
        a.epoch = uint32_t(epoch_);
        a.stripCounter = flags_.get();
        a.abortFlag = flags_.get() + 1;
        a.rowsDone = hostDev_ + 1;
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
    int kernelIndex_ = 0, pitch_ = 0, strips_ = 0, stride_ = 0, epoch_ = 0;
    uint32_t seed_ = 1;
    DeviceBuffer<uint8_t> in_, out_;
    DeviceBuffer<uint32_t> boundary_;
    DeviceBuffer<int> flags_;
    PinnedBuffer<int> host_;
    int* hostDev_ = nullptr;
    Stream cancelStream_;
};

// ------------------------------------------------------------------ Kasagi, Nakano and Ito, section IV: PED/PEC
class GlobalRunner : public Runner {
public:
    GlobalRunner(GlobalVariant v, bool perm) : v_(v), perm_(perm) {}
    Status prepare(int width, int height, const EdParams& p) override {
        W = width;
        H = height;
        HT_TRY(tables.make(p));
        k_ = v_ == GlobalVariant::Ped3 ? 3 : 2;
        SchedulePlan plan;  // the k-delay scan: one launch per step of the model
        HT_TRY(planFs("k-delay", W, H, k_, 0, plan));
        steps_ = int(plan.steps);
        const size_t n = size_t(W) * H, np = perm_ ? size_t(steps_) * H : n;
        HT_CUDA(in_.allocate(n));
        HT_CUDA(out_.allocate(n));
        HT_CUDA(work_.allocate(np));
        HT_CUDA(rowErr_.allocate(size_t(H)));
        if (perm_) {
            HT_CUDA(inP_.allocate(np));
            HT_CUDA(outP_.allocate(np));
        }
        return Status::ok();
    }
    Status upload(const uint8_t* host, cudaStream_t s) override {
        HT_CUDA(cudaMemcpyAsync(in_.get(), host, size_t(W) * H, cudaMemcpyHostToDevice, s));
        return Status::ok();
    }
    Status compute(cudaStream_t s, const RunControl& rc) override {
        if (perm_) HT_CUDA(launchPermute(in_.get(), inP_.get(), W, H, k_, true, s));
        HT_CUDA(cudaMemsetAsync(work_.get(), 0, work_.bytes(), s));
        GlobalArgs a;
        a.in = perm_ ? inP_.get() : in_.get();
        a.out = perm_ ? outP_.get() : out_.get();
        a.work = work_.get();
        a.rowErr = rowErr_.get();
        a.width = W;
        a.height = H;
        a.delay = k_;
        a.permuted = perm_;
        a.q = tables.view();
        for (int t0 = 0; t0 < steps_; t0 += 4096) {
            if (rc.cancelled()) return Status::cancelled();
            HT_CUDA(launchGlobalSteps(v_, a, t0, std::min(steps_, t0 + 4096), s));
            rc.report(double(std::min(steps_, t0 + 4096)) / steps_);
        }
        if (perm_) HT_CUDA(launchPermute(outP_.get(), out_.get(), W, H, k_, false, s));
        return Status::ok();
    }
    Status download(uint8_t* host, cudaStream_t s) override {
        HT_CUDA(cudaMemcpyAsync(host, out_.get(), size_t(W) * H, cudaMemcpyDeviceToHost, s));
        return Status::ok();
    }

private:
    GlobalVariant v_;
    bool perm_;
    int k_ = 2, steps_ = 0;
    DeviceBuffer<uint8_t> in_, out_, inP_, outP_;
    DeviceBuffer<int32_t> work_, rowErr_;
};

// ------------------------------------------------------------------ Deshpande, Misra and Narayanan: knight order
/// Knight-order offsets: step t = j + 2 i holds rows lo(t)..hi(t).
struct KnightLayout {
    int W = 0, H = 0, steps = 0;
    std::vector<int64_t> offsets;  // steps + 1
    void make(int w, int h) {
        W = w;
        H = h;
        steps = W + 2 * (H - 1);
        offsets.assign(size_t(steps) + 1, 0);
        for (int t = 0; t < steps; ++t) offsets[size_t(t) + 1] = offsets[size_t(t)] + count(t);
    }
    int lo(int t) const { return t - W + 1 <= 0 ? 0 : (t - W + 2) / 2; }
    int hi(int t) const { return std::min(H - 1, t / 2); }
    int count(int t) const { return std::max(0, hi(t) - lo(t) + 1); }
    size_t index(int i, int j) const {
        const int t = j + 2 * i;
        return size_t(offsets[size_t(t)] + (i - lo(t)));
    }
};

/// The sequential gather on the CPU over knight-ordered errors (handover's start and end stages).
inline void cpuPixel(const KnightLayout& L, const Tables&, const Quantizer& q, const uint8_t* in,
                     std::vector<int32_t>& err, uint8_t* out, int i, int j) {
    int acc = 0;
    if (j > 0) acc += 7 * err[L.index(i, j - 1)];
    if (i > 0) {
        if (j > 0) acc += err[L.index(i - 1, j - 1)];
        acc += 5 * err[L.index(i - 1, j)];
        if (j + 1 < L.W) acc += 3 * err[L.index(i - 1, j + 1)];
    }
    const int s = q.input(in[size_t(i) * L.W + j]) + floorDiv(acc + 8, 16);
    const int k = q.level(s);
    err[L.index(i, j)] = s - q.targets()[size_t(k)];
    out[size_t(i) * L.W + j] = q.values()[size_t(k)];
}

class KnightRunner : public Runner {
public:
    explicit KnightRunner(bool handover) : handover_(handover) {}
    Status prepare(int width, int height, const EdParams& p) override {
        W = width;
        H = height;
        params_ = p;
        HT_TRY(tables.make(p));
        L_.make(W, H);
        SchedulePlan plan;  // the knight order of the schedule model: same steps as the storage layout
        HT_TRY(planFs("knight", W, H, 0, 0, plan));
        if (plan.steps != L_.steps) return Status::error("knight: schedule model and knight-order storage disagree");
        const size_t n = size_t(W) * H;
        HT_CUDA(in_.allocate(n));
        HT_CUDA(out_.allocate(n));
        HT_CUDA(inK_.allocate(n));
        HT_CUDA(outK_.allocate(n));
        HT_CUDA(errK_.allocate(n));
        HT_CUDA(offsets_.allocate(L_.offsets.size()));
        HT_CUDA(
            cudaMemcpy(offsets_.get(), L_.offsets.data(), L_.offsets.size() * sizeof(int64_t), cudaMemcpyHostToDevice));
        if (handover_) {
            // CPU takes the steps whose parallelism is below the threshold (Deshpande, Misra and Narayanan,
            // section 4.1)
            int maxPar = 0;
            for (int t = 0; t < L_.steps; ++t) maxPar = std::max(maxPar, L_.count(t));
            const int thr = std::min(kHandoverParallelism, maxPar);
            t1_ = 0;
            while (t1_ < L_.steps && L_.count(t1_) < thr) ++t1_;
            t2_ = L_.steps - 1;
            while (t2_ > t1_ && L_.count(t2_) < thr) --t2_;
            hostIn_.resize(n);
            hostOut_.resize(n);
            hostErr_.assign(n, 0);
            hostOutK_.resize(n);
        }
        return Status::ok();
    }
    Status upload(const uint8_t* host, cudaStream_t s) override {
        HT_CUDA(cudaMemcpyAsync(in_.get(), host, size_t(W) * H, cudaMemcpyHostToDevice, s));
        if (handover_) std::memcpy(hostIn_.data(), host, size_t(W) * H);
        return Status::ok();
    }
    Status compute(cudaStream_t s, const RunControl& rc) override {
        HT_CUDA(launchKnightPermute(in_.get(), inK_.get(), W, H, offsets_.get(), true, s));
        KnightArgs a;
        a.in = inK_.get();
        a.out = outK_.get();
        a.err = errK_.get();
        a.width = W;
        a.height = H;
        a.offsets = L_.offsets.data();
        a.q = tables.view();
        if (!handover_) {
            HT_CUDA(cudaMemsetAsync(errK_.get(), 0, errK_.bytes(), s));
            for (int t0 = 0; t0 < L_.steps; t0 += 4096) {
                if (rc.cancelled()) return Status::cancelled();
                HT_CUDA(launchKnightSteps(a, t0, std::min(L_.steps, t0 + 4096) - 1, s));
            }
            HT_CUDA(launchKnightPermute(outK_.get(), out_.get(), W, H, offsets_.get(), false, s));
            return Status::ok();
        }
        // 1) CPU: steps [0, t1) in raster order
        const Quantizer q(params_.levels, params_.linear);
        for (int i = 0; i < H; ++i)
            for (int j = 0; j < W && j + 2 * i < t1_; ++j)
                cpuPixel(L_, tables, q, hostIn_.data(), hostErr_, hostOut_.data(), i, j);
        // 2) hand over: the CPU's errors are the first offsets[t1] entries of knight storage
        const size_t n1 = size_t(L_.offsets[size_t(t1_)]);
        if (n1) HT_CUDA(cudaMemcpyAsync(errK_.get(), hostErr_.data(), n1 * sizeof(int32_t), cudaMemcpyHostToDevice, s));
        if (rc.cancelled()) return Status::cancelled();
        if (t1_ <= t2_) HT_CUDA(launchKnightSteps(a, t1_, t2_, s));
        // 3) back: errors of the last three GPU steps and the GPU's outputs
        const size_t e0 = size_t(L_.offsets[size_t(std::max(t1_, t2_ - 2))]);
        const size_t e1 = size_t(L_.offsets[size_t(t2_) + 1]);
        if (t1_ <= t2_) {
            HT_CUDA(cudaMemcpyAsync(hostErr_.data() + e0, errK_.get() + e0, (e1 - e0) * sizeof(int32_t),
                                    cudaMemcpyDeviceToHost, s));
            HT_CUDA(cudaMemcpyAsync(hostOutK_.data() + n1, outK_.get() + n1, e1 - n1, cudaMemcpyDeviceToHost, s));
        }
        HT_CUDA(cudaStreamSynchronize(s));
        // 4) CPU: steps (t2, end] in raster order
        for (int i = 0; i < H; ++i)
            for (int j = std::max(0, t2_ + 1 - 2 * i); j < W; ++j)
                cpuPixel(L_, tables, q, hostIn_.data(), hostErr_, hostOut_.data(), i, j);
        for (int i = 0; i < H; ++i)
            for (int j = 0; j < W; ++j) {
                const int t = j + 2 * i;
                if (t >= t1_ && t <= t2_) hostOut_[size_t(i) * W + j] = hostOutK_[L_.index(i, j)];
            }
        return Status::ok();
    }
    Status download(uint8_t* host, cudaStream_t s) override {
        if (handover_) {
            std::memcpy(host, hostOut_.data(), size_t(W) * H);
            return Status::ok();
        }
        HT_CUDA(cudaMemcpyAsync(host, out_.get(), size_t(W) * H, cudaMemcpyDeviceToHost, s));
        return Status::ok();
    }
    bool cpuAssisted() const override { return handover_; }

private:
    static constexpr int kHandoverParallelism = 1024;
    bool handover_;
    EdParams params_;
    KnightLayout L_;
    int t1_ = 0, t2_ = -1;
    DeviceBuffer<uint8_t> in_, out_, inK_, outK_;
    DeviceBuffer<int32_t> errK_;
    DeviceBuffer<int64_t> offsets_;
    std::vector<uint8_t> hostIn_, hostOut_, hostOutK_;
    std::vector<int32_t> hostErr_;
};

// ------------------------------------------------------------------ Deshpande, Misra and Narayanan: CPU-GPU hybrid
class HybridRunner : public Runner {
public:
    Status prepare(int width, int height, const EdParams& p) override {
        W = width;
        H = height;
        params_ = p;
        HT_TRY(tables.make(p));
        // the CPU takes a band of columns on the left, sized so that both sides finish together
        // (CPU about 3 ns per pixel, GPU about 4 us per wavefront step); at least one column.
        c0_ = std::clamp(W / 8, 1, W);
        const size_t n = size_t(W) * H;
        HT_CUDA(in_.allocate(n));
        HT_CUDA(out_.allocate(n));
        HT_CUDA(err_.allocate(n));
        HT_CUDA(cpuEdge_.allocate(size_t(H), true));
        HT_CUDA(gpuEdge_.allocate(size_t(H), true));
        HT_CUDA(cpuEdge_.devicePointer(&cpuEdgeDev_));
        HT_CUDA(gpuEdge_.devicePointer(&gpuEdgeDev_));
        hostIn_.resize(n);
        hostOut_.resize(n);
        return Status::ok();
    }
    Status upload(const uint8_t* host, cudaStream_t s) override {
        HT_CUDA(cudaMemcpyAsync(in_.get(), host, size_t(W) * H, cudaMemcpyHostToDevice, s));
        std::memcpy(hostIn_.data(), host, size_t(W) * H);
        return Status::ok();
    }
    Status compute(cudaStream_t s, const RunControl& rc) override {
        for (int i = 0; i < H; ++i) {
            cpuEdge_.get()[i] = kEdgeSentinel;
            gpuEdge_.get()[i] = kEdgeSentinel;
        }
        std::atomic_thread_fence(std::memory_order_seq_cst);
        HybridArgs a;
        a.in = in_.get();
        a.out = out_.get();
        a.err = err_.get();
        a.width = W;
        a.height = H;
        a.cpuCols = c0_;
        a.cpuEdge = cpuEdgeDev_;
        a.gpuEdge = gpuEdgeDev_;
        a.q = tables.view();
        // launches from a second thread: a full launch queue must not stop the CPU band
        cudaError_t launchErr = cudaSuccess;
        std::thread launcher([&] { launchErr = launchHybridSteps(a, s); });
        const Quantizer q(params_.levels, params_.linear);
        std::vector<int32_t> prev(size_t(c0_) + 1, 0), cur(size_t(c0_) + 1, 0);
        bool cancelled = false;
        for (int i = 0; i < H; ++i) {
            if (!cancelled && rc.cancelled()) cancelled = true;
            for (int j = 0; j < c0_; ++j) {
                int32_t e = 0;
                if (!cancelled) {
                    int acc = 0;
                    if (j > 0) acc += 7 * cur[size_t(j - 1)];
                    if (i > 0) {
                        if (j > 0) acc += prev[size_t(j - 1)];
                        acc += 5 * prev[size_t(j)];
                        if (j + 1 < W) {
                            int32_t up;
                            if (j + 1 < c0_) {
                                up = prev[size_t(j + 1)];
                            } else {  // the GPU's column: wait for it in mapped memory
                                std::atomic_ref<int32_t> g(gpuEdge_.get()[i - 1]);
                                while ((up = g.load(std::memory_order_acquire)) == kEdgeSentinel)
                                    std::this_thread::yield();
                            }
                            acc += 3 * up;
                        }
                    }
                    const int sv = q.input(hostIn_[size_t(i) * W + j]) + floorDiv(acc + 8, 16);
                    const int k = q.level(sv);
                    e = sv - q.targets()[size_t(k)];
                    hostOut_[size_t(i) * W + j] = q.values()[size_t(k)];
                }
                cur[size_t(j)] = e;
                if (j == c0_ - 1) std::atomic_ref<int32_t>(cpuEdge_.get()[i]).store(e, std::memory_order_release);
            }
            std::swap(prev, cur);
        }
        launcher.join();
        HT_CUDA(launchErr);
        if (cancelled) {
            HT_CUDA(cudaStreamSynchronize(s));
            return Status::cancelled();
        }
        // the GPU's columns join the CPU's band
        if (c0_ < W)
            HT_CUDA(cudaMemcpy2DAsync(hostOut_.data() + c0_, W, out_.get() + c0_, W, size_t(W - c0_), H,
                                      cudaMemcpyDeviceToHost, s));
        HT_CUDA(cudaStreamSynchronize(s));
        return Status::ok();
    }
    Status download(uint8_t* host, cudaStream_t) override {
        std::memcpy(host, hostOut_.data(), size_t(W) * H);
        return Status::ok();
    }
    bool cpuAssisted() const override { return true; }

private:
    EdParams params_;
    int c0_ = 1;
    DeviceBuffer<uint8_t> in_, out_;
    DeviceBuffer<int32_t> err_;
    PinnedBuffer<int32_t> cpuEdge_, gpuEdge_;
    int32_t* cpuEdgeDev_ = nullptr;
    int32_t* gpuEdgeDev_ = nullptr;
    std::vector<uint8_t> hostIn_, hostOut_;
};

// ------------------------------------------------------------------ Kasagi, Nakano and Ito, section V: parallelogram
// blocks
class BlockRunner : public Runner {
public:
    BlockRunner(bool diffusion, bool registers) : diffusion_(diffusion), registers_(registers) {}
    Status prepare(int width, int height, const EdParams& p) override {
        W = width;
        H = height;
        HT_TRY(tables.make(p));
        const size_t n = size_t(W) * H;
        HT_CUDA(in_.allocate(n));
        HT_CUDA(out_.allocate(n));
        HT_CUDA(C_.allocate(size_t(blockRows(H)) * W));
        HT_CUDA(R_.allocate(size_t(3) * H));
        // launch plan: the schedule model's parallelogram labels (32 x 32 blocks, 2 columns per row)
        SchedulePlan plan;
        HT_TRY(planFs("parallelogram", W, H, kBlockSkew, kBlock, plan));
        const BlockGeometry& g = plan.geometry;
        if (g.blockWidth != kBlock || g.blockHeight != kBlock || g.skew != kBlockSkew || g.stripOffset != 3)
            return Status::error("parallelogram blocks: the schedule model's geometry differs from the kernel's");
        labels_ = plan.stepLabel;
        return Status::ok();
    }
    Status upload(const uint8_t* host, cudaStream_t s) override {
        HT_CUDA(cudaMemcpyAsync(in_.get(), host, size_t(W) * H, cudaMemcpyHostToDevice, s));
        return Status::ok();
    }
    Status compute(cudaStream_t s, const RunControl& rc) override {
        BlockArgs a;
        a.in = in_.get();
        a.out = out_.get();
        a.C = C_.get();
        a.R = R_.get();
        a.width = W;
        a.height = H;
        a.diffusion = diffusion_;
        a.registers = registers_;
        a.q = tables.view();
        const int labels = int(labels_.size());
        for (int k0 = 0; k0 < labels; k0 += 1024) {
            if (rc.cancelled()) return Status::cancelled();
            HT_CUDA(launchBlockLabels(a, labels_.data() + k0, std::min(labels, k0 + 1024) - k0, s));
        }
        return Status::ok();
    }
    Status download(uint8_t* host, cudaStream_t s) override {
        HT_CUDA(cudaMemcpyAsync(host, out_.get(), size_t(W) * H, cudaMemcpyDeviceToHost, s));
        return Status::ok();
    }

private:
    bool diffusion_, registers_;
    std::vector<int32_t> labels_;
    DeviceBuffer<uint8_t> in_, out_;
    DeviceBuffer<int32_t> C_, R_;
};

// ------------------------------------------------------------------ the method table
/// One GPU method: what the registry, the tests and the benchmark see (MethodSpec), and the runner that runs it.
/// The wavefront's runner is made by makeRunner (it needs the request's form).
struct MethodRow {
    MethodSpec spec;
    std::function<std::unique_ptr<Runner>()> make;
};

template <class R, class... A>
std::function<std::unique_ptr<Runner>()> runner(A... a) {
    return [=] { return std::unique_ptr<Runner>(std::make_unique<R>(a...)); };
}

const std::vector<MethodRow>& table() {
    static const std::vector<MethodRow> all = {
        {{"ec", "wavefront",
          "Error collection as a wavefront on the GPU in one launch, each row a few pixels behind the row "
          "above: the fastest GPU method; every kernel, 2 to 256 levels, linear light",
          true, false, "gpu-wavefront"},
         nullptr},
        {{"ed", "ped3-global",
          "GPU error diffusion, each row 3 pixels behind the row above, one launch per step (Kasagi, Nakano and Ito)",
          false, false, "k-delay"},
         runner<GlobalRunner>(GlobalVariant::Ped3, false)},
        {{"ed", "ped3-global-perm",
          "As ped3-global, with the image rearranged so that each step reads contiguous memory", false, false,
          "k-delay"},
         runner<GlobalRunner>(GlobalVariant::Ped3, true)},
        {{"ed", "ped2-atomic",
          "GPU error diffusion, each row 2 pixels behind the row above; pixels that receive error from two senders at "
          "once add it atomically",
          false, false, "k-delay"},
         runner<GlobalRunner>(GlobalVariant::Ped2Atomic, false)},
        {{"ed", "ped2-atomic-perm",
          "As ped2-atomic, with the image rearranged so that each step reads contiguous memory", false, false,
          "k-delay"},
         runner<GlobalRunner>(GlobalVariant::Ped2Atomic, true)},
        {{"ed", "ped2-double",
          "GPU error diffusion, each row 2 pixels behind the row above, two launches per step (own row, then the row "
          "below)",
          false, false, "k-delay"},
         runner<GlobalRunner>(GlobalVariant::Ped2Double, false)},
        {{"ed", "ped2-double-perm",
          "As ped2-double, with the image rearranged so that each step reads contiguous memory", false, false,
          "k-delay"},
         runner<GlobalRunner>(GlobalVariant::Ped2Double, true)},
        {{"ec", "pec2-global",
          "GPU error collection, each row 2 pixels behind the row above, one launch per step (Kasagi, Nakano and Ito)",
          false, false, "k-delay"},
         runner<GlobalRunner>(GlobalVariant::Pec2, false)},
        {{"ec", "pec2-global-perm",
          "As pec2-global, with the image rearranged so that each step reads contiguous memory", false, false,
          "k-delay"},
         runner<GlobalRunner>(GlobalVariant::Pec2, true)},
        {{"ed", "bwed",
          "GPU error diffusion on 32 x 32 slanted blocks held in fast on-chip memory (Kasagi, Nakano and Ito's "
          "block-wise method)",
          false, false, "parallelogram"},
         runner<BlockRunner>(true, false)},
        {{"ed", "bwed-rc", "As bwed, keeping the errors in reach in registers", false, false, "parallelogram"},
         runner<BlockRunner>(true, true)},
        {{"ec", "bwec",
          "GPU error collection on 32 x 32 slanted blocks held in fast on-chip memory (Kasagi, Nakano and Ito's "
          "block-wise method)",
          false, false, "parallelogram"},
         runner<BlockRunner>(false, false)},
        {{"ec", "bwec-rc",
          "As bwec, keeping the errors in reach in registers (the fastest in Kasagi, Nakano and Ito's study)", false,
          false, "parallelogram"},
         runner<BlockRunner>(false, true)},
        {{"ec", "knight",
          "GPU error collection, one thread per pixel in knight's-move order, the image stored in that order "
          "(Deshpande, Misra and Narayanan)",
          false, false, "knight"},
         runner<KnightRunner>(false)},
        {{"ec", "handover",
          "Knight's-move error collection; the CPU does the start and end where few pixels are ready, the GPU the "
          "middle",
          false, true, "knight"},
         runner<KnightRunner>(true)},
        {{"ec", "hybrid",
          "Knight's-move error collection; the CPU takes a band of columns at the same time as the GPU does the rest",
          false, true, "knight"},
         runner<HybridRunner>()},
    };
    return all;
}

const MethodRow* findRow(const std::string& variant) {
    for (const MethodRow& m : table())
        if (m.spec.variant == variant) return &m;
    return nullptr;
}

/// Whether the GPU wavefront has the kernel: not offered (the caller runs it on the CPU) for kernels that reach more
/// than two rows down, which its strips cannot pass on.
Status wavefrontOffers(const Kernel& kernel, int levels) {
    if (wavefrontHasForm(kernelIndexOf(kernel.name), WavefrontForm::General, levels == 2)) return Status::ok();
    return Status::notOffered("the GPU wavefront passes errors at most two rows down; kernel " + kernel.name +
                              " reaches " + std::to_string(kernel.maxDi()) + ", so it runs on the CPU");
}

/// The wavefront form a request names: "" = the fastest compiled one (fast for binary Floyd-Steinberg, general
/// otherwise), "fast" or "general".
Status parseForm(const std::string& text, const Kernel& kernel, int levels, WavefrontForm& form) {
    const bool fastFits = gpuWavefrontFast(kernel, levels);  // the schedule model's rule
    if (text.empty()) {
        form = fastFits ? WavefrontForm::Fast : WavefrontForm::General;
        return Status::ok();
    }
    if (text == "general") {
        form = WavefrontForm::General;
        return Status::ok();
    }
    if (text == "fast") {
        if (!fastFits)
            return Status::error("the wavefront's fast form is binary Floyd-Steinberg only (got kernel " + kernel.name +
                                 " with " + std::to_string(levels) + " levels)");
        form = WavefrontForm::Fast;
        return Status::ok();
    }
    return Status::error("unknown wavefront form '" + text + "' (expected fast or general)");
}

Status makeRunner(const std::string& variant, const EdParams& p, const std::string& formText,
                  std::unique_ptr<Runner>& out) {
    const MethodRow* row = findRow(variant);
    if (!row) {
        std::string all;
        for (const MethodRow& m : table()) all += (all.empty() ? "" : ", ") + m.spec.variant;
        return Status::error("unknown GPU method '" + variant + "'; GPU methods: " + all);
    }
    const Kernel* kernel = nullptr;
    HT_TRY(validateEdParams(p, kernel));
    if (p.serpentine) return Status::notOffered("serpentine scans have no wavefront parallelism; they run on the CPU");
    if (!row->spec.allKernels && kernel->name != "floyd-steinberg")
        return Status::error("GPU method " + variant + " supports only the floyd-steinberg kernel (got " +
                             kernel->name + ")");
    if (!deviceInfo().usable) return Status::unavailable(deviceInfo().reason);
    if (row->make) {
        out = row->make();
        return Status::ok();
    }
    HT_TRY(wavefrontOffers(*kernel, p.levels));
    WavefrontForm form = WavefrontForm::General;
    HT_TRY(parseForm(formText, *kernel, p.levels, form));
    out = std::make_unique<WavefrontRunner>(form);
    return Status::ok();
}

double medianOf(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

}  // namespace

const std::vector<MethodSpec>& methods() {
    static const std::vector<MethodSpec> all = [] {
        std::vector<MethodSpec> v;
        for (const MethodRow& row : table()) v.push_back(row.spec);
        return v;
    }();
    return all;
}

std::vector<std::string> wavefrontForms() { return {"fast", "general"}; }

namespace {

/// One run of a published method (`variant`) on `src`: size check, a runner of its own, upload, compute with
/// progress/cancel, then `fetch` copies the result back.
template <class Fetch>
Status runOnce(const std::string& variant, const Plane8& src, const EdParams& params, const RunControl& control,
               const std::string& form, Fetch&& fetch) {
    if (src.width <= 0 || src.height <= 0) return Status::error("empty image");
    // over the GPU path's pixel limit (e.g. 64K x 64K): unavailable, so runImage runs it on the CPU
    if (Status sz = checkImageSize(src.width, src.height, 1); !sz)
        return Status::unavailable("too large for the GPU path: " + std::to_string(src.width) + " x " +
                                   std::to_string(src.height) + " is over its limit of 2^30 pixels");
    const auto device = lockDevice();
    if (control.cancelled()) return Status::cancelled();  // cancelled while another run held the device
    std::unique_ptr<Runner> r;
    HT_TRY(makeRunner(variant, params, form, r));
    HT_TRY(r->prepare(src.width, src.height, params));
    Stream s;
    HT_CUDA(s.create());
    HT_TRY(r->upload(src.data.data(), s.get()));
    HT_TRY(injectFault(s.get()));  // test-only, off unless HALFTONE_GPU_FAULT is set (gpu/faultinject.h)
    Status cs = r->compute(s.get(), control);
    const cudaError_t se = cudaStreamSynchronize(s.get());
    HT_TRY(cs);
    HT_CUDA(se);
    HT_CUDA(cudaGetLastError());
    HT_TRY(r->finish());
    HT_TRY(fetch(*r, s.get()));
    HT_CUDA(cudaStreamSynchronize(s.get()));
    Progress p;
    p.fraction = 1.0;
    p.rowsDone = src.height;
    control.report(p);
    return Status::ok();
}

}  // namespace

namespace {

/// The device state kept between runs: the wavefront runner of the last size, form and parameters (its device buffers,
/// flags and tables) and the pinned staging memory. Deliberately never destroyed: at exit the CUDA runtime may already
/// be gone, and the process's end frees both.
/// Guarded by lockDevice().
struct DeviceCache {
    std::unique_ptr<WavefrontRunner> runner;
    std::string key;
    Staging staging;
};

DeviceCache& deviceCache() {
    static DeviceCache* cache = new DeviceCache;
    return *cache;
}

/// The wavefront kernel host to host (WavefrontRunner::streamed) on the cached runner; `dst` holds W H bytes, or
/// (W + 7) / 8 bytes a row with `packed`. Out of memory frees the cache and tries once more; after any other error the
/// runner is dropped (its device state is unknown).
Status runWavefront(const Plane8& src, uint8_t* dst, HostOutput output, const EdParams& params,
                    const RunControl& control, const std::string& formText) {
    if (src.width <= 0 || src.height <= 0) return Status::error("empty image");
    // over the GPU path's pixel limit (e.g. 64K x 64K): unavailable, so runImage runs it on the CPU
    if (Status sz = checkImageSize(src.width, src.height, 1); !sz)
        return Status::unavailable("too large for the GPU path: " + std::to_string(src.width) + " x " +
                                   std::to_string(src.height) + " is over its limit of 2^30 pixels");
    const Kernel* kernel = nullptr;
    HT_TRY(validateEdParams(params, kernel));
    if (params.serpentine)
        return Status::notOffered("serpentine scans have no wavefront parallelism; they run on the CPU");
    HT_TRY(wavefrontOffers(*kernel, params.levels));
    WavefrontForm form = WavefrontForm::General;
    HT_TRY(parseForm(formText, *kernel, params.levels, form));
    if (output == HostOutput::Bits && form != WavefrontForm::Fast)
        return Status::error(
            "1-bit packed output needs binary Floyd-Steinberg (the wavefront's fast form); got kernel " +
            params.kernel + " with " + std::to_string(params.levels) + " levels");
    if (!deviceInfo().usable) return Status::unavailable(deviceInfo().reason);
    const std::string key = std::string(formName(form)) + " " + std::to_string(src.width) + "x" +
                            std::to_string(src.height) + " " + kernel->name + " " + std::to_string(params.levels) +
                            (params.linear ? " linear" : " gamma");
    const auto device = lockDevice();
    if (control.cancelled()) return Status::cancelled();  // cancelled while another run held the device
    DeviceCache& cache = deviceCache();
    auto attempt = [&]() -> Status {
        if (!cache.runner || cache.key != key) {
            cache.runner.reset();
            cache.key.clear();
            auto r = std::make_unique<WavefrontRunner>(form);
            HT_TRY(r->prepare(src.width, src.height, params));
            cache.runner = std::move(r);
            cache.key = key;
        }
        cache.runner->setSeed(params.seed);  // not part of the key: a new seed needs no new buffers
        return cache.runner->streamed(src.data.data(), dst, output, cache.staging, control);
    };
    Status s = attempt();
    if (isOutOfDeviceMemory(s)) {
        cache.runner.reset();
        cache.staging.release();
        (void)cudaGetLastError();
        s = attempt();
    }
    if (!s && !s.isCancelled()) {
        cache.runner.reset();
        cache.key.clear();
    }
    if (s) {
        Progress p;
        p.fraction = 1.0;
        p.rowsDone = src.height;
        control.report(p);
    }
    return s;
}

}  // namespace

void warmDevice(const EdParams* likely, double& kernels, double& staging) {
    // the forms the work will use on a small plane: their kernels load (lazily, on first launch)
    using Clock = std::chrono::steady_clock;
    const auto device = lockDevice();
    const auto t0 = Clock::now();
    const Plane8 src(256, 256, 128);
    const Kernel* kernel = likely ? findKernel(likely->kernel) : nullptr;
    const bool fast = !kernel || gpuWavefrontFast(*kernel, likely->levels);
    const bool general = !kernel || !fast;
    if (fast) {
        std::vector<uint8_t> bits;
        (void)runPlanePacked(src, bits, EdParams{});
    }
    if (general) {
        EdParams p = likely && kernel ? *likely : EdParams{};
        if (!likely) p.levels = 3;
        p.serpentine = false;
        Plane8 dst;
        (void)runPlane("wavefront", src, dst, p);
    }
    const auto t1 = Clock::now();
    // the real runs are mostly larger: size the staging ring for bands of full size now
    (void)deviceCache().staging.ensure(Staging::kBandBytes, Staging::kBandBytes);
    kernels += std::chrono::duration<double>(t1 - t0).count();
    staging += std::chrono::duration<double>(Clock::now() - t1).count();
}

void releaseDeviceCache() {
    const auto device = lockDevice();
    DeviceCache& cache = deviceCache();
    cache.runner.reset();
    cache.key.clear();
    cache.staging.release();
}

Status runPlane(const std::string& variant, const Plane8& src, Plane8& dst, const EdParams& params,
                const RunControl& control, const std::string& form) {
    if (variant == "wavefront") {
        if (&src == &dst) {
            Plane8 out;
            HT_TRY(runPlane(variant, src, out, params, control, form));
            dst = std::move(out);
            return Status::ok();
        }
        if (dst.width != src.width || dst.height != src.height || dst.size() != src.size())
            makePlane(dst, src.width, src.height);
        return runWavefront(src, dst.data.data(), HostOutput::Bytes, params, control, form);
    }
    return runOnce(variant, src, params, control, form, [&](Runner& r, cudaStream_t s) {
        // A dst of the right size is overwritten whole (a plane the caller keeps, or one from the PlanePool).
        if (dst.width != src.width || dst.height != src.height || dst.size() != src.size())
            makePlane(dst, src.width, src.height);
        return r.download(dst.data.data(), s);
    });
}

Status runPlanePacked(const Plane8& src, std::vector<uint8_t>& rows, const EdParams& params,
                      const RunControl& control) {
    rows.resize(size_t((src.width + 7) / 8) * size_t(std::max(0, src.height)));
    return runWavefront(src, rows.data(), HostOutput::Bits, params, control, {});
}

Status timePlane(const std::string& variant, const Plane8& src, const EdParams& params, int runs, Timing& t,
                 Plane8* result, const std::string& form) {
    if (src.width <= 0 || src.height <= 0) return Status::error("empty image");
    runs = std::max(1, runs);
    const auto device = lockDevice();
    std::unique_ptr<Runner> r;
    HT_TRY(makeRunner(variant, params, form, r));
    HT_TRY(r->prepare(src.width, src.height, params));
    Stream s;
    HT_CUDA(s.create());
    Event e0, e1;
    HT_CUDA(e0.create());
    HT_CUDA(e1.create());
    const size_t n = src.size();
    PinnedBuffer<uint8_t> hin, hout;
    HT_CUDA(hin.allocate(n));
    HT_CUDA(hout.allocate(n));
    std::memcpy(hin.get(), src.data.data(), n);
    const RunControl none;
    // warm-up (module load, first touch)
    HT_TRY(r->upload(hin.get(), s.get()));
    HT_TRY(r->compute(s.get(), none));
    HT_TRY(r->download(hout.get(), s.get()));
    HT_CUDA(cudaStreamSynchronize(s.get()));
    HT_CUDA(cudaGetLastError());

    auto timed = [&](auto&& body, std::vector<double>& out, bool hostClock) -> Status {
        for (int k = 0; k < runs; ++k) {
            const auto h0 = Clock::now();
            HT_CUDA(cudaEventRecord(e0.get(), s.get()));
            HT_TRY(body());
            HT_CUDA(cudaEventRecord(e1.get(), s.get()));
            HT_CUDA(cudaEventSynchronize(e1.get()));
            const auto h1 = Clock::now();
            float ms = 0;
            HT_CUDA(cudaEventElapsedTime(&ms, e0.get(), e1.get()));
            out.push_back(hostClock ? std::chrono::duration<double, std::milli>(h1 - h0).count() : double(ms));
        }
        return Status::ok();
    };
    uint8_t* packedHost = nullptr;  // set for the 1-bit path below
    auto endToEnd = [&]() -> Status {
        HT_TRY(r->upload(hin.get(), s.get()));
        HT_TRY(r->compute(s.get(), none));
        return packedHost ? r->downloadPacked(packedHost, s.get()) : r->download(hout.get(), s.get());
    };
    std::vector<double> h2d, dev, d2h, e2e;
    HT_TRY(timed([&] { return r->upload(hin.get(), s.get()); }, h2d, false));
    HT_TRY(timed([&] { return r->compute(s.get(), none); }, dev, r->cpuAssisted()));
    HT_TRY(timed([&] { return r->download(hout.get(), s.get()); }, d2h, false));
    HT_TRY(timed(endToEnd, e2e, true));
    HT_CUDA(cudaGetLastError());
    HT_TRY(r->finish());
    if (r->hasOverlapped()) {
        PinnedBuffer<uint8_t> hover;
        HT_CUDA(hover.allocate(n));
        std::vector<double> ov;
        for (int k = 0; k <= runs; ++k) {  // the first run is a warm-up (streams, flags)
            std::memset(hover.get(), 0x5A, n);
            const auto h0 = Clock::now();
            HT_TRY(r->overlapped(hin.get(), hover.get(), s.get()));
            const auto h1 = Clock::now();
            if (k > 0) ov.push_back(std::chrono::duration<double, std::milli>(h1 - h0).count());
            if (std::memcmp(hover.get(), hout.get(), n) != 0)
                return Status::error("the overlapped end-to-end path gave a different result");
        }
        t.overlappedMs = medianOf(ov);
    }
    if (r->hasPacked()) {
        // the 1-bit path: same input, bits on the device, W H / 8 bytes back; checked against the 8-bit result
        const int rowBytes = (src.width + 7) / 8;
        const size_t pn = size_t(rowBytes) * size_t(src.height);
        PinnedBuffer<uint8_t> hpk;
        HT_CUDA(hpk.allocate(pn));
        HT_TRY(r->setPacked(true));
        packedHost = hpk.get();
        std::vector<double> pe2e, pd2h;
        HT_TRY(timed(endToEnd, pe2e, true));
        HT_TRY(timed([&] { return r->downloadPacked(hpk.get(), s.get()); }, pd2h, false));
        HT_TRY(r->setPacked(false));
        packedHost = nullptr;
        HT_CUDA(cudaGetLastError());
        for (int y = 0; y < src.height; ++y)
            for (int x = 0; x < src.width; ++x) {
                const bool black = (hpk.get()[size_t(y) * rowBytes + size_t(x / 8)] >> (7 - x % 8)) & 1;
                if (black != (hout.get()[size_t(y) * src.width + size_t(x)] == 0))
                    return Status::error("the packed 1-bit output differs from the 8-bit output at (" +
                                         std::to_string(x) + ", " + std::to_string(y) + ")");
            }
        t.packedEndToEndMs = medianOf(pe2e);
        t.packedD2hMs = medianOf(pd2h);
    }
    t.h2dMs = medianOf(h2d);
    t.deviceMs = medianOf(dev);
    t.d2hMs = medianOf(d2h);
    t.endToEndMs = medianOf(e2e);
    t.runs = runs;
    t.cpuAssisted = r->cpuAssisted();
    if (result) {
        *result = Plane8(src.width, src.height);
        std::memcpy(result->data.data(), hout.get(), n);
    }
    return Status::ok();
}

}  // namespace halftone::gpu
