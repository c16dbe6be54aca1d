// The parallel error-collection engine shared by gray and palette error diffusion on the CPU: compiled kernel lookup,
// the trapezoid step-block list and barrier, the wavefront bands' progress counters.
#include "core/ed/bandengine.h"

#include <thread>

#include "core/threads.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define HALFTONE_BAND_X86 1
#endif

namespace halftone::band {

namespace {

inline void cpuRelax() {
#ifdef HALFTONE_BAND_X86
    _mm_pause();
#endif
}

constexpr auto kReportInterval = std::chrono::milliseconds(200);  // at most five reports a second

}  // namespace

int compiledKernelId(const Kernel& k) {
    for (int id = 0; id < par::kKernelCount; ++id) {
        if (k.name != par::kKernelNames[id]) continue;
        const kerneltable::KernelDef& c = kerneltable::kKernels[id];
        if (c.divisor != k.divisor || c.count != int(k.taps.size())) return -1;
        for (int i = 0; i < c.count; ++i)
            if (c.taps[i].di != k.taps[size_t(i)].di || c.taps[i].dj != k.taps[size_t(i)].dj ||
                c.taps[i].w != k.taps[size_t(i)].w)
                return -1;
        return id;
    }
    return -1;
}

int threadsFor(const ParallelOptions& options, const RunControl& control) {
    return std::max(1, threadsOrAll(options.threads > 0 ? options.threads : control.threads));
}

// ---------------------------------------------------------------------------------------------
// Trapezoid blocks

Status TrapezoidRun::plan(int width, int height, const Kernel& kernel, const ParallelOptions& options,
                          const RunControl& control) {
    width_ = width;
    height_ = height;
    control_ = &control;
    const int threads = threadsFor(options, control);
    ScheduleOptions so;
    so.threads = threads;
    so.blockWidth = options.blockWidth;
    so.blockHeight = options.blockHeight;
    if (Status s = planSchedule("trapezoid", width, height, kernel, so, plan_); !s) return s;
    const BlockGeometry& g = plan_.geometry;
    stepBlocks_.assign(size_t(plan_.steps), {});
    int64_t widest = 1;
    for (size_t s = 0; s < stepBlocks_.size(); ++s) {
        const int label = plan_.stepLabel[s];
        for (int I = 0; I < g.strips; ++I) {
            const int J = label - g.stripOffset * I;
            if (J < 0) break;
            if (J < g.blocksPerStrip && blockNonEmpty(g, I, J, width, height)) stepBlocks_[s].emplace_back(I, J);
        }
        widest = std::max<int64_t>(widest, int64_t(stepBlocks_[s].size()));
    }
    threads_ = int(std::min<int64_t>(threads, widest));
    barrier_ = std::make_unique<std::barrier<OnStep>>(threads_, OnStep{this});
    lastReport_ = std::chrono::steady_clock::now() - std::chrono::seconds(1);  // the first step reports
    return Status::ok();
}

// After each barrier: reset the block counter, check cancel, report progress (strips whose last block has run are
// complete rows).
void TrapezoidRun::stepDone() noexcept {
    ++step_;
    next_.store(0, std::memory_order_relaxed);
    if (control_->cancelled()) stop_.store(true);
    const auto now = std::chrono::steady_clock::now();
    if (!control_->onProgress || now - lastReport_ <= kReportInterval) return;
    lastReport_ = now;
    const BlockGeometry& g = plan_.geometry;
    Progress p;
    p.fraction = double(step_) / double(std::max<int64_t>(1, plan_.steps));
    int done = 0;
    const int label = step_ < plan_.stepLabel.size() ? plan_.stepLabel[step_] : INT32_MAX;
    while (done < g.strips && g.label(done, g.blocksPerStrip - 1) < label) ++done;
    p.rowsDone = std::min<int64_t>(height_, int64_t(done) * g.blockHeight);
    control_->report(p);
}

Status TrapezoidRun::finish() {
    if (stop_.load()) return Status::cancelled();
    control_->report(1.0);
    return Status::ok();
}

// ---------------------------------------------------------------------------------------------
// Wavefront bands

WaveBands::WaveBands(int width, int height, int bandRows, const Kernel& kernel, int threads, int64_t steps,
                     const RunControl& control)
    : width_(width),
      height_(height),
      bandRows_(bandRows),
      delay_(kernel.minimalDelay()),
      maxLeft_(kernel.maxDjLeft()),
      bands_((height + bandRows - 1) / bandRows),
      threads_(std::clamp(threads, 1, std::max(1, bands_))),
      steps_(steps),
      control_(control),
      progress_(std::make_unique<std::atomic<int64_t>[]>(size_t(bands_))),
      start_(std::chrono::steady_clock::now()) {
    for (int b = 0; b < bands_; ++b) progress_[size_t(b)].store(0);
}

bool WaveBands::wait(int band, int64_t t1) {
    if (control_.cancelled()) abort_.store(true, std::memory_order_relaxed);
    if (abort_.load(std::memory_order_relaxed)) return false;
    if (band > 0) {
        // row 0 reads row i0 - 1 up to column t1 - 1 + maxLeft; the band above finishes column x of its last row at
        // step x + k (bandRows - 1)
        const int64_t col = std::min<int64_t>(t1 - 1 + maxLeft_, width_ - 1);
        const int64_t need = col + 1 + int64_t(delay_) * (bandRows_ - 1);
        const std::atomic<int64_t>& above = progress_[size_t(band - 1)];
        int spins = 0;
        while (above.load(std::memory_order_acquire) < need) {
            if (abort_.load(std::memory_order_relaxed)) return false;
            if (++spins < 256)
                cpuRelax();
            else
                std::this_thread::yield();
        }
    }
    report();
    return true;
}

void WaveBands::report() {
    if (!control_.onProgress) return;
    const int64_t now =
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start_).count();
    int64_t last = lastReportNs_.load(std::memory_order_relaxed);
    if (now - last < std::chrono::nanoseconds(kReportInterval).count()) return;
    if (!lastReportNs_.compare_exchange_strong(last, now)) return;
    Progress p;
    int64_t sum = 0;
    int first = bands_;
    for (int b = 0; b < bands_; ++b) {
        const int64_t v = std::min(progress_[size_t(b)].load(std::memory_order_relaxed), steps_);
        sum += v;
        if (v < steps_ && first == bands_) first = b;
    }
    p.fraction = double(sum) / (double(steps_) * bands_);
    p.rowsDone = std::min<int64_t>(height_, int64_t(first) * bandRows_);
    for (int b = first; b < std::min(bands_, first + threads_); ++b) {
        const int64_t v = std::min(progress_[size_t(b)].load(std::memory_order_relaxed), steps_);
        for (int r = 0; r < bandRows_ && int64_t(b) * bandRows_ + r < height_; ++r)
            p.frontier.push_back(int32_t(std::clamp<int64_t>(v - int64_t(delay_) * r, 0, width_)));
    }
    control_.report(p);
}

Status WaveBands::finish() {
    if (abort_.load()) return Status::cancelled();
    control_.report(1.0);
    return Status::ok();
}

}  // namespace halftone::band
