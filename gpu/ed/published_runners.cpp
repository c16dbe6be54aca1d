// The published GPU methods the wavefront is compared with, host side: Kasagi, Nakano and Ito's k-delay scans on
// global memory (section IV) and parallelogram blocks (section V), and Deshpande, Misra and Narayanan's knight order,
// handover and CPU-GPU hybrid. Kernels in publishedmethods.cu behind gpu/ed/launch.h.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <thread>

#include "core/ed/quantizer.h"
#include "gpu/runner.h"

namespace halftone::gpu {

namespace {

/// A runner whose input and output are W x H bytes on the device, packed rows.
class PackedRunner : public Runner {
public:
    Status upload(const uint8_t* host, cudaStream_t s) override {
        HT_CUDA(cudaMemcpyAsync(in_.get(), host, size_t(W) * H, cudaMemcpyHostToDevice, s));
        return Status::ok();
    }
    Status download(uint8_t* host, cudaStream_t s) override {
        HT_CUDA(cudaMemcpyAsync(host, out_.get(), size_t(W) * H, cudaMemcpyDeviceToHost, s));
        return Status::ok();
    }

protected:
    /// Launch arguments of type Args over the device planes `in` and `out` of this runner's size and tables.
    template <class Args>
    Args planeArgs(const uint8_t* in, uint8_t* out) const {
        Args a;
        a.in = in;
        a.out = out;
        a.width = W;
        a.height = H;
        a.q = tables.view();
        return a;
    }
    /// Enqueues `count` steps in launches of at most `chunk`, launch(t0, t1) each, checking for a cancel before each;
    /// with `report`, progress by the steps enqueued.
    template <class Launch>
    static Status launchInChunks(int count, int chunk, const RunControl& rc, bool report, Launch&& launch) {
        for (int t0 = 0; t0 < count; t0 += chunk) {
            if (rc.cancelled()) return Status::cancelled();
            const int t1 = std::min(count, t0 + chunk);
            HT_CUDA(launch(t0, t1));
            if (report) rc.report(double(t1) / count);
        }
        return Status::ok();
    }
    Status allocatePlanes() {
        HT_CUDA(in_.allocate(size_t(W) * H));
        HT_CUDA(out_.allocate(size_t(W) * H));
        return Status::ok();
    }
    DeviceBuffer<uint8_t> in_, out_;
};

// ------------------------------------------------------------------ Kasagi, Nakano and Ito, section IV: PED/PEC
class GlobalRunner : public PackedRunner {
public:
    GlobalRunner(GlobalVariant v, bool perm) : v_(v), perm_(perm) {}
    Status allocate(const EdParams&) override {
        k_ = v_ == GlobalVariant::Ped3 ? 3 : 2;
        SchedulePlan plan;  // the k-delay scan: one launch per step of the model
        HT_TRY(planFs("k-delay", W, H, k_, 0, plan));
        steps_ = int(plan.steps);
        const size_t n = size_t(W) * H, np = perm_ ? size_t(steps_) * H : n;
        HT_TRY(allocatePlanes());
        HT_CUDA(work_.allocate(np));
        HT_CUDA(rowErr_.allocate(size_t(H)));
        if (perm_) {
            HT_CUDA(inP_.allocate(np));
            HT_CUDA(outP_.allocate(np));
        }
        return Status::ok();
    }
    Status compute(cudaStream_t s, const RunControl& rc) override {
        if (perm_) HT_CUDA(launchPermute(in_.get(), inP_.get(), W, H, k_, true, s));
        HT_CUDA(cudaMemsetAsync(work_.get(), 0, work_.bytes(), s));
        GlobalArgs a = planeArgs<GlobalArgs>(perm_ ? inP_.get() : in_.get(), perm_ ? outP_.get() : out_.get());
        a.work = work_.get();
        a.rowErr = rowErr_.get();
        a.delay = k_;
        a.permuted = perm_;
        HT_TRY(launchInChunks(steps_, 4096, rc, true,
                              [&](int t0, int t1) { return launchGlobalSteps(v_, a, t0, t1, s); }));
        if (perm_) HT_CUDA(launchPermute(outP_.get(), out_.get(), W, H, k_, false, s));
        return Status::ok();
    }

private:
    GlobalVariant v_;
    bool perm_;
    int k_ = 2, steps_ = 0;
    DeviceBuffer<uint8_t> inP_, outP_;
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

class KnightRunner : public PackedRunner {
public:
    explicit KnightRunner(bool handover) : handover_(handover) {}
    Status allocate(const EdParams& p) override {
        params_ = p;
        L_.make(W, H);
        SchedulePlan plan;  // the knight order of the schedule model: same steps as the storage layout
        HT_TRY(planFs("knight", W, H, 0, 0, plan));
        if (plan.steps != L_.steps) return Status::error("knight: schedule model and knight-order storage disagree");
        const size_t n = size_t(W) * H;
        HT_TRY(allocatePlanes());
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
        KnightArgs a = planeArgs<KnightArgs>(inK_.get(), outK_.get());
        a.err = errK_.get();
        a.offsets = L_.offsets.data();
        if (!handover_) {
            HT_CUDA(cudaMemsetAsync(errK_.get(), 0, errK_.bytes(), s));
            HT_TRY(launchInChunks(L_.steps, 4096, rc, false,
                                  [&](int t0, int t1) { return launchKnightSteps(a, t0, t1 - 1, s); }));
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
    DeviceBuffer<uint8_t> inK_, outK_;
    DeviceBuffer<int32_t> errK_;
    DeviceBuffer<int64_t> offsets_;
    std::vector<uint8_t> hostIn_, hostOut_, hostOutK_;
    std::vector<int32_t> hostErr_;
};

// ------------------------------------------------------------------ Deshpande, Misra and Narayanan: CPU-GPU hybrid
class HybridRunner : public PackedRunner {
public:
    Status allocate(const EdParams& p) override {
        params_ = p;
        // the CPU takes a band of columns on the left, sized so that both sides finish together
        // (CPU about 3 ns per pixel, GPU about 4 us per wavefront step); at least one column.
        c0_ = std::clamp(W / 8, 1, W);
        const size_t n = size_t(W) * H;
        HT_TRY(allocatePlanes());
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
        HybridArgs a = planeArgs<HybridArgs>(in_.get(), out_.get());
        a.err = err_.get();
        a.cpuCols = c0_;
        a.cpuEdge = cpuEdgeDev_;
        a.gpuEdge = gpuEdgeDev_;
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
    DeviceBuffer<int32_t> err_;
    PinnedBuffer<int32_t> cpuEdge_, gpuEdge_;
    int32_t* cpuEdgeDev_ = nullptr;
    int32_t* gpuEdgeDev_ = nullptr;
    std::vector<uint8_t> hostIn_, hostOut_;
};

// ------------------------------------------------------------------ Kasagi, Nakano and Ito, section V: parallelogram
// blocks
class BlockRunner : public PackedRunner {
public:
    BlockRunner(bool diffusion, bool registers) : diffusion_(diffusion), registers_(registers) {}
    Status allocate(const EdParams&) override {
        HT_TRY(allocatePlanes());
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
    Status compute(cudaStream_t s, const RunControl& rc) override {
        BlockArgs a = planeArgs<BlockArgs>(in_.get(), out_.get());
        a.C = C_.get();
        a.R = R_.get();
        a.diffusion = diffusion_;
        a.registers = registers_;
        return launchInChunks(int(labels_.size()), 1024, rc, false,
                              [&](int k0, int k1) { return launchBlockLabels(a, labels_.data() + k0, k1 - k0, s); });
    }

private:
    bool diffusion_, registers_;
    std::vector<int32_t> labels_;
    DeviceBuffer<int32_t> C_, R_;
};

}  // namespace

std::unique_ptr<Runner> makeGlobalRunner(GlobalVariant variant, bool permuted) {
    return std::make_unique<GlobalRunner>(variant, permuted);
}
std::unique_ptr<Runner> makeBlockRunner(bool diffusion, bool registers) {
    return std::make_unique<BlockRunner>(diffusion, registers);
}
std::unique_ptr<Runner> makeKnightRunner(bool handover) { return std::make_unique<KnightRunner>(handover); }
std::unique_ptr<Runner> makeHybridRunner() { return std::make_unique<HybridRunner>(); }

}  // namespace halftone::gpu
