#pragma once
// \brief The host side shared by the GPU runners (internal to gpu/): the quantizer's device tables, the pinned
// staging ring of the host-to-host path, the Runner interface every GPU error-diffusion method implements, and the
// published methods' runner factories.
#include <cuda_runtime_api.h>

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/ed/errordiffusion.h"
#include "core/ed/kernel.h"
#include "core/schedule/schedule.h"
#include "gpu/cudacheck.h"
#include "gpu/ed/launch.h"
#include "gpu/gpu.h"

namespace halftone::gpu {

using Clock = std::chrono::steady_clock;

/// \brief The position of a kernel in core's kernels(), as the launch wrappers index them; -1 when unknown.
int kernelIndexOf(const std::string& name);

/// \brief The median of `v` (0 when empty).
double medianOf(std::vector<double> v);

/// The level-weight tables of a level-dependent kernel (WavefrontArgs::levelWeights), from core's Kernel::weight()
/// and modulationWord(); empty for a fixed kernel.
std::vector<int32_t> levelWeightTable(const Kernel& k, int levels);

/// Device copies of the Quantizer's tables (the GPU never recomputes lin) and of a level-dependent kernel's weights.
struct Tables {
    DeviceBuffer<int32_t> input, level, weights;
    int threshold = 2040;
    bool binary = false;
    bool gamma = false;  ///< input table is A = 16 a
    /// Uploads the quantizer's tables (and a level-dependent kernel's weights) for `p`.
    Status make(const EdParams& p);
    QuantTables view() const { return QuantTables{input.get(), level.get()}; }
};

/// The launch plan of a published method from the schedule model (core/schedule/schedule.h), Floyd-Steinberg.
Status planFs(const std::string& name, int width, int height, int delay, int block, SchedulePlan& plan);

/// Copies n bytes with a few threads of the shared pool when there are many: one thread moves about 10 GB/s, which
/// would make the staging copies, not the bus, the bottleneck of a host-to-host run.
void parallelCopy(uint8_t* dst, const uint8_t* src, size_t n);

/// A new zeroed w x h plane whose memory the kernel may back with transparent huge pages: the first touch of a new
/// 256 MiB plane in 4 KiB pages costs more than the whole GPU run (the vector's zero fill takes every page fault).
void makePlane(Plane8& dst, int w, int h);

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
    /// Sizes the runner for a width x height image and `p`: the method's own checks, the quantizer's tables, then its
    /// buffers.
    Status prepare(int width, int height, const EdParams& p) {
        W = width;
        H = height;
        HT_TRY(check(p));
        HT_TRY(tables.make(p));
        return allocate(p);
    }
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
    /// What the method does not run, before anything is allocated.
    virtual Status check(const EdParams&) { return Status::ok(); }
    /// The method's buffers for W x H (tables made).
    virtual Status allocate(const EdParams& p) = 0;

    int W = 0, H = 0;
    Tables tables;
};

/// \brief Waits for the work on stream `s` to end while reporting its progress and passing on a cancel: when `rc`
/// wants progress or may be cancelled, polls the stream every 200 us, reports the rows done that the kernel writes to
/// mapped host memory (`rowsDone`, of `height`), and when `rc` is cancelled sets the kernel's abort flag on the device
/// (`abortFlag`) with a copy on `cancelStream` (made on first need), since the kernel's own stream is busy. Returns
/// at once otherwise (the caller synchronises).
Status pollRun(cudaStream_t s, const RunControl& rc, volatile int* rowsDone, int height, int* abortFlag,
               Stream& cancelStream);

/// \brief The host side of the strip protocol (gpu/ed/wavefront_strip.cuh) that the wavefront runners share (gray:
/// 32-bit boundary words, palette: 64-bit): the boundary words, the launch's epoch that tags them, the device flags
/// (work-stealing strip counter, abort flag), the mapped progress counter, and the poll of a running launch.
template <class Word>
struct StripState {
    DeviceBuffer<Word> boundary;  ///< [strips][2][stride] tagged words
    DeviceBuffer<int> flags;      ///< [0] the strip counter, [1] the abort flag
    PinnedBuffer<int> host;       ///< mapped: [1] rows done
    int* hostDev = nullptr;
    int stride = 0;
    int epoch = 0;  ///< 1..65535, new per launch
    Stream cancel;

