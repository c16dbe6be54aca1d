// The host side shared by the GPU runners: the quantizer's device tables, plans from the schedule model, and the
// host copies of the host-to-host path.
#include "gpu/runner.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstring>
#include <thread>

#include "core/ed/quantizer.h"
#include "core/threads.h"
#include "core/ed/varkerneltable.h"
#include "core/workerpool.h"

namespace halftone::gpu {

int kernelIndexOf(const std::string& name) {
    const auto all = kernels();
    for (size_t i = 0; i < all.size(); ++i)
        if (all[i].name == name) return int(i);
    return -1;
}

double medianOf(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

/// The level-weight tables of a level-dependent kernel (WavefrontArgs::levelWeights), from core's Kernel::weight()
/// and modulationWord(); empty for a fixed kernel.
std::vector<int32_t> levelWeightTable(const Kernel& k, int levels) {
    if (!k.levelDependent()) return {};
    std::vector<int32_t> t(kLevelWeightsSize);
    for (int a = 0; a < 256; ++a) {
        const uint8_t b = uint8_t(a);
        t[size_t(a)] = k.weight(0, b);
        t[size_t(256 + a)] = k.weight(1, b) | (k.weight(2, b) << 16);
        t[size_t(512 + a)] = k.modulationWord(b, levels);
    }
    return t;
}

Status Tables::make(const EdParams& p) {
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
        // the device reads the taps as right, down-left, down (core/ed/varkerneltable.h's order)
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

/// The launch plan of a published method from the schedule model (core/schedule/schedule.h), Floyd-Steinberg.
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

Status pollRun(cudaStream_t s, const RunControl& rc, volatile int* rowsDone, int height, int* abortFlag,
               Stream& cancelStream) {
    if (!rc.onProgress && !rc.cancelled()) return Status::ok();
    int last = -1;
    bool cancelSent = false;
    for (;;) {
        const cudaError_t q = cudaStreamQuery(s);
        if (q == cudaSuccess) return Status::ok();
        if (q != cudaErrorNotReady) HT_CUDA(q);
        if (rc.cancelled() && !cancelSent) {
            static const int one = 1;
            HT_CUDA(cancelStream.get() ? cudaSuccess : cancelStream.create());
            HT_CUDA(cudaMemcpyAsync(abortFlag, &one, sizeof(int), cudaMemcpyHostToDevice, cancelStream.get()));
            cancelSent = true;
        }
        const int done = *rowsDone;
        if (done != last) {
            last = done;
            Progress p;
            p.fraction = height > 0 ? double(done) / height : 1.0;
            p.rowsDone = done;
            rc.report(p);
        }
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
}

Status PhaseTimer::create(cudaStream_t s, int runs) {
    s_ = s;
    runs_ = std::max(1, runs);
    HT_CUDA(e0_.create());
    HT_CUDA(e1_.create());
    return Status::ok();
}

Status PhaseTimer::time(const Phase& body, std::vector<double>& out, bool hostClock) {
    for (int k = 0; k < runs_; ++k) {
        const auto h0 = Clock::now();
        HT_CUDA(cudaEventRecord(e0_.get(), s_));
        HT_TRY(body());
        HT_CUDA(cudaEventRecord(e1_.get(), s_));
        HT_CUDA(cudaEventSynchronize(e1_.get()));
        const auto h1 = Clock::now();
        float ms = 0;
        HT_CUDA(cudaEventElapsedTime(&ms, e0_.get(), e1_.get()));
        out.push_back(hostClock ? std::chrono::duration<double, std::milli>(h1 - h0).count() : double(ms));
    }
    return Status::ok();
}

Status PhaseTimer::phases(const Phase& up, const Phase& compute, const Phase& down, bool cpuAssisted, Timing& t) {
    HT_TRY(up());  // warm-up (module load, first touch)
    HT_TRY(compute());
    HT_TRY(down());
    HT_CUDA(cudaStreamSynchronize(s_));
    HT_CUDA(cudaGetLastError());
    const Phase all = [&]() -> Status {
        HT_TRY(up());
        HT_TRY(compute());
        return down();
    };
    std::vector<double> h2d, dev, d2h, e2e;
    HT_TRY(time(up, h2d, false));
    HT_TRY(time(compute, dev, cpuAssisted));
    HT_TRY(time(down, d2h, false));
    HT_TRY(time(all, e2e, true));
    HT_CUDA(cudaGetLastError());
    t.h2dMs = medianOf(h2d);
    t.deviceMs = medianOf(dev);
    t.d2hMs = medianOf(d2h);
    t.endToEndMs = medianOf(e2e);
    t.runs = runs_;
    t.cpuAssisted = cpuAssisted;
    return Status::ok();
}

}  // namespace halftone::gpu