    Status allocate(int strips, int boundaryStride) {
        stride = boundaryStride;
        HT_CUDA(boundary.allocate(size_t(strips) * 2 * size_t(stride)));
        HT_CUDA(cudaMemset(boundary.get(), 0, boundary.bytes()));
        HT_CUDA(flags.allocate(2));
        HT_CUDA(host.allocate(2, true));
        host.get()[0] = host.get()[1] = 0;
        HT_CUDA(host.devicePointer(&hostDev));
        return Status::ok();
    }
    /// \brief Before a launch on `s`: the next epoch and zeroed flags. When the 16-bit tags wrap, the words of earlier
    /// launches are cleared first and `wrapped` is set (the caller clears its own epoch-tagged flags).
    Status begin(cudaStream_t s, bool& wrapped) {
        wrapped = ++epoch > 0xffff;
        if (wrapped) {  // tags wrapped: clear the words of earlier launches
            HT_CUDA(cudaMemsetAsync(boundary.get(), 0, boundary.bytes(), s));
            epoch = 1;
        }
        return resetFlags(s);
    }
    Status resetFlags(cudaStream_t s) {
        HT_CUDA(cudaMemsetAsync(flags.get(), 0, 2 * sizeof(int), s));
        host.get()[0] = 0;
        host.get()[1] = 0;
        return Status::ok();
    }
    /// \brief The protocol's fields of a launch's arguments.
    void fill(WavefrontArgs& a, int width, int height) const {
        a.width = width;
        a.height = height;
        a.boundaryStride = stride;
        a.epoch = uint32_t(epoch);
        a.stripCounter = flags.get();
        a.abortFlag = flags.get() + 1;
        a.rowsDone = hostDev + 1;
    }
    /// \brief pollRun for the launch on `s`.
    Status poll(cudaStream_t s, const RunControl& rc, int height) {
        return pollRun(s, rc, host.get() + 1, height, flags.get() + 1, cancel);
    }
    /// \brief After the stream finished: a cancel the device saw.
    Status finish() const {
        int f[2] = {0, 0};
        HT_CUDA(cudaMemcpy(f, flags.get(), sizeof f, cudaMemcpyDeviceToHost));
        if (f[1]) return Status::cancelled();
        return Status::ok();
    }
};

/// \brief Times the phases of a runner on one stream: each run of a phase bracketed by two events.
class PhaseTimer {
public:
    using Phase = std::function<Status()>;
    Status create(cudaStream_t s, int runs);
    /// \brief Runs `body` `runs` times; appends each run's device time (or host time when `hostClock`) in ms.
    Status time(const Phase& body, std::vector<double>& out, bool hostClock);
    /// \brief One warm-up run (module load, first touch), then the upload, compute, download and all three together
    /// timed: their medians into `t` (h2dMs, deviceMs, d2hMs, endToEndMs, runs, cpuAssisted: compute by the host
    /// clock).
    Status phases(const Phase& up, const Phase& compute, const Phase& down, bool cpuAssisted, Timing& t);

private:
    cudaStream_t s_ = nullptr;
    int runs_ = 1;
    Event e0_, e1_;
};

/// \brief The published methods' runners (gpu/ed/published_runners.cpp): Kasagi, Nakano and Ito's k-delay scans on
/// global memory and parallelogram blocks, and Deshpande, Misra and Narayanan's knight order, handover and hybrid.
std::unique_ptr<Runner> makeGlobalRunner(GlobalVariant variant, bool permuted);
std::unique_ptr<Runner> makeBlockRunner(bool diffusion, bool registers);
std::unique_ptr<Runner> makeKnightRunner(bool handover);
std::unique_ptr<Runner> makeHybridRunner();

}  // namespace halftone::gpu
